// High Roll's screen in the console (tests/games/highroll.py, a game written only for the
// tests): each player's rounds won as lit dots out of the target, the die each has thrown
// this round, the race to the target in words, and the winner at the end. It is the whole of
// what the console needs to draw the game: docs/architecture.md, "Writing a game", walks
// through it.
"use strict";
TableView.addGame("highroll", ({ el, leds, diceFaces, dots, seatBox }) => ({
  seats(snapshot, container) {
    const state = snapshot.state || {};
    const throws = state.throws || [];
    (state.players || []).forEach((player, seat) => {
      const thrown = throws[seat];
      container.append(seatBox(seat, player.name, "", leds(snapshot.leds, seat),
        el("p", { class: "facts" }, dots("Rounds won", player.wins, state.target)),
        el("p", { class: "high-roll" }, thrown ? diceFaces([thrown], false)
                                               : el("span", { text: "no throw yet this round" }))));
    });
  },

  phase: (state) => (state.phase === "play" ? [`first to ${state.target} rounds won`] : []),

  final: (state) => ({
    title: "High Roll is over",
    winner: state.winner ? `${state.winner} wins` : "",
    rows: (state.players || []).slice().sort((a, b) => b.wins - a.wins)
      .map((p) => [p.name, `${p.wins} ${p.wins === 1 ? "round" : "rounds"} won`]),
  }),
}));

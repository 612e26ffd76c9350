// Six Shooter's screen in the console: each operator's slots of cards with their Strikes and
// Lucky Numbers, the adventure in words, the campaign's end, and the seat's one decision (a
// Lucky Number's replacement card). The console's table.js draws what every game shares and
// calls these (TableView.addGame; docs/architecture.md, "Writing a game").
"use strict";
TableView.addGame("sixshooter", ({ playerSeats }) => {
  const STATUS = { active: "still standing", removed: "out of this adventure",
                   retired: "retired from the campaign" };

  function facts(player) {
    const out = [];
    if (player.strikes !== undefined) out.push(`Strikes ${player.strikes}`);
    if (Array.isArray(player.lucky)) out.push(`Lucky ${player.lucky.join(", ") || "—"}`);
    if (player.status && player.status !== "active") out.push(player.status);
    return out;
  }

  return {
    // the game's texts name cards by code ("8S"): each is drawn as a small card
    cardCodes: true,

    seats: (snapshot, container) => playerSeats(snapshot, container, {
      facts, who: (player) => [player.descriptor, player.archetype].filter(Boolean).join(" "),
    }),

    phase(state) {
      const parts = [];
      const adventure = state.adventure ? `Adventure ${state.adventure}` : "";
      if (state.phase === "setup") parts.push(`${adventure}: setting up, each player turns one card face-up`);
      else if (state.phase === "play") parts.push(adventure);
      else if (state.phase === "between_adventures") parts.push(`Between adventures (adventure ${state.adventure} is over)`);
      else if (state.phase === "finished") parts.push("The campaign is over");
      const contest = state.contest;
      if (contest) parts.push(`a contest: ${(contest.players || []).join(" against ")}, ` +
                              `${contest.exchanges} ${contest.exchanges === 1 ? "exchange" : "exchanges"} so far`);
      return parts;
    },

    final(state) {
      const players = state.players || [];
      const standing = players.filter((p) => p.status !== "retired").map((p) => p.name);
      let winner = standing.length ? `Still in the campaign: ${standing.join(", ")}`
                                   : "Every operator has retired";
      if (state.adventure) winner += ` (after adventure ${state.adventure})`;
      const rows = players.map((p) => [p.name, [STATUS[p.status] || p.status,
        `${p.strikes} ${p.strikes === 1 ? "Strike" : "Strikes"}`,
        `Lucky ${(p.lucky || []).join(", ") || "none"}`].join(" · ")]);
      return { title: "The campaign is over", winner, rows };
    },

    decision(state, prompt, { button, show }) {
      const pending = (prompt && prompt.pending) || {};
      if (!state.your_turn || pending.type !== "lucky") return null;
      return { key: "lucky", words: "Your Lucky Number came up: draw a replacement card?",
               draw: () => show(null,
                 button("Yes, draw one", { cmd: "lucky", replace: true }, "yes"),
                 button("No", { cmd: "lucky", replace: false }, "no")) };
    },

    // what the room's sounds follow: cards turned face-up, and Strikes taken
    tally(state) {
      let shown = 0, hits = 0;
      for (const player of state.players || []) {
        for (const slot of player.slots || []) if (slot.state === "face_up") shown++;
        hits += Number(player.strikes || 0);
      }
      return { shown, hits };
    },
  };
});

// Six-Gun Showdown's screen in the console: a scoreboard (each gunslinger's big score, six
// bullets large enough to read across the room, backs until revealed, speed and accuracy while
// a round is in play, and the last race's margin between them); the round in words, the end;
// and the seat's one decision (a Re-roll card's die). The console's table.js draws what every
// game shares and calls these (TableView.addGame; docs/architecture.md, "Writing a game").
"use strict";
TableView.addGame("showdown", ({ el, card, leds, seatBox, signed }) => {
  const PHASES = {
    load: "load bullets", stare_down: "stare down", race: "draw: the race to the defender's cards",
    defender_chooses: "the defender reveals a bullet", shoot: "shoot",
    reply: "the defender may shoot back", discard: "discard before the next round",
  };

  // A bullet whose card is known (revealed, or the viewer's own face-down one): its title,
  // then speed and accuracy, never the deck's id, which the title says in words.
  function bulletCard(bullet) {
    const down = bullet.state === "face_down";
    const words = `${bullet.title || bullet.card}, speed ${signed(bullet.speed)}, accuracy ` +
                  `${signed(bullet.accuracy)}` + (down ? " (face-down)" : "");
    return el("div", { class: "card face game-card bullet" + (down ? " known-down" : ""), role: "img",
                       "data-card": bullet.card, "aria-label": words, title: words },
              el("span", { class: "bullet-title", text: bullet.title || bullet.card }),
              el("span", { class: "bullet-mods", text: `S ${signed(bullet.speed)} A ${signed(bullet.accuracy)}` }));
  }

  // The newest event of the race to the defender's cards, as the game said it (who was first
  // and by how many milliseconds, or too close to call): the race's margin.
  const RACE = /was first to|fast enough|won the race|too close to call/;
  function lastRace(events) {
    const found = (events || []).slice().reverse().find((event) => RACE.test(String(event.text || "")));
    return found ? String(found.text) : "";
  }

  function seats(snapshot, container) {
    const state = snapshot.state || {};
    (state.players || []).forEach((player, seat) => {
      const slots = el("ol", { class: "slots bullets", "aria-label": `${player.name}'s bullets` });
      for (const bullet of player.bullets || []) {
        const shown = bullet.card ? bulletCard(bullet) : card(bullet);
        slots.append(el("li", { class: "slot", "data-slot": bullet.slot,
                                "aria-label": `slot ${bullet.slot}` }, shown));
      }
      // speed and accuracy exist only while a round is in play: never "speed undefined"
      const facts = [];
      if (player.speed !== undefined && player.speed !== null) facts.push(`speed ${signed(player.speed)}`);
      if (player.accuracy !== undefined && player.accuracy !== null) facts.push(`accuracy ${signed(player.accuracy)}`);
      if (typeof player.cards_left === "number") facts.push(`${player.cards_left} cards left`);
      const role = state.attacker === player.name ? "attacking" : state.defender === player.name ? "defending" : "";
      const points = Number(player.points || 0);
      const box = seatBox(seat, player.name, player.deck && player.deck.title,
                          el("p", { class: "score", role: "img",
                                    "aria-label": `${points} ${points === 1 ? "point" : "points"}` },
                             el("span", { class: "score-value", "aria-hidden": "true", text: String(points) }),
                             el("span", { class: "score-label", "aria-hidden": "true",
                                          text: points === 1 ? " point" : " points" })),
                          role ? el("p", { class: "role", text: role }) : null,
                          leds(snapshot.leds, seat),
                          el("p", { class: "facts", text: facts.join(" · ") }), slots);
      box.classList.add("gunslinger");
      if (state.winner === player.name) box.classList.add("winner");
      container.append(box);
    });
    const players = state.players || [];
    const race = lastRace(snapshot.events);
    let lead = "";
    if (players.length === 2) {
      const [a, b] = players;
      const gap = Number(a.points || 0) - Number(b.points || 0);
      lead = gap === 0 ? "level" : `${gap > 0 ? a.name : b.name} leads by ${Math.abs(gap)}`;
    }
    container.append(el("article", { class: "scene race-box", "aria-label": "the race" },
                        el("h3", {}, el("span", { text: "The race" }),
                           lead ? el("span", { class: "who lead", text: lead }) : null),
                        el("p", { class: "race", text: race || "No race yet this game." })));
  }

  function phase(state) {
    if (state.phase === "finished") return ["The shootout is over"];
    if (!state.round) return [];
    // "If the score is tied, then play an additional round, or rounds" (the seed).
    const rounds = state.rounds || 3;
    const which = state.round > rounds ? `Round ${state.round}, a tie-break round`
                                       : `Round ${state.round} of ${rounds}`;
    return [which + (PHASES[state.phase] ? `: ${PHASES[state.phase]}` : "")];
  }

  function final(state) {
    const rows = (state.players || []).slice().sort((a, b) => Number(b.points || 0) - Number(a.points || 0))
      .map((p) => [p.name, `${p.points} ${p.points === 1 ? "point" : "points"}` +
                            (p.deck && p.deck.title ? ` (${p.deck.title})` : "")]);
    return { title: "The shootout is over",
             winner: state.winner ? `${state.winner} wins` : "Nobody wins: a draw", rows };
  }

  function decision(state, prompt, { button, show }) {
    const pending = (prompt && prompt.pending) || {};
    if (!state.your_turn || pending.type !== "reroll") return null;
    return { key: "reroll", words: "Your Re-roll card: throw the die again, or let it stand",
             draw: () => show(null, button("Let it stand", { cmd: "keep" }, "the die stands")) };
  }

  // what the room's sounds follow: bullets revealed, and points scored
  function tally(state) {
    let shown = 0, hits = 0;
    for (const player of state.players || []) {
      for (const bullet of player.bullets || []) if (bullet.state === "face_up") shown++;
      hits += Number(player.points || 0);
    }
    return { shown, hits };
  }

  // the seats show the last race's margin, which lives in the events, not the state
  const drawnFrom = (snapshot) => lastRace(snapshot.events);

  return { seats, drawnFrom, phase, final, decision, tally };
});

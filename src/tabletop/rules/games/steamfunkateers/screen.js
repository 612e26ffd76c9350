// Steamfunkateers' screen in the console: Vigor and contest wins per player, the pools of the
// roll on the table (sixes marked: they are what counts), the last roll when none is on; the
// turn order and contest in words, the end; and the seat's one decision (to fold). The
// console's table.js draws what every game shares and calls these (TableView.addGame;
// docs/architecture.md, "Writing a game").
"use strict";
TableView.addGame("steamfunkateers", ({ el, leds, diceFaces, dots, seatBox }) => {
  // Whose pool it is, by name (the game master's as such), then what it rolls ("Athletics 4").
  function poolWho(pool) {
    const who = pool.who === "GM" ? "Game master" : pool.who;
    const label = pool.label ? ` (${pool.label.replace(/^GM /, "")})` : "";
    return el("span", { class: "pool-who" }, el("strong", { class: "pool-name", text: who }),
              el("span", { class: "pool-label", text: `${label}: ` }));
  }

  function seats(snapshot, container) {
    const state = snapshot.state || {};
    const order = state.order || {};
    (state.players || []).forEach((player, seat) => {
      const facts = [`Vigor ${player.vigor}`];
      if (player.folded) facts.push("folded");
      const conditions = (player.conditions || []).filter((c) => c.name)
        .map((c) => `${c.name} (${c.severity})`);
      if (conditions.length) facts.push(`conditions: ${conditions.join(", ")}`);
      // whose turn it is in the turn order (the prompt's "▶ to act" says who must throw now)
      const turn = order.current === player.name ? "turn order: now" : "";
      container.append(seatBox(seat, player.name, turn, leds(snapshot.leds, seat),
                               el("p", { class: "facts" }, dots("Contest wins", player.contest_wins, 3)),
                               el("p", { class: "facts", text: facts.join(" · ") })));
    });
    const round = state.round;
    const scene = el("article", { class: "seat scene wide" },
                     el("h3", { text: round ? `The roll: ${round.kind}` + (round.task ? `, ${round.task}` : "")
                                            : state.last_result ? "The last roll (ended)" : "No roll on the table" }),
                     el("p", { class: "facts", text: `Game master's Vigor ${state.gm_vigor ?? 0}` }));
    for (const pool of (round && round.pools) || []) {
      const notes = [`${pool.sixes} ${pool.sixes === 1 ? "six" : "sixes"}`];
      if (pool.rerolled) notes.push("rerolled");
      if (pool.folded) notes.push("folded");
      scene.append(el("p", { class: "pool", "data-who": pool.who }, poolWho(pool),
                      pool.values && pool.values.length ? diceFaces(pool.values, true)
                        : el("span", { text: `${pool.dice} dice to throw` }),
                      el("span", { class: "facts", text: ` ${pool.values && pool.values.length ? notes.join(", ") : ""}` })));
    }
    const result = state.last_result;
    if (!round && result) {
      // the roll that ended last: each pool's dice as thrown, its sixes and who made it
      const pools = result.pools || [];
      for (const [who, sixes] of Object.entries(result.sixes || {})) {
        const outcome = (result.winners || []).includes(who) ? "succeeded"
          : (result.failed || []).includes(who) ? "failed" : "";
        const extra = (result.extraordinary || []).includes(who) ? ", extraordinary" : "";
        const pool = pools.find((p) => p.who === who);
        scene.append(el("p", { class: "pool last", "data-who": who },
          poolWho(pool || { who }),
          pool && pool.values && pool.values.length ? diceFaces(pool.values, true) : null,
          el("span", { text: ` ${sixes} ${sixes === 1 ? "six" : "sixes"}` +
                             (outcome ? `, ${outcome}` : "") + extra })));
      }
    }
    const contest = state.contest;
    if (contest) {
      const wins = Object.entries(contest.wins || {}).map(([who, n]) => `${who} ${n}`).join(", ");
      scene.append(el("p", { text: `Contest (${contest.goal}): ${wins}` +
                                   (contest.winner ? `; ${contest.winner} wins it` : "") }));
    }
    container.append(scene);
  }

  function phase(state) {
    const parts = [];
    const order = state.order;
    if (order) {
      const kind = { physical: "Physical conflict", mental: "Mental conflict", scene: "The scene's turn order" }[order.kind] || order.kind;
      parts.push(order.kind === "scene" ? kind : `${kind}, exchange ${order.exchange}`);
      if ((order.tied || []).length) parts.push(`setting the turn order: ${order.tied.join(", ")} tied`);
    }
    const contest = state.contest;
    if (contest && !contest.over) parts.push(`Contest: ${contest.goal}, first to 3 victories`);
    const round = state.round;
    if (round) parts.push(round.kind === "exchange" ? "an exchange of the contest"
                          : `a check${round.task ? `: ${round.task}` : ""}`);
    if (state.phase === "finished") parts.push("The game is over");
    return parts;
  }

  function final(state, events) {
    const players = state.players || [];
    const contest = state.contest;
    const ended = events.slice().reverse().find((e) => / wins the contest /.test(String(e.text || "")));
    const winner = contest && contest.winner ? `${contest.winner} wins the contest`
      : ended ? String(ended.text) : "";
    const rows = players.slice().sort((a, b) => Number(b.contest_wins || 0) - Number(a.contest_wins || 0))
      .map((p) => [p.name, `Vigor ${p.vigor} · contest wins ${p.contest_wins}`]);
    return { winner, rows };
  }

  function decision(state, prompt, { button, show }) {
    if (!state.your_turn) return null;
    return { key: "fold", words: "Fold, spending a point of Vigor?",
             draw: () => show(null, button("Fold (a point of Vigor)", { cmd: "fold" }, "you fold")) };
  }

  return { seats, phase, final, decision };
});

// OS-SIX's screen in the console: each character's Luck and Strain and last roll, the duel
// when one is on, the dice poker table (all of it public: "every die is thrown in the open"),
// the game master's roll; the phase in words, the end; and the seat's decisions (a bet, a
// concealed hand's dice, the draw, a Luck Point). The console's table.js draws what every game
// shares and calls these (TableView.addGame; docs/architecture.md, "Writing a game").
"use strict";
TableView.addGame("ossix", ({ el, leds, diceFaces, dots, seatBox }) => {
  const POKER_VARIANTS = { draw: "five-dice draw", hold_em: "Hold 'Em", lucky_seven: "Lucky Seven" };
  const COMMUNITY = ["the flop", "the turn", "the river"];
  const DEAL = { draw: 5, hold_em: 2, lucky_seven: 7 };  // the dice of a hand, by variant
  const LUCK = [["bonus", "A bonus die"], ["reroll", "Re-roll the failure"],
                ["upgrade", "Upgrade to a full success"], ["max_damage", "Maximum damage"],
                ["reduce_damage", "Less damage taken"]];
  const money = (amount) => `$${Number(amount || 0)}`;
  const duelSteps = (next) => (next || []).map((step) => step.replace(/_/g, " ")).join(" or ");

  // Each character's Luck and Strain, the last roll, and the duel when one is on.
  function seats(snapshot, container) {
    const state = snapshot.state || {};
    (state.players || []).forEach((player, seat) => {
      const flags = [];
      if (player.incapacitated) flags.push("incapacitated");
      if (player.bonus_next) flags.push("Bonus on the next roll");
      if (player.overloaded) flags.push("carrying too much: Penalty");
      const strain = el("label", { class: "meter" }, el("span", { text: `Strain ${player.strain} of 12` }),
                        el("meter", { min: 0, max: 12, low: 6, high: 10, optimum: 0, value: player.strain }));
      const roll = player.last_roll;
      const last = roll ? el("p", { class: "roll" }, diceFaces(roll.values || [], false),
                              el("span", { text: " " + [roll.outcome, roll.critical].filter(Boolean).join(", ") }))
                        : null;
      const duelist = state.duel && [state.duel.player, state.duel.opponent].includes(player.name);
      container.append(seatBox(seat, player.name, duelist ? "in the duel" : "", leds(snapshot.leds, seat),
                               el("p", { class: "facts" }, dots("Luck", player.luck, 3)), strain,
                               el("p", { class: "facts", text: flags.join(" · ") }), last));
    });
    const duel = state.duel;
    if (duel) {
      container.append(el("article", { class: "seat scene wide duel" }, el("h3", { text: "Quick-draw duel" }),
        el("p", { text: `${duel.player} against ${duel.opponent}, round ${duel.round}` +
                        (duel.two_pistols ? ", two pistols" : "") }),
        el("p", { class: "facts", text: `next: ${(duel.next || []).join(" or ") || "—"}` })));
    }
    if (state.poker) container.append(pokerTable(state.poker, state.players || []));
    const gm = state.last_gm_roll;
    if (gm) {
      container.append(el("article", { class: "seat scene" }, el("h3", { text: "Game master's roll" }),
        el("p", { text: `${gm.kind}: ${gm.result}` + (gm.meaning ? ` (${gm.meaning})` : "") })));
    }
  }

  // The dice poker: the pot, the community dice (Hold 'Em), and each gambler's money, bets,
  // dice and hand; a gambler who is no character of the game is the game master's (an NPC at
  // the table).
  function pokerTable(poker, characters) {
    const players = new Set(characters.map((c) => c.name));
    const variant = POKER_VARIANTS[poker.variant] || poker.variant;
    const box = el("article", { class: "seat scene wide poker", "aria-label": "dice poker" },
      el("h3", {}, el("span", { text: `Dice poker: ${variant}` }),
         el("span", { class: "who", text: poker.hand ? `hand ${poker.hand}, ante ${money(poker.ante)}`
                                                      : `ante ${money(poker.ante)}` })),
      el("p", { class: "pot" }, el("span", { class: "pot-label", text: "Pot " }),
         el("strong", { class: "pot-amount", text: money(poker.pot) }),
         poker.bet ? el("span", { class: "facts", text: ` · bet to call ${money(poker.bet)}` }) : null,
         poker.carry ? el("span", { class: "facts", text: ` · ${money(poker.carry)} carried over` }) : null));
    if (poker.variant === "hold_em" && (poker.community || []).length) {
      box.append(el("p", { class: "community" }, el("span", { text: "Community dice " }),
                    diceFaces(poker.community, false)));
    }
    const list = el("div", { class: "gamblers" });
    for (const seat of poker.seats || []) {
      const tags = [];
      if (seat.dealer) tags.push("dealer");
      if (!players.has(seat.name)) tags.push("game master's gambler");
      const facts = [`${money(seat.money)} on the table`];
      if (seat.bet) facts.push(`bet ${money(seat.bet)}`);
      if (seat.in_pot) facts.push(`in the pot ${money(seat.in_pot)}`);
      const status = seat.folded ? "folded" : seat.all_in ? "ALL IN"
        : !seat.playing && poker.phase !== "between" ? "sits out" : "";
      const kept = Array.isArray(seat.kept) && seat.kept.length
        ? el("span", { class: "facts kept", text: ` keeps ${seat.kept.join(" ")}` }) : null;
      list.append(el("section", { class: "gambler" + (seat.folded ? " folded" : ""), "data-name": seat.name },
        el("h4", {}, el("span", { class: "gambler-name", text: seat.name }),
           tags.length ? el("span", { class: "who gambler-tags", text: tags.join(", ") }) : null),
        el("p", { class: "facts money", text: facts.join(" · ") }),
        handDice(seat, kept),
        seat.hand || status
          ? el("p", { class: "hand" }, seat.hand ? el("strong", { text: seat.hand }) : null,
               status ? el("span", { class: "gambler-status", text: (seat.hand ? " · " : "") + status }) : null)
          : null));
    }
    box.append(list);
    return box;
  }

  // A gambler's dice: the faces once thrown in the open (or revealed), else, while the hand
  // is concealed (the contract's `dice: null, dice_hidden: N`), N backs and "N dice, hidden".
  function handDice(seat, kept) {
    const hidden = Number(seat.dice_hidden || 0);
    if (!Array.isArray(seat.dice) && hidden > 0) {
      const backs = el("span", { class: "dice hidden-dice", role: "img",
                                 "aria-label": `${hidden} ${hidden === 1 ? "die" : "dice"}, hidden` });
      for (let i = 0; i < hidden; i++) backs.append(el("span", { class: "die back", "aria-hidden": "true" }));
      return el("p", { class: "hand-dice concealed" }, backs,
                el("span", { class: "facts", "aria-hidden": "true",
                             text: ` ${hidden} ${hidden === 1 ? "die" : "dice"}, hidden` }));
    }
    if ((seat.dice || []).length) return el("p", { class: "hand-dice" }, diceFaces(seat.dice, false), kept);
    return el("p", { class: "facts hand-dice", text: seat.playing && !seat.folded ? "no dice thrown yet" : "no hand" });
  }

  function phase(state) {
    const parts = [];
    const poker = state.poker;
    if (poker) {
      const variant = POKER_VARIANTS[poker.variant] || poker.variant;
      const step = { between: "between hands", deal: "the deal", draw: "the draw",
                     showdown: "the showdown",
                     betting: `betting, round ${poker.street}`,
                     community: `${COMMUNITY[poker.street - 1] || "community dice"}` }[poker.phase] || poker.phase;
      parts.push(`Dice poker (${variant})` + (poker.hand ? `, hand ${poker.hand}` : "") + `: ${step}`);
    }
    const duel = state.duel;
    if (duel) {
      parts.push(`Quick-draw duel, round ${duel.round}: ${duel.player} against ${duel.opponent}` +
                 (duel.next && duel.next.length ? `, next ${duelSteps(duel.next)}`
                   : duel.rolled ? `, rolling ${duel.rolled.replace(/_/g, " ")}` : ""));
    }
    if (state.phase === "finished") parts.push("The game is over");
    return parts;
  }

  function final(state) {
    const players = state.players || [];
    const up = players.filter((p) => !p.incapacitated).map((p) => p.name);
    const winner = up.length === players.length ? "Every character is still standing"
      : up.length ? `Still standing: ${up.join(", ")}` : "Every character is incapacitated";
    const rows = players.map((p) => [p.name, [`Luck ${p.luck} of 3`, `Strain ${p.strain} of 12`,
      p.incapacitated ? "incapacitated" : ""].filter(Boolean).join(" · ")]);
    return { winner, rows };
  }

  // A bet at the poker table: call or check, raise or bet an amount, fold, all in.
  function betButtons(poker, me, { el: make, button, show }) {
    const toCall = Number(poker.to_call || 0);
    const least = Math.max(1, Number(poker.min_raise || 1));
    const amount = make("input", { id: "act-amount", type: "number", inputmode: "numeric",
                                   min: String(least), max: String(me.money), value: String(least) });
    const raise = toCall > 0 ? "raise" : "bet";
    const wanted = () => ({ cmd: "bet", action: raise, amount: Math.round(Number(amount.value)) });
    show(make("div", { class: "act-amount" },
              make("label", { for: "act-amount", text: toCall > 0 ? "Raise by ($)" : "Bet ($)" }), amount),
         toCall > 0 ? button(`Call $${toCall}`, { cmd: "bet", action: "call" }, `you call $${toCall}`)
                    : button("Check", { cmd: "bet", action: "check" }, "you check"),
         button(toCall > 0 ? "Raise" : "Bet", wanted, toCall > 0 ? "your raise" : "your bet"),
         button("Fold", { cmd: "bet", action: "fold" }, "you fold"),
         button("All in", { cmd: "bet", action: "all_in" }, "you go all in"));
  }

  // What this seat's player decides now: the poker's own steps (which wait for no prompt),
  // then a Luck Point the prompt offers.
  function decision(state, prompt, pads) {
    const { button, show, handPad, keepPad } = pads;
    const mine = state.seat;
    const pending = (prompt && prompt.pending) || {};
    const poker = state.poker;
    const me = poker ? (poker.seats || []).find((s) => s.name === mine) : null;
    if (me && me.playing !== false && !me.folded) {
      if (poker.phase === "betting" && poker.to_act === mine) {
        return { key: `bet:${poker.to_call}:${poker.min_raise}:${me.money}`,
                 words: poker.to_call > 0 ? `$${poker.to_call} to call` : "Your bet",
                 draw: () => betButtons(poker, me, pads) };
      }
      const dice = me.dice || [];
      if (poker.phase === "deal" && poker.open === false && dice.length === 0) {
        const size = DEAL[poker.variant] || 5;
        return { key: `deal:${size}`, words: `Throw ${size} dice behind your hand and tap them`,
                 draw: () => handPad(size, [], "Send my hand", (hand) => ({ cmd: "poker_hand", values: hand })) };
      }
      if (poker.phase === "draw" && state.your_turn && me.kept == null) {
        return { key: `keep:${dice.join("")}`, words: "The draw: tap the dice you keep (2 or more)",
                 draw: () => keepPad(dice) };
      }
      if (poker.phase === "draw" && state.your_turn && me.kept != null && poker.open === false) {
        return { key: `redraw:${me.kept.join("")}`,
                 words: `Throw the others again behind your hand; tap the ${5 - me.kept.length} new dice`,
                 draw: () => handPad(5, me.kept, "Send my new hand", (hand) => ({ cmd: "poker_hand", values: hand })) };
      }
    }
    if (!state.your_turn) return null;
    if (pending.type === "spend") {
      return { key: "spend", words: "Your Luck Point: what does it buy?",
               draw: () => show(null, ...LUCK.map(([use, text]) =>
                 button(text, { cmd: "spend_luck", use }, text.toLowerCase()))) };
    }
    if (pending.type === "action" && pending.player === mine) {
      return { key: "action", words: "Before you throw: spend a Luck Point for a bonus die?",
               draw: () => show(null,
                 button("Spend a Luck Point: a bonus die", { cmd: "spend_luck", use: "bonus" }, "a Luck Point for a bonus die")) };
    }
    return null;
  }

  // what the room's sounds follow: a concealed poker hand shown at its reveal, Strain taken
  function tally(state) {
    let shown = 0, hits = 0;
    for (const player of state.players || []) hits += Number(player.strain || 0);
    for (const seat of (state.poker && state.poker.seats) || []) if (Array.isArray(seat.dice) && seat.dice.length) shown++;
    return { shown, hits };
  }

  // while a poker game is on, the pages lay the table out for the gamblers (screen.css)
  const scene = (state) => (state.poker ? "poker" : "");

  return { seats, phase, final, decision, tally, scene };
});

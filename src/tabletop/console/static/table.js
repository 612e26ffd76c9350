// Draws a table's snapshot (tabletop.console.feed) into the page, and follows a live stream of them.
// Shared by the room view and the game master's view: the same drawing, different data.
"use strict";

const TableView = (() => {
  const SUITS = { S: ["♠", "spades", false], H: ["♥", "hearts", true],
                  D: ["♦", "diamonds", true], C: ["♣", "clubs", false] };
  const RANKS = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      // through the CSSOM: the Content-Security-Policy refuses style attributes
      else if (key === "style") node.style.cssText = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  // One slot: a card's face, a card's back, or an empty place.
  function card(slot) {
    if (!slot || slot.state === "empty" || (slot.card === null && slot.state !== "face_down")) {
      return el("div", { class: "card empty", role: "img", "aria-label": "empty slot" });
    }
    if (slot.state === "face_down" && !slot.card) {
      return el("div", { class: "card back", role: "img", "aria-label": "face-down card" });
    }
    const name = String(slot.card);
    const suit = SUITS[name.slice(-1)];
    const rank = name.slice(0, -1);
    const down = slot.state === "face_down";  // the referee sees it; the players do not
    if (!suit) {
      return el("div", { class: "card face" + (down ? " known-down" : ""), role: "img",
                         "aria-label": name, "data-card": name }, el("span", { text: name }));
    }
    const words = `${RANKS[rank] || rank} of ${suit[1]}` + (down ? " (face-down)" : "");
    return el("div", { class: "card face" + (suit[2] ? " red" : "") + (down ? " known-down" : ""),
                       role: "img", "aria-label": words, "data-card": name },
              el("span", { class: "rank", text: rank === "T" ? "10" : rank }),
              el("span", { class: "suit", text: suit[0] }));
  }

  // A text of the game's words with every card code ("8S", "TD", "QH") drawn as a small card
  // ("8 ♠"), as the seats draw them: one way of writing a card on the whole page.
  const CARD_CODE = /\b(10|[2-9TJQKA])([SHDC])\b/g;
  function withCards(text, game) {
    const node = el("span", {});
    if (game !== "sixshooter") { node.textContent = text; return node; }
    let at = 0;
    for (const match of String(text).matchAll(CARD_CODE)) {
      node.append(document.createTextNode(text.slice(at, match.index)));
      const rank = match[1] === "T" ? "10" : match[1];
      const suit = SUITS[match[2]];
      node.append(el("span", { class: "inline-card" + (suit[2] ? " red" : ""), "data-card": match[0], role: "img",
                               "aria-label": `${RANKS[match[1]] || rank} of ${suit[1]}` },
                     el("span", { "aria-hidden": "true", text: `${rank}${suit[0]}` })));
      at = match.index + match[0].length;
    }
    node.append(document.createTextNode(String(text).slice(at)));
    return node;
  }

  // Marks the seats the game waits for: a visible "to act" tag and a border, not colour alone.
  function markTurn(who) {
    const waiting = new Set(who || []);
    for (const box of document.querySelectorAll("#seats .seat[data-name], #seats .gambler[data-name]")) {
      const turn = waiting.has(box.dataset.name);
      box.classList.toggle("turn", turn);
      let tag = box.querySelector(".turn-tag");
      if (turn && !tag) {
        tag = el("span", { class: "turn-tag", text: "▶ to act" });
        box.querySelector("h3, h4").prepend(tag);
      } else if (!turn && tag) tag.remove();
    }
  }

  function leds(frame, seat) {
    if (!frame || !Array.isArray(frame.seats) || !Array.isArray(frame.seats[seat])) return null;
    const lights = frame.seats[seat];
    const lit = lights.filter((state) => state !== "off").length;
    const box = el("div", { class: "leds", role: "img",
                            "aria-label": `${frame.meaning || "LEDs"}: ${lit} of ${lights.length} lit` },
                   el("span", { class: "leds-label", text: `LEDs (${frame.meaning || "lit"})` }));
    for (const state of lights) box.append(el("span", { class: `led ${state}` }));
    // The count in words too: a lit LED is not told from an unlit one by colour alone.
    box.append(el("span", { class: "leds-count", "aria-hidden": "true", text: `${lit} of ${lights.length}` }));
    return box;
  }

  // Games with seats of slots (Six Shooter): each seat with its cards.
  function slotSeats(snapshot, container) {
    const state = snapshot.state || {};
    (state.players || []).forEach((player, seat) => {
      const facts = [];
      if (player.strikes !== undefined) facts.push(`Strikes ${player.strikes}`);
      if (Array.isArray(player.lucky)) facts.push(`Lucky ${player.lucky.join(", ") || "—"}`);
      if (player.status && player.status !== "active") facts.push(player.status);
      const slots = el("ol", { class: "slots", "aria-label": `${player.name}'s slots` });
      (player.slots || []).forEach((slot, index) => {
        slots.append(el("li", { class: "slot", "data-slot": index + 1,
                                "aria-label": `slot ${index + 1}` }, card(slot)));
      });
      const title = el("h3", {}, el("span", { text: player.name }),
                       el("span", { class: "who", text: [player.descriptor, player.archetype]
                                                          .filter(Boolean).join(" ") }));
      container.append(el("article", { class: "seat", "data-seat": seat, "data-name": player.name },
                          title, el("p", { class: "facts", text: facts.join(" · ") }),
                          leds(snapshot.leds, seat), slots));
    });
  }

  // Any other game: its view as it comes, readable rather than pretty.
  function generic(snapshot, container) {
    if (!snapshot.state) return;
    container.append(el("pre", { class: "generic", text: JSON.stringify(snapshot.state, null, 2) }));
  }

  // A throw's dice as faces people can read across a room; sixes marked where they count.
  function diceFaces(values, sixesCount) {
    const box = el("span", { class: "dice", role: "img",
                             "aria-label": values.length ? `dice ${values.join(", ")}` : "no dice" });
    for (const value of values) {
      box.append(el("span", { class: "die" + (sixesCount && value === 6 ? " six" : ""),
                              text: String(value) }));
    }
    return box;
  }

  // A count out of a most, as lit dots (Luck Points of 3, contest wins of 3).
  function dots(label, count, most) {
    const box = el("span", { class: "dots", role: "img", "aria-label": `${label} ${count} of ${most}` },
                   el("span", { class: "dots-label", text: label }));
    for (let i = 0; i < most; i++) box.append(el("span", { class: "dot" + (i < count ? " lit" : "") }));
    return box;
  }

  function seatBox(seat, name, who, ...parts) {
    const title = el("h3", {}, el("span", { text: name }), who ? el("span", { class: "who", text: who }) : null);
    return el("article", { class: "seat", "data-seat": seat, "data-name": name }, title, ...parts);
  }

  // OS-SIX: each character's Luck and Strain, the last roll, and the duel when one is on.
  function ossixSeats(snapshot, container) {
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

  const POKER_VARIANTS = { draw: "five-dice draw", hold_em: "Hold 'Em", lucky_seven: "Lucky Seven" };
  const COMMUNITY = ["the flop", "the turn", "the river"];
  const money = (amount) => `$${Number(amount || 0)}`;

  // OS-SIX's dice poker, all of it public ("every die is thrown in the open"): the pot, the
  // community dice (Hold 'Em), and each gambler's money, bets, dice and hand; a gambler who is
  // no character of the game is the game master's (an NPC at the table).
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

  // The phase, round or adventure the game is in, in words (from its public state only).
  const SHOWDOWN_PHASES = {
    load: "load bullets", stare_down: "stare down", race: "draw: the race to the defender's cards",
    defender_chooses: "the defender reveals a bullet", shoot: "shoot",
    reply: "the defender may shoot back", discard: "discard before the next round",
  };
  const OSSIX_DUEL_STEPS = (next) => (next || []).map((step) => step.replace(/_/g, " ")).join(" or ");
  function phaseWords(game, state) {
    if (!state) return "";
    const parts = [];
    if (game === "sixshooter") {
      const adventure = state.adventure ? `Adventure ${state.adventure}` : "";
      if (state.phase === "setup") parts.push(`${adventure}: setting up, each player turns one card face-up`);
      else if (state.phase === "play") parts.push(adventure);
      else if (state.phase === "between_adventures") parts.push(`Between adventures (adventure ${state.adventure} is over)`);
      else if (state.phase === "finished") parts.push("The campaign is over");
      const contest = state.contest;
      if (contest) parts.push(`a contest: ${(contest.players || []).join(" against ")}, ` +
                              `${contest.exchanges} ${contest.exchanges === 1 ? "exchange" : "exchanges"} so far`);
    } else if (game === "ossix") {
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
                   (duel.next && duel.next.length ? `, next ${OSSIX_DUEL_STEPS(duel.next)}`
                     : duel.rolled ? `, rolling ${duel.rolled.replace(/_/g, " ")}` : ""));
      }
      if (state.phase === "finished") parts.push("The game is over");
    } else if (game === "steamfunkateers") {
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
    } else if (game === "showdown") {
      if (state.phase === "finished") parts.push("The shootout is over");
      else if (state.round) {
        // "If the score is tied, then play an additional round, or rounds" (the seed).
        const rounds = state.rounds || 3;
        const which = state.round > rounds ? `Round ${state.round}, a tie-break round`
                                           : `Round ${state.round} of ${rounds}`;
        parts.push(which + (SHOWDOWN_PHASES[state.phase] ? `: ${SHOWDOWN_PHASES[state.phase]}` : ""));
      }
    }
    const words = parts.filter(Boolean).join(" · ");
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  // Whose pool it is, by name (the game master's as such), then what it rolls ("Athletics 4").
  function poolWho(pool) {
    const who = pool.who === "GM" ? "Game master" : pool.who;
    const label = pool.label ? ` (${pool.label.replace(/^GM /, "")})` : "";
    return el("span", { class: "pool-who" }, el("strong", { class: "pool-name", text: who }),
              el("span", { class: "pool-label", text: `${label}: ` }));
  }

  // Steamfunkateers: Vigor and contest wins per player, and the pools of the roll on the table.
  function steamSeats(snapshot, container) {
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

  // A signed modifier as people write it: +1, −2, 0.
  function signed(value) {
    const n = Number(value || 0);
    return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
  }

  // A Showdown bullet whose card is known (revealed, or the viewer's own face-down one): its
  // title, then speed and accuracy, never the deck's id, which the title says in words.
  function bulletCard(bullet) {
    const down = bullet.state === "face_down";
    const words = `${bullet.title || bullet.card}, speed ${signed(bullet.speed)}, accuracy ` +
                  `${signed(bullet.accuracy)}` + (down ? " (face-down)" : "");
    return el("div", { class: "card face bullet" + (down ? " known-down" : ""), role: "img",
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

  // Six-Gun Showdown as a scoreboard: each gunslinger's big score, six bullets large enough to
  // read across the room (backs until revealed), speed and accuracy while a round is in play,
  // and the last race's margin between them.
  function showdownSeats(snapshot, container) {
    const state = snapshot.state || {};
    const board = container;
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
      board.append(box);
    });
    const players = state.players || [];
    const race = lastRace(snapshot.events);
    let lead = "";
    if (players.length === 2) {
      const [a, b] = players;
      const gap = Number(a.points || 0) - Number(b.points || 0);
      lead = gap === 0 ? "level" : `${gap > 0 ? a.name : b.name} leads by ${Math.abs(gap)}`;
    }
    const middle = el("article", { class: "scene race-box", "aria-label": "the race" },
                      el("h3", {}, el("span", { text: "The race" }),
                         lead ? el("span", { class: "who lead", text: lead }) : null),
                      el("p", { class: "race", text: race || "No race yet this game." }));
    container.append(middle);
  }

  const RENDERERS = { sixshooter: slotSeats, ossix: ossixSeats, steamfunkateers: steamSeats,
                      showdown: showdownSeats };

  function status(snapshot, streamUp) {
    const node = document.getElementById("connection");
    let text = "Table online", online = true;
    if (!streamUp) { text = "Console unreachable — reconnecting…"; online = false; }
    else if (!snapshot.broker && snapshot.refused && /speaks TLS/.test(snapshot.refused)) {
      text = `Table offline: the console's broker URL is wrong: ${snapshot.refused}`;
      online = false;
    }
    else if (!snapshot.broker && snapshot.refused) {
      text = `Table offline: the broker refused the console's login (${snapshot.refused}); ` +
             "the room view needs a broker user with the role viewer";
      online = false;
    }
    else if (!snapshot.broker) { text = "Table offline: no connection to the broker"; online = false; }
    else if (!snapshot.online) { text = "Table offline: the rules daemon is not running"; online = false; }
    node.textContent = text;
    node.className = "status " + (online ? "online" : "offline");
    document.body.dataset.online = online ? "yes" : "no";
  }

  // An alert's slot is marked on the seats as drawn, so a new alert redraws no card.
  function markAlerts(alerts) {
    for (const slot of document.querySelectorAll("#seats .slot")) {
      const seat = Number(slot.closest(".seat").dataset.seat);
      const number = Number(slot.dataset.slot);
      const alerted = alerts.some((a) => a.seat === seat && a.slot === number);
      slot.classList.toggle("alerted", alerted);
      slot.setAttribute("aria-label", `slot ${number}` + (alerted ? " (alert)" : ""));
    }
  }

  // What each part of the page was last drawn from: a part whose data did not change is not
  // drawn again (fifty pages on one screen-less machine, or one old tablet, keep up).
  const drawn = {};
  function changed(part, ...data) {
    const text = JSON.stringify(data);
    if (drawn[part] === text) return false;
    drawn[part] = text;
    return true;
  }

  // How long ago the last throw was read: fresh (this moment's) or stale (an old roll), in
  // words and in style, counted from the server's clock so a page's own clock does not matter.
  const FRESH_SECONDS = 20;
  let diceClock = null;
  function diceAge(snapshot) {
    const line = document.getElementById("dice");
    const age = line.querySelector(".dice-age");
    if (!age || snapshot.dice_at === undefined || snapshot.dice_at === null) {
      line.classList.remove("stale", "fresh");
      return;
    }
    const shownAt = Date.now();
    const seconds = () => Math.max(0, snapshot.sent - snapshot.dice_at + (Date.now() - shownAt) / 1000);
    const paint = () => {
      const s = seconds();
      const fresh = s < FRESH_SECONDS;
      line.classList.toggle("fresh", fresh);
      line.classList.toggle("stale", !fresh);
      age.textContent = fresh ? " — just now" : ` — an old throw, ${s < 120 ? Math.round(s) + " s" : Math.round(s / 60) + " min"} ago`;
    };
    paint();
    if (diceClock) clearInterval(diceClock);
    diceClock = setInterval(paint, 5000);
  }

  // The events of the game being played only: a game's events are numbered from 1 (the
  // daemon's log), so a number that does not follow the one before starts another game.
  function currentGameEvents(events) {
    const list = Array.isArray(events) ? events : [];
    let start = 0;
    for (let i = 1; i < list.length; i++) {
      if (!(Number(list[i].number) > Number(list[i - 1].number))) start = i;
    }
    return list.slice(start);
  }

  // A throw the game took, as its events word it ("Kate throws 6 6 2 3 4 (deal)", "Ana rolls
  // 5"): dice entered by hand are a throw too, though no camera read them.
  const THROW = /^(.+?) (?:throws|rolls|rerolls the non-sixes:) ([1-6](?: [1-6])*)(?=$|[ :(,.;])/;
  function lastThrown(events) {
    for (let i = events.length - 1; i >= 0; i--) {
      const match = THROW.exec(String(events[i].text || ""));
      if (match) return { number: events[i].number, at: events[i].at, who: match[1],
                          values: match[2].split(" ").map(Number) };
    }
    return null;
  }
  const sameDice = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

  // A game with no phase yet (none started, or one waiting for the table) or one with none.
  const NO_GAME_PHASES = new Set([null, undefined, "no_game"]);

  // The prompt in the players' words: no command syntax ("(gm keep)", "(tabletop gm new
  // ROSTER)"), and while a game waits for the table, what it waits for, not "no game yet".
  function promptWords(prompt, state, alert) {
    const instructions = (alert && alert.instructions) || [];
    const noGame = !state || NO_GAME_PHASES.has(state.phase);
    if (noGame && (!prompt || prompt.waiting === "nothing" || !prompt.prompt)) {
      if (instructions.length) return `Waiting for the table: ${instructions[0]}`;
      return "No game yet: the game master starts one.";
    }
    const words = String((prompt && prompt.prompt) || "")
      .replace(/\s*\((?:tabletop )?gm [^)]*\)/g, "").trim();
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  // The end of a game: who won and the final standing, in words, for every game.
  const SIX_STATUS = { active: "still standing", removed: "out of this adventure",
                       retired: "retired from the campaign" };
  function finalStanding(game, state, events) {
    const players = state.players || [];
    let title = "The game is over", winner = "";
    let rows = [];
    if (game === "showdown") {
      title = "The shootout is over";
      winner = state.winner ? `${state.winner} wins` : "Nobody wins: a draw";
      rows = players.slice().sort((a, b) => Number(b.points || 0) - Number(a.points || 0))
        .map((p) => [p.name, `${p.points} ${p.points === 1 ? "point" : "points"}` +
                              (p.deck && p.deck.title ? ` (${p.deck.title})` : "")]);
    } else if (game === "sixshooter") {
      title = "The campaign is over";
      const standing = players.filter((p) => p.status !== "retired").map((p) => p.name);
      winner = standing.length ? `Still in the campaign: ${standing.join(", ")}`
                               : "Every operator has retired";
      if (state.adventure) winner += ` (after adventure ${state.adventure})`;
      rows = players.map((p) => [p.name, [SIX_STATUS[p.status] || p.status,
        `${p.strikes} ${p.strikes === 1 ? "Strike" : "Strikes"}`,
        `Lucky ${(p.lucky || []).join(", ") || "none"}`].join(" · ")]);
    } else if (game === "ossix") {
      const up = players.filter((p) => !p.incapacitated).map((p) => p.name);
      winner = up.length === players.length ? "Every character is still standing"
        : up.length ? `Still standing: ${up.join(", ")}` : "Every character is incapacitated";
      rows = players.map((p) => [p.name, [`Luck ${p.luck} of 3`, `Strain ${p.strain} of 12`,
        p.incapacitated ? "incapacitated" : ""].filter(Boolean).join(" · ")]);
    } else if (game === "steamfunkateers") {
      const contest = state.contest;
      const ended = events.slice().reverse().find((e) => / wins the contest /.test(String(e.text || "")));
      winner = contest && contest.winner ? `${contest.winner} wins the contest`
        : ended ? String(ended.text) : "";
      rows = players.slice().sort((a, b) => Number(b.contest_wins || 0) - Number(a.contest_wins || 0))
        .map((p) => [p.name, `Vigor ${p.vigor} · contest wins ${p.contest_wins}`]);
    } else {
      rows = players.map((p) => [p.name, ""]);
    }
    const list = el("ol", { class: "standing" });
    for (const [name, words] of rows) {
      list.append(el("li", { "data-name": name }, el("strong", { class: "standing-name", text: name }),
                     words ? el("span", { class: "standing-words", text: ` ${words}` }) : null));
    }
    return [el("h2", { id: "final-title", text: title }),
            winner ? el("p", { class: "winner-line", text: winner }) : null, list].filter(Boolean);
  }

  function render(snapshot) {
    document.getElementById("table-name").textContent = snapshot.table || "";
    const prompt = snapshot.prompt;
    const alert = snapshot.alert || {};
    const game = prompt && prompt.game;
    const state = snapshot.state;
    document.getElementById("prompt").textContent = promptWords(prompt, state, alert);
    const times = Array.isArray(snapshot.events_at) ? snapshot.events_at : [];
    const gameEvents = currentGameEvents((snapshot.events || []).map((event, i, all) =>
      ({ ...event, at: times.length === all.length ? times[i] : undefined })));
    snapshot = { ...snapshot, events: gameEvents };
    const over = Boolean(state && state.phase === "finished");
    document.body.dataset.game = game || "";
    document.body.dataset.over = over ? "yes" : "no";
    document.body.dataset.poker = state && state.poker ? "yes" : "no";
    const final = document.getElementById("final");
    if (final && changed("final", over, game, over ? state : null)) {
      final.hidden = !over;
      final.replaceChildren(...(over ? finalStanding(game, state, gameEvents) : []));
    }
    const phaseLine = document.getElementById("phase");
    if (phaseLine) {
      const words = phaseWords(game, snapshot.state);
      phaseLine.textContent = words;
      phaseLine.hidden = !words;
    }
    const seatsChanged = changed("seats", game, snapshot.state, snapshot.leds,
                                 game === "showdown" ? lastRace(gameEvents) : "");
    if (seatsChanged) {
      const seats = document.getElementById("seats");
      seats.replaceChildren();
      seats.dataset.game = game || "";
      (RENDERERS[game] || (snapshot.state && snapshot.state.players ? slotSeats : generic))(snapshot, seats);
    }
    if (changed("turn", prompt && prompt.who) || seatsChanged) markTurn(prompt && prompt.who);
    if (changed("alerts", alert) || seatsChanged) {
      const alertList = document.getElementById("alerts");
      alertList.replaceChildren();
      for (const item of alert.alerts || [])
        alertList.append(el("li", { class: "alert" }, withCards(item.message, game)));
      for (const item of alert.instructions || [])
        alertList.append(el("li", { class: "instruction" }, withCards(item, game)));
      document.getElementById("alerts-box").hidden = alertList.children.length === 0;
      markAlerts(alert.alerts || []);
    }
    const refused = document.getElementById("refused");
    if (refused && seatsChanged) {
      const items = ((snapshot.state && snapshot.state.rejected) || []).slice().reverse();
      refused.replaceChildren(...(items.length
        ? items.map((item) => el("li", { text: `#${item.line}: ${item.error}` }))
        : [el("li", { class: "none", text: "None refused." })]));
    }
    const picture = document.getElementById("dice-picture");
    if (picture && changed("picture", snapshot.picture)) {
      picture.hidden = !snapshot.picture;
      if (snapshot.picture) {
        picture.src = `${picturePath}?n=${snapshot.picture}`;
        picture.alt = "the last throw as the camera saw it: " + (snapshot.dice && snapshot.dice.event === "rolled"
          ? `dice read ${(snapshot.dice.values || []).join(", ")}` : "see the values beside it");
      }
    }
    if (!changed("below", game, snapshot.dice, snapshot.events)) return;
    const dice = snapshot.dice;
    const diceLine = document.getElementById("dice");
    // The last throw: the camera's read, or dice entered by hand since (a throw the game
    // took whose values are not the camera's last read).
    const thrown = lastThrown(gameEvents);
    // the camera's read is the last throw unless a throw the game took since differs from it
    // (each event carries when the console read it, `at`, as the read carries `dice_at`)
    const later = !dice || !thrown || typeof thrown.at !== "number" || typeof snapshot.dice_at !== "number"
      || thrown.at > snapshot.dice_at;
    const entered = Boolean(thrown) && later
      && !(dice && dice.event === "rolled" && sameDice(dice.values || [], thrown.values));
    if (picture) picture.classList.toggle("superseded", Boolean(entered));
    diceLine.dataset.source = entered ? "entered" : dice ? "camera" : "none";
    if (entered) {
      diceLine.replaceChildren(el("span", { text: `Entered by hand, ${thrown.who}: ` }),
                               diceFaces(thrown.values, false));
      diceLine.classList.remove("stale", "fresh");
    } else if (!dice) diceLine.textContent = "No dice thrown yet.";
    else if (dice.event === "rolled") diceLine.replaceChildren(el("span", { text: "Rolled: " }),
                                                               diceFaces(dice.values || [], false),
                                                               el("span", { class: "dice-age" }));
    else diceLine.replaceChildren(el("span", { text: `Dice: ${dice.event}` + (dice.reason ? ` (${dice.reason})` : "") }),
                                  el("span", { class: "dice-age" }));
    if (!entered) diceAge(snapshot);
    const events = document.getElementById("events");
    events.replaceChildren(...gameEvents.slice().reverse()
      .map((event) => el("li", { value: event.number },
                         el("span", { class: "event-number", text: `${event.number}.` }),
                         withCards(event.text, game))));
  }

  // Follows a stream of snapshots; EventSource reconnects by itself, and a stream closed
  // for good (the server gone for a while) is opened again. With `sessionPath` (the game
  // master's page) a lost stream asks whether the login is still live: when the console
  // restarted, the session expired or it was logged out in another tab, the page goes to the
  // login by itself rather than reconnecting for ever.
  let picturePath = "/dice.jpg";

  // A list that scrolls inside the page (the events, the refused commands) can be reached
  // and scrolled from a keyboard: focusable, and named by its section's heading.
  function focusableLists() {
    for (const list of document.querySelectorAll("ol.events, ul.events")) {
      list.tabIndex = 0;
      const section = list.closest("section[aria-labelledby]");
      if (!list.hasAttribute("aria-labelledby") && !list.hasAttribute("aria-label") && section)
        list.setAttribute("aria-labelledby", section.getAttribute("aria-labelledby"));
    }
  }

  function follow(path, target, sessionPath, endedPath) {
    picturePath = path.replace(/events$/, "dice.jpg");
    focusableLists();
    let last = { broker: false, online: false };
    let source = null;
    function open() {
      source = new EventSource(path);
      source.addEventListener("snapshot", (message) => {
        last = JSON.parse(message.data);
        window.tableSnapshot = last;
        render(last);
        status(last, true);
        target.dataset.version = last.version;
        document.dispatchEvent(new CustomEvent("table-rendered", { detail: last }));
      });
      source.onerror = async () => {
        status(last, false);
        const current = source;
        if (sessionPath && await loggedOut(sessionPath)) {
          current.close();
          sessionEnded(endedPath);
          return;
        }
        if (current.readyState === EventSource.CLOSED) setTimeout(open, 1000);
      };
    }
    open();
    return { snapshot: () => last };
  }

  // True only when the console answers that this browser's login is gone (401); an
  // unreachable console is not an answer: the page keeps reconnecting.
  async function loggedOut(sessionPath) {
    try {
      const answer = await fetch(sessionPath, { cache: "no-store", credentials: "same-origin" });
      return answer.status === 401;
    } catch (unreachable) {
      return false;
    }
  }

  function sessionEnded(endedPath) {
    window.location.replace(endedPath || "/gm?ended=1");
  }

  // Shrinks the page (the root font size, through --fit) a step at a time while `overflowing`
  // says it does not fit, never below `floor`; returns the scale it took.
  function fit(overflowing, floor) {
    const root = document.documentElement;
    let scale = 1;
    root.style.setProperty("--fit", "1");
    while (overflowing() && scale > floor + 0.001) {
      scale = Math.max(floor, Math.round((scale - 0.025) * 1000) / 1000);
      root.style.setProperty("--fit", String(scale));
    }
    document.body.dataset.fit = String(scale);
    return scale;
  }

  return { follow, render, el, sessionEnded, fit };
})();

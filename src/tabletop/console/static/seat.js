// A seat's own screen: follows /seat/N/events (the room's picture with this seat's view), and
// sends this seat's player's own decisions to /seat/N/act, each answering the moment the
// screen showed (the seat view's `version`): the rules daemon refuses one the table has moved
// past, one out of turn, or one for another player (tabletop.daemon.seat_commands).
"use strict";
(() => {
  const seat = document.body.dataset.seatNumber;
  TableView.follow(`/seat/${seat}/events`, document.body, `/seat/${seat}/session`,
                   `/seat/${seat}?ended=1`);

  const box = document.getElementById("act");
  const what = document.getElementById("act-what");
  const diceBox = document.getElementById("act-dice");
  const buttons = document.getElementById("act-buttons");
  const result = document.getElementById("act-result");
  const DEAL = { draw: 5, hold_em: 2, lucky_seven: 7 };
  const LUCK = [["bonus", "A bonus die"], ["reroll", "Re-roll the failure"],
                ["upgrade", "Upgrade to a full success"], ["max_damage", "Maximum damage"],
                ["reduce_damage", "Less damage taken"]];
  let shown = "";  // what the panel shows: drawn anew only when it changes
  let version = null;
  let sending = false;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  async function send(command, done) {
    if (sending) return;
    sending = true;
    result.className = "result pending";
    result.textContent = "Sending…";
    for (const button of box.querySelectorAll("button")) button.disabled = true;
    try {
      const response = await fetch(`/seat/${seat}/act`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...command, answers: version }),
      });
      if (response.status === 401) { window.location.assign(`/seat/${seat}?ended=1`); return; }
      const body = await response.json();
      result.className = body.ok ? "result accepted" : "result refusal";
      result.textContent = body.ok ? `Sent: ${done}.` : `Not done: ${body.error}`;
    } catch (failed) {
      result.className = "result refusal";
      result.textContent = "Not sent: the console is unreachable.";
    } finally {
      sending = false;
      for (const button of box.querySelectorAll("button")) button.disabled = false;
    }
  }

  function button(text, command, done, extra) {
    const node = el("button", { type: "button", ...(extra || {}), text });
    node.addEventListener("click", () => send(typeof command === "function" ? command() : command, done));
    return node;
  }

  // A pad of 1-6 that builds a hand of `size` dice, `fixed` first (the dice kept at a draw).
  function handPad(size, fixed, label, makeCommand) {
    let hand = [...fixed];
    const line = el("p", { class: "hand", "aria-live": "polite" });
    const sendButton = el("button", { type: "button", text: label });
    const paint = () => {
      line.textContent = hand.length ? hand.join(" ") : "Tap your dice, 1 to 6";
      sendButton.disabled = hand.length !== size;
    };
    const faces = [1, 2, 3, 4, 5, 6].map((value) => {
      const face = el("button", { type: "button", text: String(value), "aria-label": `a ${value}` });
      face.addEventListener("click", () => { if (hand.length < size) hand.push(value); paint(); });
      return face;
    });
    const undo = el("button", { type: "button", text: "⌫", "aria-label": "take the last die off" });
    undo.addEventListener("click", () => { if (hand.length > fixed.length) hand.pop(); paint(); });
    sendButton.addEventListener("click", () => send(makeCommand(hand), `your hand ${hand.join(" ")}`));
    diceBox.replaceChildren(line, ...faces, undo);
    diceBox.hidden = false;
    buttons.replaceChildren(sendButton);
    paint();
  }

  // The dice of a hand to keep at the draw: tap each kept die.
  function keepPad(dice) {
    const kept = new Set();
    const faces = dice.map((value, index) => {
      const face = el("button", { type: "button", text: String(value), "aria-pressed": "false",
                                  "aria-label": `keep the ${value}` });
      face.addEventListener("click", () => {
        if (kept.has(index)) kept.delete(index); else kept.add(index);
        face.setAttribute("aria-pressed", String(kept.has(index)));
      });
      return face;
    });
    diceBox.replaceChildren(...faces);
    diceBox.hidden = false;
    const keep = () => ({ cmd: "draw", keep: [...kept].sort().map((i) => dice[i]) });
    buttons.replaceChildren(
      button("Keep the dice tapped", keep, "the dice you keep"),
      button("Stand pat (keep all)", { cmd: "draw", keep: [...dice] }, "you stand pat"));
  }

  function betButtons(poker, me) {
    const toCall = Number(poker.to_call || 0);
    const least = Math.max(1, Number(poker.min_raise || 1));
    const amount = el("input", { id: "act-amount", type: "number", inputmode: "numeric",
                                 min: String(least), max: String(me.money), value: String(least) });
    const raise = toCall > 0 ? "raise" : "bet";
    const wanted = () => ({ cmd: "bet", action: raise, amount: Math.round(Number(amount.value)) });
    const list = [
      toCall > 0 ? button(`Call $${toCall}`, { cmd: "bet", action: "call" }, `you call $${toCall}`)
                 : button("Check", { cmd: "bet", action: "check" }, "you check"),
      button(toCall > 0 ? "Raise" : "Bet", wanted, toCall > 0 ? "your raise" : "your bet"),
      button("Fold", { cmd: "bet", action: "fold" }, "you fold"),
      button("All in", { cmd: "bet", action: "all_in" }, "you go all in"),
    ];
    diceBox.replaceChildren(el("div", { class: "act-amount" },
      el("label", { for: "act-amount", text: toCall > 0 ? "Raise by ($)" : "Bet ($)" }), amount));
    diceBox.hidden = false;
    buttons.replaceChildren(...list);
  }

  // What this seat's player decides now, from the seat's own view and the prompt.
  function decision(state, prompt) {
    const mine = state.seat;
    const pending = (prompt && prompt.pending) || {};
    const game = prompt && prompt.game;
    const poker = state.poker;
    if (game === "ossix" && poker) {
      const me = (poker.seats || []).find((s) => s.name === mine);
      if (me && me.playing !== false && !me.folded) {
        if (poker.phase === "betting" && poker.to_act === mine) {
          return { key: `bet:${poker.to_call}:${poker.min_raise}:${me.money}`,
                   words: poker.to_call > 0 ? `$${poker.to_call} to call` : "Your bet",
                   draw: () => betButtons(poker, me) };
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
    }
    if (!state.your_turn) return null;
    if (game === "ossix" && pending.type === "spend") {
      return { key: "spend", words: "Your Luck Point: what does it buy?",
               draw: () => buttons.replaceChildren(...LUCK.map(([use, text]) =>
                 button(text, { cmd: "spend_luck", use }, text.toLowerCase()))) };
    }
    if (game === "ossix" && pending.type === "action" && pending.player === mine) {
      return { key: "action", words: "Before you throw: spend a Luck Point for a bonus die?",
               draw: () => buttons.replaceChildren(
                 button("Spend a Luck Point: a bonus die", { cmd: "spend_luck", use: "bonus" }, "a Luck Point for a bonus die")) };
    }
    if (game === "sixshooter" && pending.type === "lucky") {
      return { key: "lucky", words: "Your Lucky Number came up: draw a replacement card?",
               draw: () => buttons.replaceChildren(
                 button("Yes, draw one", { cmd: "lucky", replace: true }, "yes"),
                 button("No", { cmd: "lucky", replace: false }, "no")) };
    }
    if (game === "steamfunkateers") {
      return { key: "fold", words: "Fold, spending a point of Vigor?",
               draw: () => buttons.replaceChildren(button("Fold (a point of Vigor)", { cmd: "fold" }, "you fold")) };
    }
    if (game === "showdown" && pending.type === "reroll") {
      return { key: "reroll", words: "Your Re-roll card: throw the die again, or let it stand",
               draw: () => buttons.replaceChildren(button("Let it stand", { cmd: "keep" }, "the die stands")) };
    }
    return null;
  }

  document.addEventListener("table-rendered", (event) => {
    const snapshot = event.detail;
    const state = snapshot.state || {};
    document.getElementById("seat-name").textContent = state.seat ? `(${state.seat})` : "";
    document.getElementById("your-turn").hidden = !state.your_turn;
    document.getElementById("no-gm").hidden = snapshot.game_master !== false;
    // the seat's own place on the table, marked among the others
    for (const place of document.querySelectorAll("#seats .seat[data-name]")) {
      place.classList.toggle("mine", place.dataset.name === state.seat);
    }
    const found = snapshot.game_master === false || !state.seat ? null : decision(state, snapshot.prompt);
    const key = found ? `${found.key}@${state.version}` : "";
    version = state.version === undefined ? null : state.version;
    if (key === shown) return;
    shown = key;
    box.hidden = !found;
    if (!found) return;
    what.textContent = found.words;
    diceBox.hidden = true;
    diceBox.replaceChildren();
    found.draw();  // the last answer stays: "Sent: you call $2." while the draw comes
  });
})();

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

  // What a game's screen draws its decisions with (its `decision(state, prompt, pads)`):
  // `show(above, ...buttons)` puts the buttons in the panel, and `above` (an amount to bet,
  // or null) over them; `button(text, command, done)` sends `command` (an object, or a
  // function that makes one) and says "Sent: done."; the dice pads build a hand.
  const pads = {
    el, button, handPad, keepPad,
    show(above, ...list) {
      if (above) {
        diceBox.replaceChildren(above);
        diceBox.hidden = false;
      }
      buttons.replaceChildren(...list);
    },
  };

  // What this seat's player decides now, from the seat's own view and the prompt, as the
  // game's screen says it (null: nothing).
  function decision(state, prompt) {
    return TableView.said(prompt && prompt.game, "decision", state, prompt, pads) || null;
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

// The game master corrects a throw's reading on its photo (tabletop.console.corrections): each die
// the camera boxed is a button at its place; a tap opens a choice of 1-6 (or "Cocked", or "No
// die here"); a tap elsewhere on the photo adds a die the camera missed. "Send corrected throw"
// posts the dice, by their centres in the photo's pixels, to /gm/dice/correction; a throw with
// a cocked die is kept for the table's enrolment and sent to no game.
"use strict";
(() => {
  const el = TableView.el;
  const section = document.getElementById("correction");
  const frame = document.getElementById("correction-photo");
  const image = document.getElementById("correction-image");
  const choice = document.getElementById("correction-choice");
  const choiceTitle = document.getElementById("correction-choice-title");
  const summary = document.getElementById("correction-dice");
  const result = document.getElementById("correction-result");
  const send = document.getElementById("correction-send");
  let photo = null;  // the snapshot's photo: id, width, height, event, dice
  let dice = [];     // {cx, cy, box, read, value, removed, added}
  let open = null;   // the die whose value is being chosen

  const say = (className, text) => { result.className = className; result.textContent = text; };
  const pct = (value, whole) => `${(100 * value) / whole}%`;

  function load(next) {
    photo = next;
    dice = next.dice.map((die) => ({
      cx: (die.box[0] + die.box[2]) / 2, cy: (die.box[1] + die.box[3]) / 2, box: die.box,
      read: die.value, value: die.value, removed: false, added: false }));
    open = null;
    image.src = `/gm/dice/photo.jpg?id=${encodeURIComponent(next.id)}`;
    say("result", "");
    draw();
  }

  function label(die) {
    if (die.removed) return "no die";
    return die.value === null ? "?" : String(die.value);
  }

  function draw() {
    frame.querySelectorAll(".correction-die").forEach((node) => node.remove());
    dice.forEach((die, index) => {
      const side = die.box ? Math.max(die.box[2] - die.box[0], die.box[3] - die.box[1]) : photo.width / 20;
      const changed = die.added || die.removed || die.value !== die.read;
      const button = el("button", {
        type: "button", class: "correction-die" + (changed ? " corrected" : "") + (die.removed ? " removed" : "") +
              (die.value === "cocked" ? " cocked" : ""),
        "data-index": index, text: label(die),
        "aria-label": `die ${index + 1}: ${die.removed ? "no die here" : die.value === null ? "not read" : die.value === "cocked" ? "cocked" : `shows ${die.value}`}` +
          (changed ? " (corrected)" : "") + ": tap to change",
        style: `left:${pct(die.cx, photo.width)};top:${pct(die.cy, photo.height)};` +
               `width:max(44px,${pct(side, photo.width)});height:max(44px,${pct(side, photo.width)})` });
      button.addEventListener("click", (clicked) => { clicked.stopPropagation(); ask(die); });
      frame.append(button);
    });
    const kept = dice.filter((die) => !die.removed);
    summary.replaceChildren(el("span", { text: kept.length ? "The throw: " : "No die marked yet." }),
      ...kept.map((die) => el("span", { class: "die", text: label(die) })));
  }

  function ask(die) {
    open = die;
    const where = `(${Math.round(die.cx)}, ${Math.round(die.cy)})`;
    choiceTitle.textContent = die.added ? `The missed die at ${where} shows:` : `The die at ${where} shows:`;
    const buttons = [1, 2, 3, 4, 5, 6].map((value) => {
      const button = el("button", { type: "button", class: "choice-value", text: String(value),
                                    "aria-pressed": !die.removed && die.value === value ? "true" : "false" });
      button.addEventListener("click", () => { die.value = value; die.removed = false; close(); });
      return button;
    });
    const cocked = el("button", { type: "button", class: "choice-cocked", text: "Cocked",
                                  "aria-pressed": !die.removed && die.value === "cocked" ? "true" : "false" });
    cocked.addEventListener("click", () => { die.value = "cocked"; die.removed = false; close(); });
    const nothing = el("button", { type: "button", class: "choice-none",
                                   text: die.added ? "Remove this die" : "No die here" });
    nothing.addEventListener("click", () => {
      if (die.added) dice.splice(dice.indexOf(die), 1); else die.removed = true;
      close();
    });
    const cancel = el("button", { type: "button", class: "choice-cancel", text: "Cancel" });
    cancel.addEventListener("click", () => {
      if (die.added && die.value === null) dice.splice(dice.indexOf(die), 1);
      close();
    });
    choice.querySelector(".choice-buttons").replaceChildren(...buttons, cocked, nothing, cancel);
    choice.hidden = false;
    draw();
    buttons[0].focus();
  }

  function close() {
    open = null;
    choice.hidden = true;
    draw();
  }

  // A tap on the photo away from every box: a die the camera missed, at that centre.
  frame.addEventListener("click", (clicked) => {
    if (!photo || clicked.target !== image) return;
    const shown = image.getBoundingClientRect();
    const cx = ((clicked.clientX - shown.left) / shown.width) * photo.width;
    const cy = ((clicked.clientY - shown.top) / shown.height) * photo.height;
    if (open && open.added && open.value === null) dice.splice(dice.indexOf(open), 1);
    const die = { cx, cy, box: null, read: null, value: null, removed: false, added: true };
    dice.push(die);
    ask(die);
  });

  send.addEventListener("click", async () => {
    if (!photo) return;
    const kept = dice.filter((die) => !die.removed);
    if (!kept.length) { say("result refusal", "Mark at least one die: a throw has dice."); return; }
    if (kept.some((die) => die.value === null)) {
      say("result refusal", "Give every die a value (tap each \"?\") or mark it \"No die here\".");
      return;
    }
    say("result pending", "Sending…");
    try {
      const response = await fetch("/gm/dice/correction", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ photo: photo.id, dice: kept.map((die) => ({
          cx: Math.round(die.cx * 10) / 10, cy: Math.round(die.cy * 10) / 10, value: die.value })) }) });
      if (response.status === 401) { TableView.sessionEnded(); return; }
      const body = await response.json();
      const saved = body.saved ? ` Kept for the table's enrolment (${body.saved.dice} dice).` : "";
      if (response.ok && body.ok && body.sent === false) {
        say("result accepted", "Nothing sent to the game: a cocked die has no value. Have the " +
            "throw made again, or enter it by hand." + saved);
      } else if (response.ok && body.ok) {
        say("result accepted", (body.reply.waiting ? `Done: waiting for ${body.reply.waiting}.` : "Done.") + saved);
      } else {
        say("result refusal", "Refused: " + (body.reply ? body.reply.error : body.error) + saved);
      }
    } catch (failed) {
      say("result refusal", "Not sent: the console is unreachable.");
    }
  });

  function shown(snapshot) {
    const next = snapshot.photo;
    section.hidden = !next;
    if (!next) { photo = null; return; }
    if (!photo || photo.id !== next.id) load(next);
  }
  document.addEventListener("table-rendered", (event) => shown(event.detail));
  // This script may run after the page's first snapshot came (deferred scripts wait for each
  // other's download, and the stream's messages are handled meanwhile): a photo retained
  // before the page opened would not show until the next throw.
  if (window.tableSnapshot) shown(window.tableSnapshot);
})();

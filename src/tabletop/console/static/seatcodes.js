// The game master's block for the seats' phones: a QR code beside each seat's code (the
// seat's join address with its code filled in, GET /gm/seats/N/qr.svg), taking the last
// command back (a seat's or the game master's own: POST /gm/undo), and ending every phone's
// join (POST /gm/seats/forget). The codes themselves are drawn by gm.js into #seat-codes.
"use strict";
(() => {
  const list = document.getElementById("seat-codes");
  if (!list) return;
  const section = list.closest("section") || list.parentElement;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  // A QR code for each code drawn: new codes, new pictures.
  function addCodes() {
    for (const item of list.querySelectorAll("li[data-seat]")) {
      const code = item.querySelector("code");
      const text = code ? code.textContent : "";
      if (item.dataset.qrFor === text) continue;
      item.dataset.qrFor = text;
      const seatNumber = item.dataset.seat;
      for (const old of item.querySelectorAll("img.seat-qr")) old.remove();
      item.append(el("img", {
        class: "seat-qr", width: "180", height: "180",
        src: `/gm/seats/${seatNumber}/qr.svg?code=${encodeURIComponent(text)}`,
        alt: `QR code: seat ${seatNumber}'s join address with its code; scan it with the player's phone`,
      }));
    }
  }
  new MutationObserver(addCodes).observe(list, { childList: true, subtree: true });
  addCodes();

  const result = el("p", { id: "seat-tools-result", class: "result", role: "status", "aria-live": "polite" });
  async function post(path, done, button) {
    result.className = "result pending";
    result.textContent = "Sending…";
    button.disabled = true;
    try {
      const response = await fetch(path, { method: "POST" });
      if (response.status === 401) { TableView.sessionEnded(); return; }
      const body = await response.json();
      result.className = body.ok ? "result accepted" : "result refusal";
      result.textContent = body.ok ? done(body) : body.error;
    } catch (failed) {
      result.className = "result refusal";
      result.textContent = "Not sent: the console is unreachable.";
    } finally {
      button.disabled = false;
    }
  }
  const undo = el("button", { type: "button", id: "undo-button", text: "Undo the last command" });
  undo.addEventListener("click", () => post("/gm/undo", () =>
    "Taken back: the game is as it was before the last command (see What happened).", undo));
  const forget = el("button", { type: "button", id: "forget-phones-button", text: "End every phone's join" });
  forget.addEventListener("click", () => post("/gm/seats/forget", (body) =>
    `${body.ended} phone${body.ended === 1 ? "" : "s"} ended: each needs a new code to join again.`, forget));
  section.append(el("div", { class: "seat-tools" },
    el("p", { class: "help", text: "Phones that joined stay joined when you log out while another " +
      "game master is logged in, and when the console restarts. A seat's decisions show under " +
      "What happened as \u201cSeat N's phone: \u2026\u201d; Undo takes the last command back, " +
      "whoever sent it." }),
    undo, forget, result));
})();

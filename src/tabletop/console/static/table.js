// Draws a table's snapshot (tabletop.console.feed) into the page, and follows a live stream of them.
// Shared by the room view, the game master's view, the seats' screens and the overlay: the same
// drawing, different data. What is particular to a game, its seats, its phase in words, its
// end, a seat's decisions, is drawn by the game's own screen (its package's screen.js, served
// as /games/NAME/screen.js after this file), registered here with `TableView.addGame`; nothing in
// this file knows which game is on the table.
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
  function withCards(text, cardCodes) {
    const node = el("span", {});
    if (!cardCodes) { node.textContent = text; return node; }
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
    for (const box of document.querySelectorAll("#seats [data-name]")) {
      const turn = waiting.has(box.dataset.name);
      box.classList.toggle("turn", turn);
      let tag = box.querySelector(".turn-tag");
      if (turn && !tag) {
        tag = el("span", { class: "turn-tag", text: "▶ to act" });
        const heading = box.querySelector("h3, h4");
        if (heading) heading.prepend(tag);
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


  // Each player's box: the name (and what the game says of them, `who`), the facts the game
  // lists, the seat's LEDs and its slots of cards, if the game has any. A game whose screen draws
  // no seats of its own is drawn so.
  function playerSeats(snapshot, container, { facts = () => [], who = () => "" } = {}) {
    const state = snapshot.state || {};
    (state.players || []).forEach((player, seat) => {
      const slots = el("ol", { class: "slots card-slots", "aria-label": `${player.name}'s slots` });
      (player.slots || []).forEach((slot, index) => {
        slots.append(el("li", { class: "slot", "data-slot": index + 1,
                                "aria-label": `slot ${index + 1}` }, card(slot)));
      });
      const title = el("h3", {}, el("span", { text: player.name }),
                       el("span", { class: "who", text: who(player) }));
      container.append(el("article", { class: "seat", "data-seat": seat, "data-name": player.name },
                          title, el("p", { class: "facts", text: facts(player).join(" · ") }),
                          leds(snapshot.leds, seat), player.slots ? slots : null));
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

  // A signed modifier as people write it: +1, −2, 0.
  function signed(value) {
    const n = Number(value || 0);
    return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
  }

  // What a game's screen draws with: the parts every game's seats are made of. A card of the
  // game's own deck (not a playing card) carries the class `game-card`: the pages size playing
  // cards alone (the overlay's small ones), and leave the game's own to its stylesheet.
  const kit = { el, card, leds, diceFaces, dots, seatBox, signed, playerSeats };

  // The games' screens, by name. `addGame(name, make)`: `make(kit)` returns the game's screen,
  // an object whose parts are all optional:
  //   seats(snapshot, container)   draws the seats (else each player's box: playerSeats)
  //   drawnFrom(snapshot)          what else the seats show besides the state and LEDs (the
  //                                seats are drawn again when it changes)
  //   phase(state)                 the phase, round or adventure, in words: a list of parts
  //   final(state, events)         the end: { title, winner, rows: [[name, words], ...] }
  //   cardCodes                    true: card codes in the game's texts ("8S") are drawn as cards
  //   decision(state, prompt, pads)  what a seat's player decides now (seat.js, its pads)
  //   tally(state)                 { shown, hits }: what the room's sounds follow (room.js)
  //   scene(state)                 a word for what the table holds now ("poker"), set on the
  //                                page's body (data-scene) for the game's stylesheet
  const screens = {};
  function addGame(name, make) {
    try {
      screens[name] = make(kit);
    } catch (failed) {
      console.error(`${name}'s screen did not start: the game is drawn as any game`, failed);
    }
  }
  const NO_SCREEN = {};
  function screen(game) {
    return screens[game] || NO_SCREEN;
  }
  // What the game's screen says of `part` (undefined where it has no such part, or where the
  // part failed: a game's bug draws that part as any game's, and the rest of the page goes on).
  function said(game, part, ...args) {
    const fn = screen(game)[part];
    if (typeof fn !== "function") return undefined;
    try {
      return fn(...args);
    } catch (failed) {
      console.error(`${game}'s screen failed at ${part}: drawn as any game's`, failed);
      return undefined;
    }
  }


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

  // The end of a game: who won and the final standing, in words, as the game says them.
  function finalStanding(game, state, events) {
    const players = state.players || [];
    const words = said(game, "final", state, events) || {};
    const title = words.title || "The game is over";
    const winner = words.winner || "";
    const rows = words.rows || players.map((p) => [p.name, ""]);
    const list = el("ol", { class: "standing" });
    for (const [name, words] of rows) {
      list.append(el("li", { "data-name": name }, el("strong", { class: "standing-name", text: name }),
                     words ? el("span", { class: "standing-words", text: ` ${words}` }) : null));
    }
    return [el("h2", { id: "final-title", text: title }),
            winner ? el("p", { class: "winner-line", text: winner }) : null, list].filter(Boolean);
  }

  // The phase, round or adventure the game is in, in words (from its public state only).
  function phaseWords(game, state) {
    const parts = state ? said(game, "phase", state) : null;
    if (!Array.isArray(parts)) return "";
    const words = parts.filter(Boolean).join(" · ");
    return words.charAt(0).toUpperCase() + words.slice(1);
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
    const drawing = screen(game);
    // what the table holds now, as the game names it ("poker"): its stylesheet lays the page
    // out for it (body[data-scene="poker"])
    document.body.dataset.scene = (state && said(game, "scene", state)) || "";
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
                                 said(game, "drawnFrom", snapshot) || "");
    if (seatsChanged) {
      const seats = document.getElementById("seats");
      seats.replaceChildren();
      seats.dataset.game = game || "";
      const fallback = snapshot.state && snapshot.state.players ? playerSeats : generic;
      try {
        (drawing.seats || fallback)(snapshot, seats);
      } catch (failed) {
        // a game's bug draws its seats as any game's, and the rest of the page goes on
        console.error(`${game}'s screen failed at seats: drawn as any game's`, failed);
        seats.replaceChildren();
        fallback(snapshot, seats);
      }
    }
    if (changed("turn", prompt && prompt.who) || seatsChanged) markTurn(prompt && prompt.who);
    if (changed("alerts", alert) || seatsChanged) {
      const alertList = document.getElementById("alerts");
      alertList.replaceChildren();
      for (const item of alert.alerts || [])
        alertList.append(el("li", { class: "alert" }, withCards(item.message, drawing.cardCodes)));
      for (const item of alert.instructions || [])
        alertList.append(el("li", { class: "instruction" }, withCards(item, drawing.cardCodes)));
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
                         withCards(event.text, drawing.cardCodes))));
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
    let leaving = false;
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
        if (leaving) return;
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
    // A page that logs itself out stops following first: the console ends its stream while
    // the log-out's answer is on its way, and that end is not a session that ran out.
    function leave() {
      leaving = true;
      if (source) source.close();
    }
    return { snapshot: () => last, leave };
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

  return { follow, render, el, sessionEnded, fit, addGame, screen, said };
})();
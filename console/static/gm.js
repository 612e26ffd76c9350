// The game master's view: the referee's snapshot, and the game's actions as forms.
"use strict";
(() => {
  const el = TableView.el;
  TableView.follow("/gm/events", document.body, "/gm/session");

  function input(verb, field) {
    const id = `${verb}-${field.name}`;
    const described = field.help ? `${id}-help` : null;
    let control;
    if (field.kind === "flag") {
      control = el("input", { id, name: field.name, type: "checkbox", "aria-describedby": described });
    } else if (field.kind === "choice") {
      control = el("select", { id, name: field.name, required: field.required, "aria-describedby": described },
                   field.required ? null : el("option", { value: "", text: "—" }),
                   ...field.choices.map((choice) => el("option", { value: choice, text: choice })));
    } else if (field.kind === "player") {
      // One of the game's players, picked from those in the game (filled in by fillPlayers),
      // and the words the verb takes besides a name ("all": everyone at once), last.
      control = el("select", { id, name: field.name, required: field.required, "data-kind": "player",
                               "data-extra": JSON.stringify(field.choices || []),
                               "aria-describedby": described },
                   el("option", { value: "", text: field.required ? "— pick a player —" : "—" }));
    } else if (field.kind === "names") {
      control = el("textarea", { id, name: field.name, rows: 4, required: field.required,
                                 "aria-describedby": described, placeholder: "Ana\nBo" });
      const saved = savedGroup(verb);
      if (saved && typeof saved.names === "string") control.value = saved.names;
    } else if (field.kind === "roster") {
      // The roster is written here or read from a file on this device: the console is never
      // given a file name on its own machine.
      control = el("textarea", { id, name: field.name, rows: 5, required: true,
                                 "aria-describedby": described, placeholder: "Ana\nBo" });
      const rows = field.players ? playerRows(verb, id, control, field.players) : null;
      const picker = el("input", { id: `${id}-file`, type: "file",
                                   accept: ".toml,.json,.txt,text/plain,application/json" });
      picker.addEventListener("change", async () => {
        const file = picker.files && picker.files[0];
        if (!file) return;
        if (file.size > 16000) { control.value = ""; control.placeholder = `${file.name} is too large for a roster`; return; }
        control.value = await file.text();
      });
      const label = el("label", { for: id, text: field.label });
      const help = field.help ? el("small", { id: described, text: field.help }) : null;
      picker.addEventListener("change", () => control.dispatchEvent(new Event("input")));
      return el("div", { class: "field roster" }, label, control, ...(rows || []),
                el("label", { for: `${id}-file`, text: "Read a file from this device" }), picker, help);
    } else if (field.kind === "repeat") {
      control = el("textarea", { id, name: field.name, rows: 2, "aria-describedby": described,
                                 placeholder: "one per line" });
    } else {
      control = el("input", { id, name: field.name, required: field.required,
                              inputmode: field.kind === "number" ? "numeric" : null,
                              placeholder: field.kind === "list" ? "separated by spaces" : null,
                              "aria-describedby": described });
    }
    const label = el("label", { for: id, text: field.label + (field.required ? "" : " (optional)") });
    const help = field.help ? el("small", { id: described, text: field.help }) : null;
    return el("div", { class: field.kind === "flag" ? "field flag" : "field" }, label, control, help);
  }

  // The group last started on this device, per game (kept in the browser, for next week).
  const groupKey = (verb) => `tabletop-group:${document.body.dataset.game}:${verb}`;
  function savedGroup(verb) {
    try { return JSON.parse(window.localStorage.getItem(groupKey(verb)) || "null"); }
    catch (failed) { return null; }
  }
  function saveGroup(verb, group) {
    try { window.localStorage.setItem(groupKey(verb), JSON.stringify(group)); } catch (failed) { /* private mode */ }
  }
  const looksLikeRosterText = (text) => /^\s*[{[]/.test(text) || text.includes("=");

  // A roster started from names: a row per name typed, with the game's choices per player
  // (a Descriptor, an Archetype and a Lucky Number; a deck), each filled in with a legal
  // default the player may change. The roster is sent as those players, completed by the
  // console; roster text (TOML or JSON, or a file read into the field) is sent as it is.
  function playerRows(verb, id, control, setup) {
    const chosen = {};  // each player's choices by name, kept while names are typed
    const saved = savedGroup(verb);
    if (saved && Array.isArray(saved.players)) {
      control.value = saved.players.map((player) => player.name).join("\n");
      for (const player of saved.players) chosen[player.name] = player;
    }
    const note = el("p", { class: "help player-note", id: `${id}-note`,
                           text: setup.note + (saved ? " The last group started on this device is filled in." : "") });
    const rows = el("div", { class: "player-rows", id: `${id}-players` });
    const names = () => (looksLikeRosterText(control.value) ? []
      : control.value.split("\n").map((line) => line.trim()).filter(Boolean));
    function draw() {
      rows.replaceChildren(...names().map((name, index) => {
        const defaults = setup.defaults[index % setup.defaults.length] || {};
        return el("fieldset", { class: "player-row", "data-player": name },
          el("legend", { text: name }),
          ...setup.choices.map((choice) => {
            const choiceId = `${id}-${index}-${choice.name}`;
            const control = choice.kind === "choice"
              ? el("select", { id: choiceId, "data-choice": choice.name },
                   ...choice.choices.map((value, at) => el("option", { value,
                     text: choice.titles ? choice.titles[at] : value })))
              : el("input", { id: choiceId, "data-choice": choice.name });
            const kept = (chosen[name] || {})[choice.name];
            control.value = String(kept !== undefined ? kept : (defaults[choice.name] !== undefined ? defaults[choice.name] : ""));
            if (choice.kind === "choice" && control.selectedIndex < 0) control.selectedIndex = 0;
            control.addEventListener("input", () => { chosen[name] = { ...(chosen[name] || {}), [choice.name]: control.value }; });
            // the player's name is the row's legend: said again to a screen reader only
            return el("div", { class: "field" }, el("label", { for: choiceId },
              el("span", { class: "visually-hidden", text: `${name}: ` }), choice.label), control);
          }));
      }));
    }
    control.addEventListener("input", draw);
    draw();
    // What the form sends: the players with their choices, or the roster text as typed.
    control.rosterValue = () => {
      if (!names().length) return control.value;
      const players = [...rows.querySelectorAll(".player-row")].map((row) => {
        const player = { name: row.dataset.player };
        for (const choice of row.querySelectorAll("[data-choice]")) player[choice.dataset.choice] = choice.value;
        return player;
      });
      return { players };
    };
    return [note, rows];
  }

  // The last reply to each game's action, kept apart from its form: a game that starts
  // rebuilds the forms, and a reply arriving after that still belongs on the page.
  const replies = {};
  function form(action) {
    const key = `${document.body.dataset.game}:${action.verb}`;
    const [shownClass, shownText] = replies[key] || ["result", ""];
    const result = el("p", { class: shownClass, role: "status", "aria-live": "polite",
                             id: `${action.verb}-result`, text: shownText });
    const say = (className, text) => {
      replies[key] = [className, text];
      result.className = className;
      result.textContent = text;
      const shown = document.getElementById(`${action.verb}-result`);
      if (shown && shown !== result && document.body.dataset.game === key.split(":")[0]) {
        shown.className = className;
        shown.textContent = text;
      }
    };
    const node = el("form", { class: "action", "data-verb": action.verb,
                              "aria-labelledby": `${action.verb}-title` },
                    el("h3", { id: `${action.verb}-title`, text: action.title }),
                    el("p", { class: "help", text: action.help }),
                    ...action.fields.map((field) => input(action.verb, field)),
                    el("button", { type: "submit", text: action.title }), result);
    node.addEventListener("submit", async (submitted) => {
      submitted.preventDefault();
      const values = {};
      for (const field of action.fields) {
        const control = node.elements[field.name];
        values[field.name] = field.kind === "flag" ? control.checked
          : (control.rosterValue ? control.rosterValue() : control.value);
      }
      say("result pending", "Sending…");
      try {
        const response = await fetch(`/gm/actions/${encodeURIComponent(action.verb)}${chosen ? `?game=${encodeURIComponent(chosen)}` : ""}`, {
          method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify(values) });
        if (response.status === 401) { TableView.sessionEnded(); return; }
        const body = await response.json();
        if (response.ok && body.ok) {
          say("result accepted", body.reply.waiting ? `Done: waiting for ${body.reply.waiting}` : "Done.");
          if (action.verb === "new") {  // the group, kept on this device for the next game
            const roster = values.roster;
            if (roster && typeof roster === "object") saveGroup(action.verb, roster);
            else if (typeof values.players === "string") saveGroup(action.verb, { names: values.players });
          }
        } else {
          say("result refusal", "Refused: " + (body.reply ? body.reply.error : body.error));
        }
      } catch (failed) {
        say("result refusal", "Not sent: the console is unreachable.");
      }
    });
    return node;
  }

  // The game chooser: any game of `tabletop games` is started from here (its `new` form).
  let chosen = null;  // a game other than the one on the table, about to be started
  const chooser = document.getElementById("game-choice");
  chooser.addEventListener("change", () => loadActions(chooser.value));
  async function loadActions(wanted) {
    const response = await fetch("/gm/actions" + (wanted ? `?game=${encodeURIComponent(wanted)}` : ""));
    if (response.status === 401) { TableView.sessionEnded(); return; }
    const body = await response.json();
    chosen = body.game !== body.playing ? body.game : null;
    const title = (name) => (body.games.find((game) => game.name === name) || { title: name }).title;
    document.getElementById("game-name").textContent = `(${title(body.playing)})`;
    chooser.replaceChildren(...body.games.map((game) => el("option", { value: game.name,
      text: game.name === body.playing ? `${game.title} (on the table)` : game.title })));
    chooser.value = body.game;
    const offered = chosen ? body.actions.filter((action) => action.verb === "new") : body.actions;
    document.body.dataset.game = body.game;
    actions = offered.map((action) => ({ action, node: form(action) }));
    arranged = null;
    arrange(window.tableSnapshot);
  }

  // The forms grouped by what the game waits for: the prompt's own actions first (those
  // that answer its `pending` type or its `waiting` kind), then each group of the rest.
  let actions = [];
  let arranged = null;
  function arrange(snapshot) {
    if (!actions.length) return;
    const prompt = (snapshot && snapshot.prompt) || {};
    const wanted = chosen ? new Set(["nothing"])
      : new Set([prompt.waiting || "nothing", (prompt.pending || {}).type].filter(Boolean));
    const key = JSON.stringify([...wanted, actions.length]);
    if (key !== arranged) {
      arranged = key;
      const now = actions.filter(({ action }) => action.answers.some((a) => wanted.has(a)));
      const sections = [];
      sections.push(el("section", { class: "group now", "aria-labelledby": "group-now" },
        el("h3", { id: "group-now", class: "group-title", text: "What the game waits for now" }),
        ...(now.length ? now.map(({ node }) => node)
                       : [el("p", { class: "none", text: "None: the game waits for nothing the game master enters; pick from the groups below." })])));
      const groups = [];
      for (const item of actions)
        if (!now.includes(item) && !groups.includes(item.action.group)) groups.push(item.action.group);
      groups.forEach((group, index) => {
        const items = actions.filter((item) => !now.includes(item) && item.action.group === group);
        sections.push(el("section", { class: "group", "aria-labelledby": `group-${index}` },
          el("h3", { id: `group-${index}`, class: "group-title", text: group }),
          ...items.map(({ node }) => node)));
      });
      document.getElementById("actions").replaceChildren(...sections);
    }
    fillPlayers(snapshot);
  }

  // The players a field may name: every name in the game's state (seats, characters, the
  // poker table's gamblers), so a form never asks the game master to type one.
  function playerNames(state) {
    const names = [];
    const add = (name) => { if (typeof name === "string" && name && !names.includes(name)) names.push(name); };
    const visit = (value, depth) => {
      if (Array.isArray(value)) {
        for (const item of value) {
          if (item && typeof item === "object") add(item.name);
          if (depth < 2) visit(item, depth + 1);
        }
      } else if (value && typeof value === "object" && depth < 2) {
        for (const inner of Object.values(value)) visit(inner, depth + 1);
      }
    };
    if (state) visit(state, 0);
    return names;
  }
  function fillPlayers(snapshot) {
    const names = playerNames(snapshot && snapshot.state);
    for (const select of document.querySelectorAll("select[data-kind=player]")) {
      const extra = JSON.parse(select.dataset.extra || "[]").filter((word) => !names.includes(word));
      const offered = [...names, ...extra];
      const have = [...select.options].slice(1).map((option) => option.value);
      if (JSON.stringify(have) === JSON.stringify(offered)) continue;
      const chosen = select.value;
      select.replaceChildren(select.options[0],
        ...names.map((name) => el("option", { value: name, text: name })),
        ...extra.map((word) => el("option", { value: word, text: word === "all" ? "all (everyone)" : word })));
      if (offered.includes(chosen)) select.value = chosen;
    }
  }
  // The seats' screens: a code per seat, shown here for the players to type on their phones.
  const codesButton = document.getElementById("seat-codes-button");
  codesButton.addEventListener("click", async () => {
    const result = document.getElementById("seat-codes-result");
    const list = document.getElementById("seat-codes");
    // Said at once, so the click is seen to be taken (and the last answer is not read anew).
    result.className = "result pending";
    result.textContent = "Sending…";
    try {
      const response = await fetch("/gm/seats", { method: "POST" });
      if (response.status === 401) { TableView.sessionEnded(); return; }
      const body = await response.json();
      if (!body.ok) { result.className = "result refusal"; result.textContent = body.error; return; }
      result.className = "result accepted";
      result.textContent = "Codes given: the old ones no longer open a seat.";
      list.replaceChildren(...body.seats.map((seat) => el("li", { "data-seat": seat.seat },
        el("span", { class: "code-seat", text: `Seat ${seat.seat}` + (seat.name ? ` (${seat.name})` : "") }),
        el("code", { class: "code", text: seat.code, "aria-label": `code ${seat.code.split("").join(" ")}` }),
        el("span", { class: "code-where", text: window.location.origin + seat.path }))));
    } catch (failed) {
      result.className = "result refusal";
      result.textContent = "Not sent: the console is unreachable.";
    }
  });
  loadActions();
  // A different game on the table brings other actions.
  document.addEventListener("table-rendered", (event) => {
    const game = event.detail.prompt && event.detail.prompt.game;
    if (game && !chosen && document.body.dataset.game && game !== document.body.dataset.game) loadActions();
    else if (game && chosen === game) loadActions();
    else arrange(event.detail);
  });
})();

// The game master's view: the referee's snapshot, and the game's actions as forms.
"use strict";
(() => {
  const el = TableView.el;
  const feed = TableView.follow("/gm/events", document.body, "/gm/session");
  // Logging out is this page leaving, not its session ending (that says "Your session ended").
  document.querySelector('form[action="/gm/logout"]').addEventListener("submit", feed.leave);

  function input(verb, field) {
    const id = `${verb}-${field.name}`;
    const described = field.help ? `${id}-help` : null;
    let control;
    if (field.kind === "flag") {
      control = el("input", { id, name: field.name, type: "checkbox", "aria-describedby": described });
    } else if (field.kind === "choice") {
      control = el("select", { id, name: field.name, required: field.required, "aria-describedby": described },
                   field.required ? null : el("option", { value: "", text: "—" }),
                   ...field.choices.map((choice, at) => el("option", { value: choice,
                     text: (field.titles || [])[at] || choice })));
    } else if (field.kind === "yesno") {
      control = el("select", { id, name: field.name, required: field.required, "aria-describedby": described },
                   el("option", { value: "", text: "— pick one —" }),
                   el("option", { value: "yes", text: "Yes" }), el("option", { value: "no", text: "No" }));
    } else if (field.kind === "card") {
      // A card on the table, picked from the seats' slots (filled in by fillPlayers).
      control = el("select", { id, name: field.name, required: field.required, "data-kind": "card",
                               "aria-describedby": described },
                   el("option", { value: "", text: field.required ? "— pick a card —" : "— no card —" }));
    } else if (field.kind === "pairs") {
      // A value per player (a row each, drawn by fillPlayers): sent as the lines the game reads.
      const rows = el("div", { class: "pair-rows", "data-kind": "pairs", "data-field": field.name,
                               "data-pair": field.pair, "data-keys": field.keys, "data-value": field.value || "value",
                               id: `${id}-rows` });
      const help = field.help ? el("small", { id: described, text: field.help }) : null;
      // the fieldset is the form's element of that name: what it sends is its rows' lines
      control = el("fieldset", { class: "field pairs", name: field.name, id, "aria-describedby": described },
                   el("legend", { text: field.label + (field.required ? "" : " (optional)") }), rows, help);
      control.rosterValue = () => [...rows.querySelectorAll(".pair-row")].map((row) => {
        const name = (row.querySelector("[data-part=name]") || {}).value || row.dataset.name || "";
        const value = (row.querySelector("[data-part=value]") || {}).value || "";
        return name.trim() && value.trim() ? `${name.trim()}=${value.trim()}` : "";
      }).filter(Boolean).join("\n");
      return control;
    } else if (field.kind === "rows") {
      return rowsBuilder(verb, id, field, described);
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

  // A "rows" field (a roll's pools of dice, a turn order's entrants): a row per item, each
  // with the game's columns in words; "who" is a player of the game from the list or a game
  // master's character with a name. Sent as a list of rows, one object each; the console
  // writes each as the command line would.
  const NPC = "\u0000npc";  // the "a game master's character" choice of a row's who
  let knownNames = [];  // the players a row's who offers (fillPlayers keeps it fresh)
  function rowsBuilder(verb, id, field, described) {
    const spec = field.rows;
    const noun = spec.noun.charAt(0).toUpperCase() + spec.noun.slice(1);
    const list = el("div", { class: "row-list", id: `${id}-rows` });
    const add = el("button", { type: "button", class: "add-row", text: spec.add });
    const help = field.help ? el("small", { id: described, text: field.help }) : null;
    const control = el("fieldset", { class: "field rows-field", name: field.name, id, "aria-describedby": described,
                                     "data-kind": "rows" },
                       el("legend", { text: field.label.charAt(0).toUpperCase() + field.label.slice(1) }), help, list, add);
    let made = 0;
    // the value of the field that relabels the columns (a turn order's kind), in this form
    const picked = () => {
      const form = control.closest("form");
      const other = form && spec.labels_from ? form.elements[spec.labels_from] : null;
      return other && other.value ? other.value : null;
    };
    const labelOf = (column) => {
      const value = picked();
      if (!value || !Object.keys(column.labels || {}).length) return column.label;
      return (column.labels || {})[value] || null;
    };
    function refresh(row) {
      const who = row.querySelector("[data-part=who]");
      const npc = who && who.value === NPC;
      const name = row.querySelector("[data-part=who-name]");
      if (name) name.closest(".field").hidden = !npc;
      for (const part of row.querySelectorAll("[data-column]")) {
        const column = spec.columns.find((each) => each.name === part.dataset.column);
        const label = labelOf(column);
        const asked = label !== null && column.side !== (npc ? "player" : "npc");
        part.hidden = !asked;
        const text = part.querySelector(".column-label");
        if (text && label) text.textContent = label;
      }
    }
    function addRow() {
      made += 1;
      const rowId = `${id}-${made}`;
      const row = el("fieldset", { class: "builder-row", "data-row": String(made) });
      const legend = el("legend");
      const remove = el("button", { type: "button", class: "remove-row secondary" });
      remove.addEventListener("click", () => { row.remove(); renumber(); });
      const parts = spec.columns.map((column) => {
        const partId = `${rowId}-${column.name}`;
        const hint = column.help ? el("small", { id: `${partId}-help`, text: column.help }) : null;
        const labelText = el("span", { class: "column-label", text: column.label });
        const optional = column.required || column.kind === "flag" ? null : el("span", { text: " (optional)" });
        if (column.kind === "who") {
          const select = el("select", { id: partId, "data-part": "who", "data-kind": "row-who" },
            el("option", { value: "", text: "— pick —" }));
          fillWho(select);
          const nameId = `${partId}-name`;
          const name = el("input", { id: nameId, "data-part": "who-name", autocomplete: "off" });
          select.addEventListener("change", () => refresh(row));
          return el("div", { class: "row-who" },
            el("div", { class: "field" }, el("label", { for: partId }, labelText), select),
            el("div", { class: "field", hidden: true },
              el("label", { for: nameId, text: "the character's name" + (column.required ? "" : " (optional)") }), name));
        }
        let input;
        if (column.kind === "flag") {
          input = el("input", { id: partId, type: "checkbox", "data-value": column.name });
        } else if (column.kind === "number") {
          input = el("input", { id: partId, type: "number", "data-value": column.name, inputmode: "numeric",
                                min: column.min === null ? null : String(column.min),
                                max: column.max === null ? null : String(column.max),
                                "aria-describedby": hint ? `${partId}-help` : null });
        } else {
          input = el("input", { id: partId, "data-value": column.name, autocomplete: "off",
                                "aria-describedby": hint ? `${partId}-help` : null });
        }
        return el("div", { class: column.kind === "flag" ? "field flag" : "field", "data-column": column.name },
          ...(column.kind === "flag" ? [input, el("label", { for: partId }, labelText)]
                                     : [el("label", { for: partId }, labelText, optional), input]), hint);
      });
      row.append(legend, ...parts, remove);
      list.append(row);
      renumber();
      refresh(row);
      return row;
    }
    function renumber() {
      const rows = [...list.querySelectorAll(".builder-row")];
      rows.forEach((row, index) => {
        row.querySelector("legend").textContent = `${noun} ${index + 1}`;
        const remove = row.querySelector(".remove-row");
        remove.textContent = `Remove ${spec.noun} ${index + 1}`;
        remove.hidden = rows.length <= (spec.least || 1);
      });
    }
    add.addEventListener("click", () => {
      const row = addRow();
      const first = row.querySelector("select, input");
      if (first) first.focus();
    });
    control.resetRows = () => {
      list.replaceChildren();
      made = 0;
      for (let at = 0; at < (spec.least || 1); at += 1) addRow();
    };
    control.resetRows();
    // a change of the field that relabels the columns (the kind of order) redraws the labels
    control.relabel = () => { for (const row of list.querySelectorAll(".builder-row")) refresh(row); };
    // What the form sends: each row's who and the columns it asks.
    control.rosterValue = () => [...list.querySelectorAll(".builder-row")].map((row) => {
      const who = row.querySelector("[data-part=who]");
      const npc = !!who && who.value === NPC;
      const value = { who: npc ? row.querySelector("[data-part=who-name]").value.trim() : (who ? who.value : "") };
      if (npc) value.npc = true;
      for (const part of row.querySelectorAll("[data-column]")) {
        if (part.hidden) continue;
        const input = part.querySelector("[data-value]");
        value[input.dataset.value] = input.type === "checkbox" ? input.checked : input.value;
      }
      return value;
    });
    return control;
  }
  function fillWho(select) {
    const have = [...select.options].slice(1).map((option) => option.value);
    const offered = [...knownNames, NPC];
    if (JSON.stringify(have) === JSON.stringify(offered)) return;
    const kept = select.value;
    select.replaceChildren(select.options[0], ...knownNames.map((name) => el("option", { value: name, text: name })),
      el("option", { value: NPC, text: "a game master's character" }));
    if (offered.includes(kept)) select.value = kept;
  }

  // The group last started on this device, per game (kept in the browser, for next week).
  // Keyed by the game whose forms these are (the one picked to start), not the one the page
  // last drew: the new game's snapshot may come before or after its reply.
  const groupKey = (verb) => `tabletop-group:${formsGame || document.body.dataset.game}:${verb}`;
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
    // a field that relabels a "rows" field's columns (a turn order's kind) redraws them
    node.addEventListener("change", (changed) => {
      for (const rows of node.querySelectorAll("[data-kind=rows]"))
        if (rows.relabel && changed.target.name && changed.target.name !== rows.name) rows.relabel();
    });
    // drawn before the form held them: labelled now by the form's own values (a scene's order
    // asks Empathy alone)
    for (const rows of node.querySelectorAll("[data-kind=rows]")) if (rows.relabel) rows.relabel();
    node.addEventListener("submit", async (submitted) => {
      submitted.preventDefault();
      const values = {};
      for (const field of action.fields) {
        const control = node.elements[field.name];
        values[field.name] = field.kind === "flag" ? control.checked
          : (control.rosterValue ? control.rosterValue() : control.value);
      }
      const done = await send(action, values, say);
      if (done && action.verb !== "new") {
        // A fresh form for the next command: nothing of this one is sent again by mistake.
        node.reset();
        for (const rows of node.querySelectorAll("[data-kind=rows]")) if (rows.resetRows) rows.resetRows();
        fillPlayers(window.tableSnapshot, true);
      }
    });
    return node;
  }

  // Sends one action's values; says the answer with `say` (beside its form, or under the
  // one-tap answers); true when the game took it.
  async function send(action, values, say) {
    say("result pending", "Sending…");
    try {
      const response = await fetch(`/gm/actions/${encodeURIComponent(action.verb)}${chosen ? `?game=${encodeURIComponent(chosen)}` : ""}`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(values) });
      if (response.status === 401) { TableView.sessionEnded(); return false; }
      const body = await response.json();
      if (response.ok && body.ok) {
        say("result accepted", body.reply.waiting ? `Done: waiting for ${body.reply.waiting}` : "Done.");
        if (action.verb === "new") {  // the group, kept on this device for the next game
          const roster = values.roster;
          if (roster && typeof roster === "object") saveGroup(action.verb, roster);
          else if (typeof values.players === "string") saveGroup(action.verb, { names: values.players });
        }
        return true;
      }
      if (body.reply) say("result refusal", "Refused: " + inWords(action, body.reply.error));
      else if (response.status >= 500) say("result refusal", body.error);  // not sent, or no answer
      else say("result refusal", "Refused: " + inWords(action, body.error));
    } catch (failed) {
      say("result refusal", "Not sent: the console is unreachable.");
    }
    return false;
  }

  // A refusal in the form's words: "reveal.slot: must be 1 to 6" names the field by its
  // label ("Slot: must be 1 to 6"), never by the program's name for it.
  function inWords(action, message) {
    const text = String(message || "");
    // a row's part ("pools[1].rank: ..."): said by the row and its column ("Pool 2, skill rank")
    const inRow = /^([a-z_]+)\[(\d+)\](?:\.([a-z_]+))?(?:\[(\d+)\])?:\s*/.exec(text);
    const rowsField = inRow && action.fields.find((each) => each.name === inRow[1] && each.rows);
    if (rowsField) {
      const spec = rowsField.rows;
      const key = { player: "who", npc: "who", extra_die: "extra" }[inRow[3]] || inRow[3];
      const column = spec.columns.find((each) => each.name === key);
      const where = `${spec.noun.charAt(0).toUpperCase()}${spec.noun.slice(1)} ${Number(inRow[2]) + 1}`;
      return `${where}${column ? `, ${column.label}` : ""}: ${text.slice(inRow[0].length)}`;
    }
    const named = /^(?:[a-z_]+\.)?([a-z_]+)(?:\[\d+\])?(?:\.[a-z_]+)?:\s*/.exec(text);
    if (!named) return text;
    const field = action.fields.find((each) => each.name === named[1]);
    const label = field ? field.label : named[1].replace(/_/g, " ");
    return `${label.charAt(0).toUpperCase()}${label.slice(1)}: ${text.slice(named[0].length)}`;
  }

  // The game chooser: any game of `tabletop games` is started from here (its `new` form).
  let chosen = null;  // a game other than the one on the table, about to be started
  let formsGame = null;  // the game whose forms are drawn (the table's, or the one chosen)
  const chooser = document.getElementById("game-choice");
  chooser.addEventListener("change", () => loadActions(chooser.value));
  async function loadActions(wanted) {
    const response = await fetch("/gm/actions" + (wanted ? `?game=${encodeURIComponent(wanted)}` : ""));
    if (response.status === 401) { TableView.sessionEnded(); return; }
    const body = await response.json();
    chosen = body.game !== body.playing ? body.game : null;
    formsGame = body.game;
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
      // the awaited forms in view: the actions' own box scrolled to them (the page itself,
      // with the prompt and its one-tap answers, stays where it is)
      const box = document.querySelector(".actions");
      if (now.length && snapshot && snapshot.prompt && box) {
        box.scrollTop += sections[0].getBoundingClientRect().top - box.getBoundingClientRect().top;
      }
    }
    fillPlayers(snapshot);
    quick(snapshot, actions.filter(({ action }) => action.answers.some((a) => wanted.has(a))));
  }

  // -- One tap for what the game awaits -----------------------------------------------------
  // The prompt's own decision as big buttons, built from the game's forms: a verb that needs
  // only the player to act is one button (Check, Call, Fold, All in; keep the die; pass); one
  // with an amount is a button beside its amount (Bet, Raise: the least raise filled in); a
  // yes-or-no answer is Yes and No; a player's card is each of their cards to tap; the dice by
  // hand are a 1-6 pad (sent when the awaited number of dice is tapped); the dice kept at a
  // poker draw are the hand's dice to tap. Nothing game-specific but what the prompt says.
  let quickKey = null;
  const quickSay = (className, text) => {
    const result = document.getElementById("quick-result");
    result.className = className;
    result.textContent = text;
  };
  function quick(snapshot, now) {
    const box = document.getElementById("quick");
    const body = document.getElementById("quick-body");
    const prompt = (snapshot && snapshot.prompt) || {};
    const pending = prompt.pending || {};
    const acting = actor(prompt);
    const cards = seatCards(snapshot && snapshot.state);
    const key = JSON.stringify([chosen, prompt.prompt, pending, acting, now.map(({ action }) => action.verb),
                                cards.map((card) => [card.player, card.slot, card.state])]);
    if (key === quickKey) return;
    quickKey = key;
    const parts = [];
    const plain = [];  // the verbs that need nothing but the player to act: one row of buttons
    const bare = [];  // the verbs that need nothing at all (the game master's fold): a row of their own
    if (!chosen && pending.type) {
      const names = playerNames(snapshot && snapshot.state);
      const toCall = typeof pending.to_call === "number" ? pending.to_call : null;
      for (const { action } of now) {
        const part = quickPart(action, prompt, pending, acting, names, cards, toCall);
        if (part && part.plain) (part.bare ? bare : plain).push(part.plain);
        else if (part) parts.push(part);
      }
    }
    if (bare.length) {
      parts.unshift(el("div", { class: "quick-part", "data-verb": "bare" },
        el("p", { class: "quick-label", text: "Or:" }), el("div", { class: "quick-buttons" }, ...bare)));
    }
    if (plain.length) {
      parts.unshift(el("div", { class: "quick-part", "data-verb": "plain" },
        el("p", { class: "quick-label", text: acting ? `For ${acting}:` : "Now:" }),
        el("div", { class: "quick-buttons" }, ...plain)));
    }
    body.replaceChildren(...parts);
    box.hidden = !parts.length;
  }

  const isPlayer = (field) => field.kind === "player";
  function quickPart(action, prompt, pending, acting, names, cards, toCall) {
    const fields = action.fields;
    const required = fields.filter((field) => field.required);
    const others = fields.filter((field) => !isPlayer(field));
    const tap = (text, values, extra) => {
      const button = el("button", { type: "button", class: "quick-button", text, ...(extra || {}) });
      button.addEventListener("click", () => send(action, values(), quickSay));
      return button;
    };
    const playerValues = () => Object.fromEntries(fields.filter(isPlayer).map((field) => [field.name, acting || ""]));
    const needsActor = fields.some(isPlayer);
    if (needsActor && !(acting && names.includes(acting))) return null;
    // two players (one helps another): not the player to act twice; left to the form
    if (fields.filter(isPlayer).length > 1) return null;
    const group = (title, ...nodes) => el("div", { class: "quick-part", "data-verb": action.verb },
      el("p", { class: "quick-label", text: title }), el("div", { class: "quick-buttons" }, ...nodes));
    // a bet that cannot be made now is not offered: a check or a bet only when nothing is to
    // call, a call or a raise only when something is
    if (toCall !== null && action.answers.includes(pending.type)) {
      if (toCall > 0 && ["check", "bet"].includes(action.verb)) return null;
      if (toCall === 0 && ["call", "raise"].includes(action.verb)) return null;
    }
    const short = action.title.replace(/^[^:]*: /, "");
    const plainTitle = short.charAt(0).toUpperCase() + short.slice(1);
    const forWhom = acting && needsActor ? ` (${acting})` : "";
    // a 1-6 pad: the dice tapped one by one, sent when `count` are tapped (0: the thrower
    // chooses how many, sent by "Send these dice")
    const dicePad = (title, field, count, values) => {
      const tapped = [];
      const shown = el("p", { class: "quick-dice", "aria-live": "polite", text: "" });
      const sendDice = () => send(action, { ...values(), [field.name]: tapped.join(" ") }, quickSay).then(() => {
        tapped.length = 0; shown.textContent = "";
      });
      const redraw = () => { shown.textContent = tapped.length ? `Dice: ${tapped.join(" ")}` + (count ? ` (${tapped.length} of ${count})` : "") : ""; };
      const pad = [1, 2, 3, 4, 5, 6].map((value) => {
        const button = el("button", { type: "button", class: "quick-button die-button", text: String(value),
                                      "aria-label": `a die showing ${value}` });
        button.addEventListener("click", () => {
          tapped.push(value);
          redraw();
          if (count && tapped.length >= count) sendDice();
        });
        return button;
      });
      const extra = [];
      const undo = el("button", { type: "button", class: "quick-button secondary", text: "Undo the last die" });
      undo.addEventListener("click", () => { tapped.pop(); redraw(); });
      if (count !== 1) extra.push(undo);
      if (!count) {
        const done = el("button", { type: "button", class: "quick-button", text: "Send these dice" });
        done.addEventListener("click", () => { if (tapped.length) sendDice(); });
        extra.push(done);
      }
      const said = title + (count > 1 ? `: tap the ${count} dice` : count === 1 ? ": tap the die" : ": tap each die");
      const part = group(said, ...pad, ...extra);
      part.append(shown);
      return part;
    };
    // the dice by hand (the throw the table waits for)
    if (action.group === "Dice entered by hand" && fields.length === 1 && ["list", "number"].includes(fields[0].kind)
        && prompt.waiting === "dice") {
      const throwing = prompt.dice || {};
      const count = fields[0].kind === "number" ? 1 : (throwing.rethrow || (throwing.rerollable ? 0 : throwing.count) || 0);
      return dicePad(action.title, fields[0], count, () => ({}));
    }
    // a player's dice entered for them (a concealed poker hand: `pending.dice` of them)
    const entered = others.length === 1 && others[0].kind === "list" && others[0].name !== "keep"
      && typeof pending.dice === "number" && pending.dice > 0 ? others[0] : null;
    if (entered && needsActor) return dicePad(`${plainTitle}${forWhom}`, entered, pending.dice, playerValues);
    // the dice kept at a draw: the hand's dice to tap
    const keep = others.length === 1 && others[0].kind === "list" && others[0].name === "keep"
      && Array.isArray(pending.hand) && pending.hand.length ? others[0] : null;
    if (keep) {
      const kept = new Set();
      const toggles = pending.hand.map((value, index) => {
        const button = el("button", { type: "button", class: "quick-button die-button", text: String(value),
                                      "aria-pressed": "false", "aria-label": `keep the die showing ${value}` });
        button.addEventListener("click", () => {
          if (kept.has(index)) kept.delete(index); else kept.add(index);
          button.setAttribute("aria-pressed", String(kept.has(index)));
        });
        return button;
      });
      const go = tap("Keep the dice tapped", () => ({ ...playerValues(),
        [keep.name]: pending.hand.filter((_, index) => kept.has(index)).join(" ") }));
      return group(`${plainTitle}${forWhom}: tap the dice kept`, ...toggles, go);
    }
    const left = required.filter((field) => !isPlayer(field));
    // only the player to act: one button
    if (!left.length) return { plain: tap(plainTitle, playerValues, { "data-verb": action.verb }), bare: !needsActor };
    if (left.length !== 1) return null;
    const field = left[0];
    if (field.kind === "yesno") {
      return group(`${plainTitle}${forWhom}`,
        tap("Yes", () => ({ ...playerValues(), [field.name]: "yes" })),
        tap("No", () => ({ ...playerValues(), [field.name]: "no" })));
    }
    if (field.kind === "number" && field.name === "slot") {
      // a player's card: each of the awaited players' cards to tap (those not yet face up)
      const players = Array.isArray(pending.players) ? pending.players : (prompt.who || []);
      const playerField = fields.find(isPlayer);
      if (!playerField) return null;
      // a row per player: their cards by slot, the whole card said to a screen reader
      const rows = players.map((player) => {
        const taps = cards.filter((card) => card.player === player && card.state !== "face_up")
          .map((card) => tap(`${card.slot}` + (card.card || card.title ? `: ${cardWords(card)}` : ""),
                             () => ({ [playerField.name]: card.player, [field.name]: String(card.slot) }),
                             { "data-player": card.player, "data-slot": String(card.slot),
                               "aria-label": cardLabel(card).replace(" (face down)", "") }));
        return taps.length ? el("div", { class: "quick-buttons quick-row" },
          el("span", { class: "quick-who", text: `${player}:` }), ...taps) : null;
      }).filter(Boolean);
      if (!rows.length) return null;
      return el("div", { class: "quick-part", "data-verb": action.verb },
        el("p", { class: "quick-label", text: `${action.title}: tap the card (by its slot)` }), ...rows);
    }
    if (field.kind === "number") {
      // an amount beside its button (the least raise filled in)
      const id = `quick-${action.verb}-${field.name}`;
      const amount = el("input", { id, inputmode: "numeric", class: "quick-amount",
                                   value: String(pending.min_raise || "") });
      amount.value = String(pending.min_raise || "");
      const button = tap(plainTitle, () => ({ ...playerValues(), [field.name]: amount.value }));
      return group(`${plainTitle}${forWhom}`, el("label", { for: id, text: field.label }), amount, button);
    }
    return null;
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
  // The player the game waits for now, as the prompt names them (null: nobody in particular).
  function actor(prompt) {
    if (!prompt) return null;
    const pending = prompt.pending || {};
    if (typeof pending.player === "string") return pending.player;
    return (prompt.who || [])[0] || null;
  }

  // Each seat's cards as the referee sees them: [{ player, slot, card, state }].
  function seatCards(state) {
    const cards = [];
    for (const player of (state && Array.isArray(state.players) ? state.players : [])) {
      const slots = Array.isArray(player.slots) ? player.slots : (Array.isArray(player.bullets) ? player.bullets : []);
      slots.forEach((slot, index) => {
        if (!slot || (!slot.card && slot.state !== "face_down")) return;
        cards.push({ player: player.name, slot: slot.slot || index + 1, card: slot.card, title: slot.title,
                     state: slot.state || (slot.face_up ? "face_up" : "face_down") });
      });
    }
    return cards;
  }
  const RANK_WORDS = { A: "ace", J: "jack", Q: "queen", K: "king", T: "10" };
  const SUIT_WORDS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  function cardWords(card) {
    if (card.title) return card.title;  // a card of the game's own deck (a bullet)
    const code = String(card.card || "");
    const match = /^(10|[2-9TJQKA])([SHDC])$/.exec(code);
    if (match) return `${RANK_WORDS[match[1]] || match[1]} of ${SUIT_WORDS[match[2]]}`;
    return code.startsWith("JK") ? "joker" : code;
  }
  const cardLabel = (card) => `${card.player}, slot ${card.slot}` +
    (card.card || card.title ? `: ${cardWords(card)}` : "") + (card.state === "face_up" ? " (face up)" : " (face down)");

  // The players, cards and rows the forms offer, from the game's state; with `fresh` (a form
  // just sent, or the prompt now waits for someone else), the player to act is chosen anew in
  // the forms of what the game waits for.
  let lastActor = null;
  function fillPlayers(snapshot, fresh) {
    const names = playerNames(snapshot && snapshot.state);
    const acting = actor(snapshot && snapshot.prompt);
    const renew = fresh || acting !== lastActor;
    lastActor = acting;
    for (const select of document.querySelectorAll("select[data-kind=player]")) {
      const extra = JSON.parse(select.dataset.extra || "[]").filter((word) => !names.includes(word));
      const offered = [...names, ...extra];
      const have = [...select.options].slice(1).map((option) => option.value);
      if (JSON.stringify(have) !== JSON.stringify(offered)) {
        const kept = select.value;
        select.replaceChildren(select.options[0],
          ...names.map((name) => el("option", { value: name, text: name })),
          ...extra.map((word) => el("option", { value: word, text: word === "all" ? "all (everyone)" : word })));
        if (offered.includes(kept)) select.value = kept;
      }
      // the player to act, chosen for the game master in the forms of what the game awaits
      const awaited = select.closest(".group.now");
      if (awaited && acting && names.includes(acting) && (renew || !select.value)) select.value = acting;
    }
    const cards = seatCards(snapshot && snapshot.state);
    for (const select of document.querySelectorAll("select[data-kind=card]")) {
      const offered = cards.map((card) => [`${card.player}:${card.slot}`, cardLabel(card)]);
      const have = [...select.options].slice(1).map((option) => [option.value, option.textContent]);
      if (JSON.stringify(have) === JSON.stringify(offered)) continue;
      const kept = select.value;
      select.replaceChildren(select.options[0], ...offered.map(([value, text]) => el("option", { value, text })));
      if (offered.some(([value]) => value === kept)) select.value = kept;
    }
    for (const rows of document.querySelectorAll("[data-kind=pairs]")) pairRows(rows, names, cards);
    knownNames = names;
    for (const select of document.querySelectorAll("select[data-kind=row-who]")) fillWho(select);
  }

  // A row per player for a "pairs" field: the player's name (or a name to type, for a table
  // that seats others too: the poker's NPCs) and the value.
  function pairRows(rows, names, cards) {
    const open = rows.dataset.keys === "name";
    const wanted = open ? [...names, "", ""] : names;
    if (rows.dataset.drawn === JSON.stringify(wanted)) return;
    rows.dataset.drawn = JSON.stringify(wanted);
    const base = rows.id.replace(/-rows$/, "");
    rows.replaceChildren(...wanted.map((name, index) => {
      const nameId = `${base}-${index}-name`;
      const valueId = `${base}-${index}-value`;
      const who = open ? el("input", { id: nameId, "data-part": "name", value: name,
                                        placeholder: "another name (an NPC)" })
        : null;
      if (who) who.value = name;
      let value;
      if (rows.dataset.pair === "card") {
        value = el("select", { id: valueId, "data-part": "value" }, el("option", { value: "", text: "— no card —" }),
          ...cards.map((card) => el("option", { value: `${card.player}:${card.slot}`, text: cardLabel(card) })));
      } else {
        value = el("input", { id: valueId, "data-part": "value",
                              inputmode: rows.dataset.pair === "number" ? "numeric" : null });
      }
      const shown = name || `another player ${index - names.length + 1}`;
      return el("div", { class: "pair-row", "data-name": name },
        open ? el("label", { for: nameId, class: "visually-hidden", text: `Name of ${shown}` }) : null, who,
        el("label", { for: valueId, text: open ? `${shown}: ${rows.dataset.value}` : name }), value);
    }));
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

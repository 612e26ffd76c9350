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
    } else if (field.kind === "roster") {
      // The roster is written here or read from a file on this device: the console is never
      // given a file name on its own machine.
      control = el("textarea", { id, name: field.name, rows: 5, required: true,
                                 "aria-describedby": described, placeholder: "Ana\nBo" });
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
      return el("div", { class: "field roster" }, label, control,
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

  function form(action) {
    const result = el("p", { class: "result", role: "status", "aria-live": "polite",
                             id: `${action.verb}-result` });
    const node = el("form", { class: "action", "data-verb": action.verb,
                              "aria-labelledby": `${action.verb}-title` },
                    el("h3", { id: `${action.verb}-title`, text: action.verb }),
                    el("p", { class: "help", text: action.help }),
                    ...action.fields.map((field) => input(action.verb, field)),
                    el("button", { type: "submit", text: action.verb }), result);
    node.addEventListener("submit", async (submitted) => {
      submitted.preventDefault();
      const values = {};
      for (const field of action.fields) {
        const control = node.elements[field.name];
        values[field.name] = field.kind === "flag" ? control.checked : control.value;
      }
      result.className = "result pending";
      result.textContent = "Sending…";
      try {
        const response = await fetch(`/gm/actions/${encodeURIComponent(action.verb)}`, {
          method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify(values) });
        if (response.status === 401) { TableView.sessionEnded(); return; }
        const body = await response.json();
        if (response.ok && body.ok) {
          result.className = "result accepted";
          result.textContent = body.reply.waiting ? `Done: waiting for ${body.reply.waiting}`
                                                  : "Done.";
        } else {
          result.className = "result refusal";
          result.textContent = "Refused: " + (body.reply ? body.reply.error : body.error);
        }
      } catch (failed) {
        result.className = "result refusal";
        result.textContent = "Not sent: the console is unreachable.";
      }
    });
    return node;
  }

  async function loadActions() {
    const response = await fetch("/gm/actions");
    if (response.status === 401) { TableView.sessionEnded(); return; }
    const body = await response.json();
    document.getElementById("game-name").textContent = `(${body.game})`;
    document.getElementById("actions").replaceChildren(...body.actions.map(form));
    document.body.dataset.game = body.game;
  }
  // The seats' screens: a code per seat, shown here for the players to type on their phones.
  const codesButton = document.getElementById("seat-codes-button");
  codesButton.addEventListener("click", async () => {
    const result = document.getElementById("seat-codes-result");
    const list = document.getElementById("seat-codes");
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
    if (game && document.body.dataset.game && game !== document.body.dataset.game) loadActions();
  });
})();

// A seat's own screen: follows /seat/N/events (the room's picture with this seat's view).
"use strict";
(() => {
  const seat = document.body.dataset.seatNumber;
  TableView.follow(`/seat/${seat}/events`, document.body, `/seat/${seat}/session`,
                   `/seat/${seat}?ended=1`);
  document.addEventListener("table-rendered", (event) => {
    const state = event.detail.state || {};
    document.getElementById("seat-name").textContent = state.seat ? `(${state.seat})` : "";
    document.getElementById("your-turn").hidden = !state.your_turn;
    // the seat's own place on the table, marked among the others
    for (const box of document.querySelectorAll("#seats .seat[data-name]")) {
      box.classList.toggle("mine", box.dataset.name === state.seat);
    }
  });
})();

// The stream overlay: the room's public feed (/events), drawn by the room's own TableView on
// a transparent page; the layout is overlay.css's. ?show=prompt,dice,seats,events,alerts,final
// names the parts the streamer wants (all of them when absent); the others are not drawn.
"use strict";
(() => {
  const PARTS = ["prompt", "dice", "seats", "events", "alerts", "final"];
  const asked = new URLSearchParams(window.location.search).get("show");
  const wanted = asked === null ? PARTS
    : asked.split(",").map((part) => part.trim().toLowerCase()).filter((part) => PARTS.includes(part));
  document.body.dataset.show = wanted.join(" ");
  for (const node of document.querySelectorAll("[data-part]")) {
    node.classList.toggle("not-shown", !wanted.includes(node.dataset.part));
  }
  // The band keeps to its fifth of the frame: smaller, a step at a time, while it overflows.
  const band = document.querySelector("main.band");
  const overflowing = () => band.scrollHeight > band.clientHeight + 1 || band.scrollWidth > band.clientWidth + 1;
  const fit = () => TableView.fit(overflowing, 0.6);
  window.addEventListener("resize", fit);
  document.addEventListener("table-rendered", fit);
  TableView.follow("/events", document.body);
})();

// The stream overlay: the room's public feed (/events), drawn by the room's own TableView on
// a transparent page; the layout is overlay.css's.
"use strict";
TableView.follow("/events", document.body);

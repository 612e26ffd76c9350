// The room view: follows /events and draws each snapshot.
"use strict";
TableView.follow("/events", document.body);

// A game's screen whose seats fail (tests/console/test_game_screens.py): its seats are drawn
// as any game's, and the rest of its screen still draws.
"use strict";
TableView.addGame("faultyroll", () => ({
  seats() { throw new Error("a bug in the seats"); },
  phase: () => ["a faulty game's own phase"],
}));

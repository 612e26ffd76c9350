// A game's screen with a syntax error (tests/console/test_game_screens.py): the console must
// draw every other game as before.
"use strict";
TableView.addGame("brokenroll", () => ({ seats( }));

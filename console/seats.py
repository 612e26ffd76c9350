"""The seats' own screens: a short code per seat, given out by a game master, opens `/seat/N`.

A seat's view (`seat/N/state`, what that player alone may see) is read by the game master's
own broker login, as everything hidden is (the console holds no rights of its own): a game
master asks for codes on their page, a player types their seat's code on their phone, and the
phone then follows that seat's view for as long as the game master's login lasts. A code
opens one seat only, on one phone unless the game master allows more (`phones`); the page it
opens is drawn from the public snapshot with the state replaced by that seat's view, so no
other seat's hidden information can reach it.

Wrong codes are counted per client address (console/throttle.py): a few free, then a wait
that doubles. They withdraw nothing: a stranger's guesses cannot take the seats' codes away
from the players (issue 51, C4), and 31^6 codes at a guess a minute are out of reach.
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass
from typing import Any

from .feed import TableFeed, hide_face_down
from .sessions import Sessions
from .throttle import Throttle

# Six letters from an alphabet without look-alikes (no 0/O, 1/I/L): quick to type on a phone.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
MAX_PHONES_PER_CODE = 8  # what a game master may allow one code to join


class JoinRefused(Exception):
    """A seat's code that does not open it; the message says what to do."""


@dataclass(frozen=True, slots=True)
class SeatPass:
    """What a code or a phone's cookie opens: one seat, through one game master's login."""

    seat: int
    session: str  # the game master's session token


class SeatScreens:
    """The codes given out and the phones that joined with them."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.throttle = Throttle("seat code")
        self._codes: dict[str, SeatPass] = {}
        self._joins_left: dict[str, int] = {}  # code -> phones it may still join
        self._used: set[str] = set()  # codes of this issue that joined all their phones
        self._phones: dict[str, SeatPass] = {}
        self._lock = threading.Lock()

    def issue(self, session: str, seats: list[int], phones: int = 1) -> dict[int, str]:
        """New codes for `seats`, each joining `phones` phones, replacing the ones given
        before (phones that joined stay)."""
        if not 1 <= phones <= MAX_PHONES_PER_CODE:
            raise ValueError(f"phones: 1 to {MAX_PHONES_PER_CODE} per code, got {phones}")
        codes = {seat: _new_code() for seat in seats}
        with self._lock:
            self._codes = {code: SeatPass(seat, session) for seat, code in codes.items()}
            self._joins_left = {code: phones for code in codes.values()}
            self._used = set()
        return codes

    def join(self, seat: int, code: str, client: str = "") -> str:
        """A phone's token for `seat`, or JoinRefused (TryLater while `client`, the phone's
        address, must wait after wrong codes)."""
        typed = "".join(code.split()).upper()
        self.throttle.begin(client)
        right: bool | None = False
        try:
            with self._lock:
                found = self._codes.get(typed)
                if found is None and typed in self._used:
                    right = None  # the code was right; a phone of its own needs another
                    raise JoinRefused(
                        "This code has joined its phone already: ask the game master for a "
                        "new code for this phone."
                    )
                if found is None or found.seat != seat:
                    raise JoinRefused(
                        f"That is not seat {seat}'s code. The game master's page shows each seat's."
                    )
                right = True
                left = self._joins_left.get(typed, 0) - 1
                if left <= 0:  # used up: the next phone needs a code of its own
                    self._codes.pop(typed, None)
                    self._joins_left.pop(typed, None)
                    self._used.add(typed)
                else:
                    self._joins_left[typed] = left
                token = secrets.token_urlsafe(24)
                self._phones[token] = found
        finally:
            if right is None:
                self.throttle.abandon(client)
            else:
                self.throttle.done(client, right=right)
        if self.sessions.get(found.session) is None:
            raise JoinRefused(
                "The game master who gave this code has logged out: ask for a new one."
            )
        return token

    def feed(self, seat: int, token: str | None) -> TableFeed | None:
        """The game master's feed a phone follows its seat through, or None."""
        with self._lock:
            found = self._phones.get(token) if token is not None else None
        if found is None or found.seat != seat:
            return None
        feed = self.sessions.get(found.session)
        if feed is None:
            with self._lock:
                self._phones.pop(str(token), None)
        return feed

    @property
    def waiting_codes(self) -> int:
        with self._lock:
            return len(self._codes)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def seat_snapshot(room: TableFeed, seats: TableFeed, seat: int) -> str:
    """The snapshot a seat's screen draws: the room's public picture, with the state replaced
    by that seat's own view, other players' face-down cards blanked in case a view named one."""
    public: dict[str, Any] = room.snapshot()
    view = seats.seat_views.get(seat)
    if view is not None:
        view = _hide_others(view)
    public.update(
        audience="seat",
        seat=seat,
        state=view,
        version=room.version * 100_000 + seats.version,
    )
    return json.dumps(public, separators=(",", ":"))


def _hide_others(view: dict[str, Any]) -> dict[str, Any]:
    """The seat's view with every other player's face-down cards blanked."""
    own = view.get("seat")
    players = view.get("players")
    if not isinstance(players, list):
        return view
    shown = [
        player if isinstance(player, dict) and player.get("name") == own else hide_face_down(player)
        for player in players
    ]
    return {**view, "players": shown}

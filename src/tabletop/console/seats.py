"""The seats' own screens: a short code per seat, given out by a game master, opens `/seat/N`.

A seat's view (`seat/N/state`, what that player alone may see) is read by a game master's own
broker login, as everything hidden is (the console holds no rights of its own): a game master
asks for codes on their page, a player types their seat's code on their phone (or scans its
QR code), and the phone then follows that seat's view through whichever game master is
logged in. A code opens one seat only, on one phone unless the game master allows more
(`phones`); the page it opens is drawn from the public snapshot with the state replaced by
that seat's view, so no other seat's hidden information can reach it.

A phone's join belongs to the table, not to the game master who gave the code (issue 48 item
7): it stays when that game master logs out while another is logged in (the phone follows the
other's login; with none, the page says it waits for one), and across a restart of the
console, which keeps the joins in a file of its own (`store`: a digest of each phone's token
and its seat, never the token itself). A join lasts the console's session lifetime from the
moment it was made; `forget()` ends every phone's.

Wrong codes are counted per client address (src/tabletop/console/throttle.py): a few free, then a
wait that doubles. They withdraw nothing: a stranger's guesses cannot take the seats' codes away
from the players (issue 51, C4), and 31^6 codes at a guess a minute are out of reach.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from . import ConsoleError
from .feed import TableFeed, hide_face_down
from .sessions import Sessions
from .throttle import Throttle

log = logging.getLogger(__name__)

# Six letters from an alphabet without look-alikes (no 0/O, 1/I/L): quick to type on a phone.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
MAX_PHONES_PER_CODE = 8  # what a game master may allow one code to join
MAX_PHONES = 512  # joins kept at once: the oldest goes first beyond this
STORE_FORMAT = 1


class JoinRefused(Exception):
    """A seat's code that does not open it; the message says what to do."""


class SeatActionRefused(ConsoleError):
    """A seat's decision the console cannot send as it came; the message is for the player."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def default_seats_file(table: str) -> Path:
    """Where a table's seat joins are kept unless the console is told otherwise: beside the
    corrections, under the data directory."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(base) / "tabletop" / "seats" / f"{table}.json"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SeatScreens:
    """The codes given out and the phones that joined with them (kept in `store`, if any)."""

    def __init__(
        self,
        sessions: Sessions,
        store: Path | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.sessions = sessions
        self.store = store
        self.clock = clock
        self.throttle = Throttle("seat code")
        self._codes: dict[str, int] = {}  # code -> its seat
        self._joins_left: dict[str, int] = {}  # code -> phones it may still join
        self._used: set[str] = set()  # codes of this issue that joined all their phones
        # digest of a phone's token -> (its seat, when its join ends: seconds since the epoch)
        self._phones: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()
        self._load()

    # -- the codes ----------------------------------------------------------------------------

    def issue(self, seats: list[int], phones: int = 1) -> dict[int, str]:
        """New codes for `seats`, each joining `phones` phones, replacing the ones given
        before (phones that joined stay)."""
        if not 1 <= phones <= MAX_PHONES_PER_CODE:
            raise ValueError(f"phones: 1 to {MAX_PHONES_PER_CODE} per code, got {phones}")
        codes = {seat: _new_code() for seat in seats}
        with self._lock:
            self._codes = {code: seat for seat, code in codes.items()}
            self._joins_left = {code: phones for code in codes.values()}
            self._used = set()
        return codes

    def code_for(self, seat: int) -> str | None:
        """The seat's code given out last, while it may still join a phone."""
        with self._lock:
            return next((code for code, number in self._codes.items() if number == seat), None)

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
                if found is None or found != seat:
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
                self._prune(self.clock())
                if len(self._phones) >= MAX_PHONES:
                    oldest = min(self._phones, key=lambda key: self._phones[key][1])
                    del self._phones[oldest]
                self._phones[_digest(token)] = (seat, self.clock() + self.sessions.lifetime)
                self._save()
        finally:
            if right is None:
                self.throttle.abandon(client)
            else:
                self.throttle.done(client, right=right)
        return token

    # -- the phones ---------------------------------------------------------------------------

    def joined(self, seat: int, token: str | None) -> bool:
        """Whether a phone's token opens `seat` (its join made and not ended)."""
        if token is None:
            return False
        key = _digest(token)
        with self._lock:
            found = self._phones.get(key)
            if found is None or found[0] != seat:
                return False
            if found[1] <= self.clock():
                del self._phones[key]
                self._save()
                return False
        return True

    def seconds_left(self, token: str | None) -> float:
        """How long a phone's join lasts (0 if none): its cookie's Max-Age."""
        with self._lock:
            found = self._phones.get(_digest(token)) if token is not None else None
        return 0.0 if found is None else max(0.0, found[1] - self.clock())

    def feed(self, seat: int, token: str | None) -> TableFeed | None:
        """The feed a joined phone follows its seat through now: a logged-in game master's
        (None when the phone has not joined `seat`, or no game master is logged in)."""
        return self.sessions.live_feed() if self.joined(seat, token) else None

    def forget(self) -> int:
        """Ends every phone's join (and the codes not yet used); returns how many phones."""
        with self._lock:
            count = len(self._phones)
            self._phones.clear()
            self._codes.clear()
            self._joins_left.clear()
            self._used.clear()
            self._save()
        return count

    @property
    def phones(self) -> int:
        with self._lock:
            return len(self._phones)

    @property
    def waiting_codes(self) -> int:
        with self._lock:
            return len(self._codes)

    # -- the store ----------------------------------------------------------------------------

    def _prune(self, now: float) -> None:
        for key in [key for key, (_, ends) in self._phones.items() if ends <= now]:
            del self._phones[key]

    def _load(self) -> None:
        """The joins a console before this one kept; a store it cannot read is started anew
        (the phones then join again), said in the log."""
        if self.store is None or not self.store.exists():
            return
        try:
            raw = json.loads(self.store.read_text(encoding="utf-8"))
            if not isinstance(raw, dict) or raw.get("format") != STORE_FORMAT:
                raise ValueError("not a file of seat joins this console writes")
            phones = raw["phones"]
            if not isinstance(phones, Mapping):
                raise ValueError("no phones in it")
            kept = {
                str(key): (int(value["seat"]), float(value["ends"]))
                for key, value in list(phones.items())[:MAX_PHONES]
            }
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning(
                "the seats' joins in %s are not read (%s): phones join anew", self.store, error
            )
            return
        self._phones = kept
        self._prune(self.clock())

    def _save(self) -> None:
        """Writes the joins (under the lock): a new file put in place of the old one, readable
        by this user only."""
        if self.store is None:
            return
        body = {
            "format": STORE_FORMAT,
            "phones": {
                key: {"seat": seat, "ends": ends} for key, (seat, ends) in self._phones.items()
            },
        }
        try:
            self.store.parent.mkdir(parents=True, exist_ok=True)
            fresh = self.store.with_name(f".{self.store.name}.{secrets.token_hex(4)}")
            descriptor = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                json.dump(body, out)
            os.replace(fresh, self.store)
        except OSError as error:
            log.warning("the seats' joins are not kept in %s: %s", self.store, error)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def seat_snapshot(room: TableFeed, seats: TableFeed | None, seat: int) -> str:
    """The snapshot a seat's screen draws: the room's public picture, with the state replaced
    by that seat's own view, other players' face-down cards blanked in case a view named one.

    `seats`: the logged-in game master's feed the seat's view comes through; None while no
    game master is logged in (`game_master` is false, and the state is the room's)."""
    public: dict[str, Any] = room.snapshot()
    view = seats.seat_views.get(seat) if seats is not None else None
    if view is not None:
        view = _hide_others(view)
    public.update(
        audience="seat",
        seat=seat,
        state=view if seats is not None else public.get("state"),
        game_master=seats is not None,
        version=room.version * 100_000 + (seats.version if seats is not None else 0),
    )
    return json.dumps(public, separators=(",", ":"))


# What a seat's phone may send: per verb, its fields and what each may hold. The player is the
# seat's own, set here; the daemon checks the rest against the game
# (src/tabletop/daemon/seat_commands.py).
BET_ACTIONS = ("check", "call", "bet", "raise", "fold", "all_in")
LUCK_USES = ("bonus", "upgrade", "max_damage", "reduce_damage", "reroll")
MAX_DICE = 7  # a hand of Lucky Seven


def _die_list(value: Any, field: str, least: int) -> list[int]:
    if (
        not isinstance(value, list)
        or not least <= len(value) <= MAX_DICE
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)
    ):
        raise SeatActionRefused(
            f"The dice: tap {'at least one' if least else 'the'} die values, each 1 to 6.",
            field,
        )
    return list(value)


def seat_command(body: Any, seat: int, player: str) -> dict[str, Any]:
    """The command a seat's phone asks for (a JSON object), for the seat's own `player`, or
    SeatActionRefused in words; `answers` is the seat's version the phone answered."""
    if not isinstance(body, dict):
        raise SeatActionRefused("Send the decision as the page does.", "cmd")
    verb = body.get("cmd")
    answers = body.get("answers")
    if isinstance(answers, bool) or not isinstance(answers, int):
        raise SeatActionRefused(
            "Send the decision as the page does (the moment it answers).", "answers"
        )
    command: dict[str, Any] = {"cmd": verb, "player": player, "seat": seat, "answers": answers}
    allowed: set[str] = {"cmd", "answers"}
    if verb == "bet":
        action = body.get("action")
        if action not in BET_ACTIONS:
            raise SeatActionRefused("Choose check, call, bet, raise, fold or all in.", "action")
        command["action"] = action
        allowed.add("action")
        if action in ("bet", "raise"):
            amount = body.get("amount")
            if (
                isinstance(amount, bool)
                or not isinstance(amount, int)
                or not 1 <= amount <= 100_000
            ):
                raise SeatActionRefused("How much: a whole number of dollars, 1 or more.", "amount")
            command["amount"] = amount
            allowed.add("amount")
    elif verb == "draw":
        command["keep"] = _die_list(body.get("keep"), "keep", 0)
        allowed.add("keep")
    elif verb == "poker_hand":
        command["values"] = _die_list(body.get("values"), "values", 1)
        allowed.add("values")
    elif verb == "spend_luck":
        use = body.get("use")
        if use not in LUCK_USES:
            raise SeatActionRefused("Choose what the Luck Point buys.", "use")
        command["use"] = use
        allowed.add("use")
    elif verb == "lucky":
        replace = body.get("replace")
        if not isinstance(replace, bool):
            raise SeatActionRefused("Answer yes or no.", "replace")
        command["replace"] = replace
        allowed.add("replace")
    elif verb in ("fold", "keep", "pass"):
        pass
    else:
        raise SeatActionRefused(
            "Only the game master can do that: your phone sends your own decisions.", "cmd"
        )
    extra = sorted(str(key) for key in body if key not in allowed)
    if extra:
        raise SeatActionRefused("Send the decision as the page does.", extra[0])
    return command


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

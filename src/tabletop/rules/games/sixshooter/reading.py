"""Reading a physical Six Shooter table: what the mat and the dice show, turned into commands.

The reader compares what the mat shows in each slot with what the rules expect there now, and
what the table does with what the game waits for:

- the deal is read as cards land face-down (`new_game` / `start_adventure` get the `hands`);
- in setup, the first card a player turns face-up is their `reveal`;
- a face-up card lifted from its slot while a challenge roll is awaited is that card being used
  (`boost`, by its owner or as help);
- a die at rest while a roll is awaited is that `roll`;
- a card laid face-up into the slot a Lucky Number discard emptied is the replacement (`lucky`);
- cards laid on the draw pad while turn order is being drawn are the `draws`.

When the rules move a card (a flip or a discard after Rolling Your Hand), the table lags until
the player does it: that is an instruction, not a mistake. Anything else that does not match
(a wrong card moved, a card flipped that should not be) is never applied: after a grace period
for bumps and slides it raises an alert naming the slot to fix, and the reader takes no die
until the table matches again. The reader does no I/O and reads no clock: callers pass `now`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import Card, parse_card
from ..game import Reroll
from ..reading import EMPTY, Action, Alert, AlertCleared, Execute, SlotView
from .engine import draws_decide_order
from .events import RollPurpose
from .model import HAND_SIZE, Phase, SlotState, Status
from .state import GameState, PendingLucky, PendingRoll


@dataclass(slots=True)
class _Mismatch:
    since: float
    message: str


@dataclass(slots=True)
class TableReader:
    """Turns mat and dice observations into commands, instructions and alerts for one table."""

    seats: Sequence[str]
    grace: float = 1.5
    seen: dict[tuple[int, int], SlotView] = field(default_factory=dict)
    alerts: dict[str, str] = field(default_factory=dict)
    instructions: list[str] = field(default_factory=list)
    awaiting_deal: dict[str, Any] | None = None  # new_game / start_adventure waiting for cards
    awaiting_draws: dict[str, Any] | None = None  # turn_order waiting for cards on the pad
    # Each slot's view the last time table and rules agreed on it: a slot still showing that
    # view while the rules expect another lags behind the rules (an instruction); a slot that
    # shows something else was changed by a player (a mistake, unless it is a legal move).
    _agreed: dict[tuple[int, int], SlotView] = field(default_factory=dict)
    _mismatches: dict[tuple[int, int], _Mismatch] = field(default_factory=dict)
    _proposed: set[str] = field(default_factory=set)
    # Slots holding a card when a deal was asked for after an earlier deal: they count
    # toward the new deal only once that card left, so old cards are not read as the deal.
    _stale: dict[tuple[int, int], Card] = field(default_factory=dict)
    _refusals: set[str] = field(default_factory=set)

    # -- what arrives -----------------------------------------------------------------------

    def request(self, state: GameState, command: dict[str, Any], now: float) -> list[Action]:
        """A game master's command that needs the table: a deal, or a turn-order draw without
        cards given. Returns the actions it causes now (none until the cards are seen)."""
        name = command.get("cmd")
        if (
            name in ("new_game", "start_adventure")
            and "hands" not in command
            and "deck" not in command
        ):
            self.awaiting_deal = dict(command)
            # After a game or an adventure, every card still on the mat is from the last
            # hands; before the first game nothing is, so a deal may already be landing.
            self._stale = (
                {zone: view.card for zone, view in self.seen.items() if view.card is not None}
                if state.phase is not None
                else {}
            )
            actions = self._try_deal(state, now)
            # Said on the room's screen at once while the deal lands (the game has not begun,
            # so its prompt cannot say it); gone when the deal is read or refused.
            self.instructions = [self._deal_words(state)] if self.awaiting_deal else []
            return actions
        if name == "turn_order" and "draws" not in command:
            self.awaiting_draws = {**command, "draws": []}
            return []
        return [Execute(command)]

    def observe_slot(
        self, state: GameState, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]:
        """The mat reports what seat `seat` (0-based), slot `slot` (1-6) holds now."""
        return self.observe_slots(state, {(seat, slot): view}, now)

    def observe_slots(
        self, state: GameState, views: Mapping[tuple[int, int], SlotView], now: float
    ) -> list[Action]:
        """The mat reports what these slots hold now, all at once (a snapshot): judged
        together, so that a card not yet reported never looks lifted (a boost nobody made)."""
        for zone, view in views.items():
            self.seen[zone] = view
            if self._stale.get(zone) != view.card:
                # Lifted, or a different card laid (a mat may see the swap in one read).
                self._stale.pop(zone, None)
        if self.awaiting_deal is not None:
            return self._try_deal(state, now)
        return self.evaluate(state, now)

    def observe_pad(self, state: GameState, card: Card, now: float) -> list[Action]:
        """A card was laid on the draw pad."""
        if self.awaiting_draws is None:
            return [Alert("pad", f"{card} on the draw pad: no draw is awaited; put it back")]
        self.awaiting_draws["draws"].append(card.code)
        players = [str(name) for name in self.awaiting_draws.get("players", [])]
        draws = [parse_card(code) for code in self.awaiting_draws["draws"]]
        if not draws_decide_order(players, draws, state.options.ace_high):
            return []  # the others still draw, or tied players draw again
        return [Execute(dict(self.awaiting_draws))]

    def observe_dice(
        self, state: GameState, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        """Dice came to rest in the tray with these values."""
        head = state.pending[0] if state.pending else None
        if not isinstance(head, PendingRoll):
            return [Alert("dice", "a die was thrown but no roll is awaited now")]
        if self.alerts:
            first = next(iter(self.alerts.values()))
            return [Alert("dice", f"the roll waits until the table is fixed: {first}")]
        if len(values) != 1:
            return [Alert("dice", f"{len(values)} dice in the tray: throw one die")]
        return [
            AlertCleared("dice"),
            Execute({"cmd": "roll", "value": values[0], "source": "dice"}),
        ]

    def refused(self, command: dict[str, Any], error: str) -> list[Action]:
        """The engine refused a command the table's actions amounted to: say so, keep going."""
        if command.get("cmd") == "turn_order" and "no more drawn cards" in error:
            return []  # a tie: the tied players draw again
        if command.get("cmd") == "turn_order":
            self.awaiting_draws = None
        key = f"refused:{command.get('cmd')}"
        self._refusals.add(key)
        return [Alert(key, error)]

    def applied(self, state: GameState, command: dict[str, Any], now: float) -> list[Action]:
        """A command was applied (from the table or the game master): re-read the table."""
        if command.get("cmd") == "turn_order":
            self.awaiting_draws = None
        if command.get("cmd") in ("new_game", "start_adventure"):
            self.awaiting_deal = None
        self._proposed.clear()
        cleared: list[Action] = [AlertCleared(key) for key in sorted(self._refusals)]
        self._refusals.clear()
        # A stray or cocked die is old news once the game has moved on: the next throw is
        # judged afresh (and a finished game leaves no alert standing).
        cleared.append(AlertCleared("dice"))
        return cleared + self.evaluate(state, now)

    def tick(self, state: GameState, now: float) -> list[Action]:
        """Time passed: a mismatch older than the grace period becomes an alert."""
        return self.evaluate(state, now)

    # -- comparing the table with the rules --------------------------------------------------

    def expected(self, state: GameState) -> dict[tuple[int, int], SlotView]:
        """What every slot should hold according to the rules."""
        out: dict[tuple[int, int], SlotView] = {}
        for seat, name in enumerate(self.seats):
            operator = state.operators.get(name)
            for slot in range(1, HAND_SIZE + 1):
                place = operator.slot(slot) if operator is not None else None
                if place is None or place.card is None or place.state is SlotState.DISCARDED:
                    out[(seat, slot)] = EMPTY
                else:
                    out[(seat, slot)] = SlotView(place.card, place.state is SlotState.FACE_UP)
        return out

    def evaluate(self, state: GameState, now: float) -> list[Action]:
        """Compares the mat with the rules: derives commands, instructions and alerts."""
        if state.phase in (None, Phase.FINISHED, Phase.BETWEEN_ADVENTURES):
            # Between adventures the hands are being gathered: nothing on the mat is checked.
            cleared: list[Action] = [AlertCleared(key) for key in self.alerts]
            self.alerts.clear()
            self._mismatches.clear()
            self.instructions = [] if self.awaiting_deal is None else [self._deal_words(state)]
            return cleared
        expected = self.expected(state)
        actions: list[Action] = []
        instructions: list[str] = []
        wrong: dict[tuple[int, int], str] = {}
        boosting = False
        for zone, want in expected.items():
            have = self.seen.get(zone, EMPTY)
            if have == want:
                self._agreed[zone] = want
                continue
            seat, slot = zone
            name = self.seats[seat]
            command = self._derived(state, name, slot, want, have)
            if command is not None and command["cmd"] == "boost":
                # "Only 1 card can be used on any given roll": of two cards lifted for one
                # roll (seen together, after the mat or the daemon was away) the first is
                # the boost, and the other is to be put back, as its slot's alert says.
                command = None if boosting else command
                boosting = True
            if command is not None:
                key = repr(sorted(command.items()))
                if key not in self._proposed:
                    self._proposed.add(key)
                    actions.append(Execute(command))
                continue
            fix = _fix(name, slot, want, have, state.discard)
            if self._agreed.get(zone) == have:
                instructions.append(fix)  # the rules moved this card; the player has not yet
            else:
                wrong[zone] = fix
        self.instructions = instructions
        actions += self._alerts(wrong, now)
        return actions

    def _derived(
        self, state: GameState, name: str, slot: int, want: SlotView, have: SlotView
    ) -> dict[str, Any] | None:
        """The command a difference means, when it is a legal move's physical form."""
        operator = state.operators.get(name)
        if operator is None or operator.status is not Status.ACTIVE:
            return None
        if (
            state.phase is Phase.SETUP
            and not operator.revealed
            and want.card is not None
            and have == SlotView(want.card, True)
        ):
            return {"cmd": "reveal", "player": name, "slot": slot, "source": "mat"}
        head = state.pending[0] if state.pending else None
        challenge = state.challenge
        if (
            isinstance(head, PendingRoll)
            and head.purpose is RollPurpose.CHALLENGE
            and challenge is not None
            and not challenge.boosted
            and want.face_up
            and have == EMPTY
        ):
            card = {"player": name, "slot": slot}
            return {"cmd": "boost", "player": challenge.player, "card": card, "source": "mat"}
        if (
            isinstance(head, PendingLucky)
            and head.player == name
            and head.slot == slot
            and want == EMPTY
            and have.card is not None
            and have.card != head.card  # the discarded card still lying there is lag
            and have.face_up
        ):
            return {
                "cmd": "lucky",
                "player": name,
                "replace": True,
                "card": have.card.code,
                "source": "mat",
            }
        return None

    def _alerts(self, wrong: dict[tuple[int, int], str], now: float) -> list[Action]:
        actions: list[Action] = []
        for zone in list(self._mismatches):
            if zone not in wrong:
                del self._mismatches[zone]
                key = _zone_key(zone)
                if self.alerts.pop(key, None) is not None:
                    actions.append(AlertCleared(key))
        for zone, fix in wrong.items():
            mismatch = self._mismatches.get(zone)
            if mismatch is None or mismatch.message != fix:
                mismatch = self._mismatches[zone] = _Mismatch(now, fix)
            key = _zone_key(zone)
            if now - mismatch.since >= self.grace and self.alerts.get(key) != fix:
                self.alerts[key] = fix
                actions.append(Alert(key, fix, zone[0], zone[1]))
        return actions

    def _deal_words(self, state: GameState) -> str:
        """What the table waits for while a deal is awaited, in the dealer's words."""
        command = self.awaiting_deal or {}
        names = self._deal_names(state, command)
        return (
            f"deal {HAND_SIZE} cards face down into the slots of each player "
            f"({', '.join(names)}): the game starts when every hand is on the mat"
        )

    @staticmethod
    def _deal_names(state: GameState, command: dict[str, Any]) -> list[str]:
        if command.get("cmd") == "new_game":
            return [
                str(p["name"])
                for p in command.get("players", [])
                if isinstance(p, dict) and "name" in p
            ]
        return [
            op.name for op in state.operators.values() if op.status is Status.ACTIVE or op.returning
        ]

    def _try_deal(self, state: GameState, now: float) -> list[Action]:
        command = self.awaiting_deal
        assert command is not None
        names = self._deal_names(state, command)
        hands: dict[str, list[str]] = {}
        for name in names:
            if name not in self.seats:
                self.awaiting_deal = None
                return [
                    Alert(
                        "deal", f"{name} has no seat at this table (seats: {', '.join(self.seats)})"
                    )
                ]
            seat = self.seats.index(name)
            zones = [(seat, slot) for slot in range(1, HAND_SIZE + 1)]
            views = [self.seen.get(zone, EMPTY) for zone in zones]
            if any(view.card is None or view.face_up for view in views) or any(
                zone in self._stale for zone in zones
            ):
                return []  # the deal is still landing
            hands[name] = [view.card.code for view in views if view.card is not None]
        return [Execute({**command, "hands": hands, "source": "mat"})]


def _zone_key(zone: tuple[int, int]) -> str:
    return f"s{zone[0] + 1}.{zone[1]}"


def _fix(
    name: str, slot: int, want: SlotView, have: SlotView, discard: Collection[Card] = ()
) -> str:
    """What a player must do to make a slot match, in plain words.

    The words go to every display at the table, so they never name a card that is, or
    should be, face-down, unless the rules have already shown it (it is in the discard pile):
    only the card's owner may know it ("Each player should place their six cards
    face-down")."""
    where = f"{name}'s slot {slot}"
    shown = have.face_up or (have.card is not None and have.card in discard)
    lying = have.card if shown else "the face-down card"
    if want == EMPTY:
        return f"{where}: discard {lying} (the slot should be empty)"
    if not want.face_up and have.face_up and have.card == want.card:
        return f"{where}: turn {want.card} face-down"  # it lies face-up for all to see
    wanted = want.card if want.face_up else "its own card"
    face = "face-up" if want.face_up else "face-down"
    if have.card is None:
        return f"{where}: put {wanted} back, {face}"
    if have.card != want.card:
        return f"{where}: {lying} does not belong here; put {wanted} back, {face}"
    return f"{where}: turn {wanted} {face}"

"""Reading a Six-Gun Showdown table: the mat's slots and touch pads in, commands and alerts out.

Seat N's slots 1-6 hold that player's bullets. The reader turns:

- six face-down cards of the player's own deck, left alone for the grace period, into `load`
  (laying them and taking the hands away is declaring "ready");
- a touch on a face-down bullet into `touch`, a bullet turned face up into `reveal`;
- the race after a Draw into a `race` result, judged from timestamps by `judge_race`:
  with touch pads, every touch on the defender's bullets; without, the moment each was first
  lifted or turned (the first lift or flip decides). The bullet the defender then turns face
  up was the defender's choice; a touch on any other of the defender's bullets was the
  attacker's hand. A touch that is not followed by that bullet being turned within
  `race_settle_ms` was the attacker's too. Where the pads are split (docs/mat.md, "Whose hand:
  split pads") a touch's side names the hand: the far half the attacker's, the near half the
  defender's, even on the bullet the defender turns (`credit_race`).

A card of the other player's deck, a standard playing card, or a card no deck knows is an
alert naming the slot; so is a touch or a turn out of turn (the engine's refusal, in words).
The reader does no I/O and reads no clock: callers pass `now` (seconds) and the mat's `at_ms`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..game import Reroll
from ..reading import EMPTY, Action, Alert, AlertCleared, Execute, SlotView
from .decks import BULLETS, split_code
from .engine import reroll_offer
from .model import RACE_SETTLE_MS, TIE_WINDOW_MS
from .race import SECOND_HAND_MS, RaceTouch, RaceWinner, TouchSide, credit_race, judge_race
from .state import GameState, Phase

__all__ = ["RaceWinner", "ShowdownReader", "judge_race"]


_SIDES = {"near": TouchSide.NEAR, "far": TouchSide.FAR, "unknown": TouchSide.UNKNOWN}


def _sides_said(touches: Sequence[RaceTouch]) -> str:
    """What a race's `how` adds when split pads named the hands."""
    if any(t.side is not TouchSide.UNKNOWN for t in touches):
        return ", whose hand from split pads"
    return ""


# How long a turned bullet waits for its own touch to arrive before the race is decided
# without it: the touch is an event and the turn a snapshot, and either may come first.
TOUCH_LAG_S = 0.25


@dataclass(slots=True)
class _Race:
    """What the reader saw on the defender's bullets since the attack began."""

    touches: list[RaceTouch] = field(default_factory=list)  # every touch, with its side
    moves: dict[int, int] = field(default_factory=dict)  # slot -> first lift or turn (ms of now)
    seen_at: float | None = None  # `now` of the first touch or move
    decided: bool = False
    # The defender's bullet turned before its own touch reached us: (slot, `now` of the turn).
    turned: tuple[int, float] | None = None


@dataclass(slots=True)
class ShowdownReader:
    """Turns mat slots and touches into Six-Gun Showdown commands, instructions and alerts."""

    seats: Sequence[str]
    grace: float = 1.5
    seen: dict[tuple[int, int], SlotView] = field(default_factory=dict)
    instructions: list[str] = field(default_factory=list)
    alerts: dict[str, str] = field(default_factory=dict)
    _ready_since: dict[int, float] = field(default_factory=dict)
    _stale: dict[tuple[int, int], SlotView] = field(default_factory=dict)
    _round: int = 0
    _race: _Race = field(default_factory=_Race)
    _proposed: set[str] = field(default_factory=set)
    _wrong_since: dict[tuple[int, int], tuple[float, str]] = field(default_factory=dict)
    # Bullets turned when their reveal was refused (out of turn): never counted later on
    # their own; the player turns them back face down (or the game master counts them).
    _refused: set[tuple[int, int]] = field(default_factory=set)
    # The last touch on each slot (mat ms): a split pad's other half touched soon after is the
    # same finger spreading over the pad.
    _last_touch: dict[tuple[int, int], int] = field(default_factory=dict)

    # -- the interface ----------------------------------------------------------------------

    def request(self, state: Any, command: dict[str, Any], now: float) -> list[Action]:
        return [Execute(command)]

    def observe_slot(
        self, state: GameState, seat: int, slot: int, view: SlotView, now: float
    ) -> list[Action]:
        # A slot never reported (a restarted daemon's reader, hearing the mat's snapshot) is
        # what lies there, not a move: taken for one, a race was decided for the attacker
        # that nobody moved in.
        known = (seat, slot) in self.seen
        before = self.seen.get((seat, slot), EMPTY)
        self.seen[(seat, slot)] = view
        if self._stale.get((seat, slot)) != view:
            self._stale.pop((seat, slot), None)
        if not view.face_up:
            self._refused.discard((seat, slot))
            # A card turned back (or lifted) is a new reveal when it is turned up again, even
            # if no command was applied in between to clear the proposals.
            self._forget_proposals(seat, slot)
        actions = self._identity(state, seat, slot, view)
        if state.phase is Phase.RACE and not self._race.decided and known:
            decided = self._race_move(state, (seat, slot), before, view, now)
            if decided:
                return actions + decided  # the rest is read once the race is applied
        return actions + self.evaluate(state, now)

    def observe_touch(
        self,
        state: GameState,
        seat: int,
        slot: int,
        at_ms: int,
        now: float,
        *,
        side: str | None = None,
    ) -> list[Action]:
        """A touch pad under seat `seat`'s slot `slot` was touched at the mat's `at_ms`; `side`
        is the half of a split pad reached first ("near", "far", "unknown"; None: a whole
        pad)."""
        name = self._player(state, seat)
        if name is None or not state.in_play:
            return []
        touch_side = _SIDES.get(side or "unknown", TouchSide.UNKNOWN)
        previous = self._last_touch.get((seat, slot))
        self._last_touch[(seat, slot)] = at_ms
        hand = state.hands.get(name)
        bullet = hand.bullet(slot) if hand is not None else None
        if bullet is None or bullet.face_up:
            return []
        phase = state.phase
        if phase is Phase.RACE:
            if name != state.defender:
                return [self._alert(f"touch.s{seat + 1}.{slot}", _drawn(state), seat, slot)]
            race = self._race
            if not race.decided:
                race.touches.append(RaceTouch(slot, at_ms, touch_side))
                if race.seen_at is None:
                    race.seen_at = now
                if race.turned is not None and race.turned[0] == slot:
                    return self._turned(state, slot, now)  # the touch the turn waited for
            return []
        if side is not None and previous is not None and 0 <= at_ms - previous < SECOND_HAND_MS:
            return []  # the other half of a split pad: the same finger spreading over it
        if touch_side is TouchSide.FAR:
            # A hand from across the table, not the owner's: "a player cannot touch any of
            # their bullets until it is their turn" speaks of the owner's own hand, and another
            # player's finger chooses nothing for them.
            return []
        if phase is Phase.STARE_DOWN and state.turn not in (None, name):
            turn = state.turn
            return [
                self._alert(
                    f"touch.s{seat + 1}.{slot}",
                    f"{name} touched slot {slot} while it is {turn}'s turn: a player cannot "
                    f"touch any of their bullets until it is their turn ({turn}: reaching to "
                    f"shoot without a Draw? the game master enters gm reach {turn})",
                    seat,
                    slot,
                )
            ]
        if phase is Phase.DEFENDER_CHOOSES and hand is not None and hand.touched is not None:
            return []  # the defender has chosen: another touch is the attacker's late hand
        if phase in (Phase.STARE_DOWN, Phase.DEFENDER_CHOOSES, Phase.REPLY):
            return [Execute({"cmd": "touch", "player": name, "slot": slot, "at_ms": at_ms})]
        return []

    def observe_pad(self, state: Any, card: Any, now: float) -> list[Action]:
        return [Alert("pad", "Six-Gun Showdown uses no draw pad: take the card off the pad")]

    def observe_dice(
        self, state: GameState, values: Sequence[int], now: float, reroll: Reroll | None = None
    ) -> list[Action]:
        shooter = state.current_shooter
        if shooter is None:
            return [Alert("dice", "a die was thrown but no shot waits for one")]
        if len(values) != 1:
            return [Alert("dice", f"{len(values)} dice in the tray: {shooter} throws one die")]
        offer = reroll_offer(state)
        if offer is not None:
            command = {"cmd": "reroll", "player": offer[0], "value": values[0]}
        elif shooter in state.rolls:
            return []
        else:
            command = {"cmd": "roll", "player": shooter, "value": values[0]}
        return [AlertCleared("dice"), Execute(command)]

    def refused(self, command: dict[str, Any], error: str) -> list[Action]:
        player, slot = command.get("player"), command.get("slot")
        if (
            command.get("cmd") == "reveal"
            and isinstance(player, str)
            and player in self.seats
            and isinstance(slot, int)
        ):
            self._refused.add((list(self.seats).index(player), slot))
        key = f"refused:{command.get('cmd')}"
        self.alerts[key] = error
        return [Alert(key, error)]

    def applied(self, state: GameState, command: dict[str, Any], now: float) -> list[Action]:
        self._proposed.clear()
        cleared: list[Action] = [
            AlertCleared(key) for key in list(self.alerts) if key.startswith(("refused:", "touch."))
        ]
        for action in cleared:
            assert isinstance(action, AlertCleared)
            self.alerts.pop(action.key, None)
        if state.phase is not Phase.RACE:
            self._race = _Race()
        return cleared + self.evaluate(state, now)

    def tick(self, state: GameState, now: float) -> list[Action]:
        actions: list[Action] = []
        race = self._race
        settle = int(state.options.get("race_settle_ms", RACE_SETTLE_MS)) / 1000
        if (
            state.phase is Phase.RACE
            and not race.decided
            and race.turned is not None
            and now - race.turned[1] >= TOUCH_LAG_S
        ):
            # The turned bullet's own touch never came: decided on the touches there are.
            return self._turned(state, race.turned[0], now) + self.evaluate(state, now)
        if (
            state.phase is Phase.RACE
            and not race.decided
            and race.seen_at is not None
            and now - race.seen_at >= settle
        ):
            # Nobody turned a touched bullet: the touch was the attacker's hand (unless a split
            # pad says it was the defender's).
            if race.touches:
                attacker_ms, defender_ms = credit_race(race.touches, None)
                near = [t for t in race.touches if t.side is TouchSide.NEAR]
                slot = min(near, key=lambda t: t.at_ms).slot if near else None
                how = "a touch, not turned" + _sides_said(race.touches)
                actions += self._decide(state, attacker_ms, defender_ms, slot, how)
            else:
                first_move = min(race.moves.values())
                actions += self._decide(state, first_move, None, None, "a touch, not turned")
        return actions + self.evaluate(state, now)

    # -- the race ---------------------------------------------------------------------------

    def _race_move(
        self, state: GameState, zone: tuple[int, int], before: SlotView, view: SlotView, now: float
    ) -> list[Action]:
        """A defender's face-down bullet lifted or turned while the race is on."""
        seat, slot = zone
        defender = state.defender
        if defender is None or self._player(state, seat) != defender:
            return []
        hand = state.hands[defender]
        bullet = hand.bullet(slot)
        if bullet is None or bullet.face_up:
            return []
        race = self._race
        moved = view != before
        if moved:
            race.moves.setdefault(slot, int(now * 1000))
            if race.seen_at is None:
                race.seen_at = now
        if not view.face_up or view.code is None:
            return []  # lifted: the attacker's grab, or the defender's turn under way
        # The defender turned this bullet: it was their choice.
        if race.touches and all(touch.slot != slot for touch in race.touches):
            # A finger touches before it turns, but the turn (a snapshot) can reach us before
            # the touch (an event): the race waits a moment for it (`tick` decides without).
            race.turned = (slot, now)
            return []
        return self._turned(state, slot, now)

    def _turned(self, state: GameState, slot: int, now: float) -> list[Action]:
        """Decides the race now that the defender turned `slot`."""
        race = self._race
        race.turned = None
        if race.touches:
            attacker_ms, defender_ms = credit_race(race.touches, slot)
            how = "touch pads" + _sides_said(race.touches)
        else:
            defender_ms = race.moves.get(slot)
            others = [t for s, t in race.moves.items() if s != slot]
            attacker_ms = min(others) if others else None
            how = "first lift or turn"
        if attacker_ms is None and defender_ms is None:
            defender_ms = int(now * 1000)
        return self._decide(state, attacker_ms, defender_ms, slot, how)

    def _decide(
        self,
        state: GameState,
        attacker_ms: int | None,
        defender_ms: int | None,
        slot: int | None,
        how: str,
    ) -> list[Action]:
        self._race.decided = True
        window = int(state.options.get("tie_window_ms", TIE_WINDOW_MS))
        winner = judge_race(attacker_ms, defender_ms, window)
        command: dict[str, Any] = {"cmd": "race", "winner": winner.value, "how": how}
        if attacker_ms is not None:
            command["attacker_ms"] = attacker_ms
        if defender_ms is not None:
            command["defender_ms"] = defender_ms
        if winner is RaceWinner.DEFENDER and slot is not None:
            command["slot"] = slot
        return [Execute(command)]

    # -- the mat against the rules ----------------------------------------------------------

    def _player(self, state: GameState, seat: int) -> str | None:
        if seat >= len(self.seats):
            return None
        name = self.seats[seat]
        return name if name in state.players else None

    def _identity(self, state: GameState, seat: int, slot: int, view: SlotView) -> list[Action]:
        """An alert for a card that is not one of this seat's deck (cleared when it goes)."""
        key = f"card.s{seat + 1}.{slot}"
        name = self._player(state, seat)
        message = None
        if name is not None and (view.card is not None or view.code is not None):
            message = _foreign(state, name, slot, view)
        if message is None:
            if self.alerts.pop(key, None) is not None:
                return [AlertCleared(key)]
            return []
        return [self._alert(key, message, seat, slot)]

    def _alert(self, key: str, message: str, seat: int, slot: int) -> Alert:
        self.alerts[key] = message
        return Alert(key, message, seat, slot)

    def evaluate(self, state: GameState, now: float) -> list[Action]:
        """Compares the mat with the rules: loads, reveals, instructions and alerts."""
        if not state.in_play:
            # The game is over (or not begun): what was wrong on the mat no longer matters.
            self.instructions = []
            self._wrong_since.clear()
            cleared: list[Action] = [AlertCleared(key) for key in self.alerts]
            self.alerts.clear()
            return cleared
        if state.round != self._round:
            # A new round: cards still lying from the last one count once they have been lifted.
            first = self._round == 0 and state.round == 1
            self._round = state.round
            self._stale = {} if first else {z: v for z, v in self.seen.items() if v != EMPTY}
            self._ready_since.clear()
        actions: list[Action] = []
        instructions: list[str] = []
        wrong: dict[tuple[int, int], str] = {}
        for seat, name in enumerate(self.seats):
            if name not in state.players:
                continue
            if state.phase is Phase.LOAD:
                wrong.update(self._stale_bullets(state, seat, name))
                if not any(isinstance(a, Execute) for a in actions):
                    # one load at a time: the next is read again once this one is applied
                    actions += self._load(state, seat, name, now)
                continue
            if state.phase is Phase.DISCARD:
                continue
            hand = state.hands[name]
            for slot in range(1, BULLETS + 1):
                have = self.seen.get((seat, slot), EMPTY)
                bullet = hand.bullet(slot)
                if bullet is None:
                    continue
                code = state.decks[name].code(bullet.card)
                if bullet.face_up and have == SlotView(None, True, code):
                    continue
                if not bullet.face_up and have == SlotView(None, False, code):
                    continue
                if (seat, slot) in self._refused and have.face_up:
                    wrong[(seat, slot)] = (
                        f"{name}'s slot {slot} was turned out of turn: turn it face down again "
                        f"(or the game master counts it: gm reveal {name} {slot})"
                    )
                    continue
                if not bullet.face_up and have == SlotView(None, True, code):
                    command = self._reveal(state, name, slot, code)
                    if command is not None:
                        actions.append(command)
                    elif state.phase is Phase.SHOOT and name == state.defender:
                        instructions.append(
                            f"{name}'s slot {slot} was turned after the race was lost: it counts "
                            "as their next reveal once the shot is resolved"
                        )
                    continue
                if state.phase is Phase.RACE and name == state.defender and not bullet.face_up:
                    continue  # mid-grab or mid-turn: the race decides
                if have == EMPTY:
                    wrong[(seat, slot)] = f"{name}'s slot {slot}: put the bullet back"
                elif have.code == code and bullet.face_up:
                    wrong[(seat, slot)] = f"{name}'s slot {slot}: it was revealed; turn it face up"
        self.instructions = instructions
        return actions + self._mismatches(wrong, now)

    def _forget_proposals(self, seat: int, slot: int) -> None:
        if seat >= len(self.seats):
            return
        mark = (f"('player', {self.seats[seat]!r})", f"('slot', {slot!r})")
        self._proposed = {key for key in self._proposed if not all(m in key for m in mark)}

    def _reveal(self, state: GameState, name: str, slot: int, code: str) -> Execute | None:
        """The reveal a bullet turned face up means, unless it must wait for the shot."""
        if state.phase is Phase.SHOOT:
            return None
        if state.phase is Phase.RACE and not self._race.decided:
            return None  # `_race_move` decides first
        command = {"cmd": "reveal", "player": name, "slot": slot, "card": code}
        key = repr(sorted(command.items()))
        if key in self._proposed:
            return None
        self._proposed.add(key)
        return Execute(command)

    def _stale_bullets(self, state: GameState, seat: int, name: str) -> dict[tuple[int, int], str]:
        """Slots the loading player counts as laid that the mat has seen hold the same card
        since before this round began: a card lifted and laid back too quickly for the mat
        to see the slot empty, or one never lifted. The table cannot tell it from last
        round's bullet, so without a word it would wait for ever; it asks for it again."""
        if state.hands[name].loaded:
            return {}
        deck = state.decks[name]
        fresh, stale = 0, []
        for slot in range(1, BULLETS + 1):
            have = self.seen.get((seat, slot), EMPTY)
            split = split_code(have.code) if have.code is not None else None
            if have == EMPTY or have.face_up or split is None or split[0] != deck.name:
                continue
            if (seat, slot) in self._stale:
                stale.append(slot)
            else:
                fresh += 1
        if not stale or fresh + len(stale) < state.to_load[name]:
            return {}  # still laying, or last round's cards still to be gathered
        return {
            (seat, slot): (
                f"{name}'s slot {slot}: the mat has seen this card lying there since the last "
                "round, so it cannot count it as a new bullet; lift it and lay it again"
            )
            for slot in stale
        }

    def _load(self, state: GameState, seat: int, name: str, now: float) -> list[Action]:
        if state.hands[name].loaded:
            self._ready_since.pop(seat, None)
            return []
        deck = state.decks[name]
        bullets = []
        for slot in range(1, BULLETS + 1):
            have = self.seen.get((seat, slot), EMPTY)
            if have == EMPTY or (seat, slot) in self._stale:
                continue
            split = split_code(have.code) if have.code is not None else None
            if have.face_up or split is None or split[0] != deck.name:
                self._ready_since.pop(seat, None)
                return []
            bullets.append({"slot": slot, "card": have.code})
        if len(bullets) != state.to_load[name]:
            self._ready_since.pop(seat, None)
            return []
        since = self._ready_since.setdefault(seat, now)
        if now - since < self.grace:
            return []
        command = {"cmd": "load", "player": name, "bullets": bullets}
        key = repr(command)
        if key in self._proposed:
            return []
        self._proposed.add(key)
        return [Execute(command)]

    def _mismatches(self, wrong: dict[tuple[int, int], str], now: float) -> list[Action]:
        actions: list[Action] = []
        for zone in list(self._wrong_since):
            if zone not in wrong:
                del self._wrong_since[zone]
                key = f"slot.s{zone[0] + 1}.{zone[1]}"
                if self.alerts.pop(key, None) is not None:
                    actions.append(AlertCleared(key))
        for zone, message in wrong.items():
            since = self._wrong_since.get(zone)
            if since is None or since[1] != message:
                # A refused turn was no slip of the hand: it is said at once.
                start = now - self.grace if zone in self._refused else now
                since = self._wrong_since[zone] = (start, message)
            key = f"slot.s{zone[0] + 1}.{zone[1]}"
            if now - since[0] >= self.grace and self.alerts.get(key) != message:
                actions.append(self._alert(key, message, zone[0], zone[1]))
        return actions


def _drawn(state: GameState) -> str:
    return (
        f"{state.attacker} has drawn: that was their last bullet this round; hands off their "
        "own bullets"
    )


def _foreign(state: GameState, name: str, slot: int, view: SlotView) -> str | None:
    """Why the card in `name`'s slot does not belong there, or None when it does."""
    where = f"{name}'s slot {slot}"
    deck = state.decks[name]
    if view.card is not None:
        return (
            f"{where}: a playing card ({view.card}) is not a bullet; use {name}'s {deck.title} deck"
        )
    code = view.code or ""
    if code.startswith("?"):
        return (
            f"{where}: a card the table does not know (tag {code[1:]}); enrol it with its deck "
            "file (tabletop cards enrol) or take it away"
        )
    split = split_code(code)
    if split is None:
        return f"{where}: {code} is not a card of any deck"
    deck_name, card_id = split
    if deck_name != deck.name:
        owner = next((p for p, d in state.decks.items() if d.name == deck_name), None)
        whose = f"{owner}'s" if owner is not None else f"the {deck_name}"
        return f"{where}: this card is from {whose} deck; use {name}'s {deck.title} deck"
    if deck.card(card_id) is None:
        return f"{where}: the {deck.title} deck file has no card {card_id}; check the deck file"
    if state.phase is Phase.LOAD and card_id not in state.available[name]:
        return f"{where}: that card was spent in an earlier round; load another bullet"
    return None

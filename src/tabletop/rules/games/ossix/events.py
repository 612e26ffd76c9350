"""OS-SIX's events: immutable records of what happened, with versioned JSON (v1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from tabletop.rules.games.errors import InvalidCommand, quote

EVENT_VERSION = 1


class EventKind(Enum):
    """Every kind of thing that can happen in OS-SIX (closed)."""

    STARTED = "started"  # players, options
    # player, text=attribute, number=signed pool, flag=high pressure, target=duel step
    ROLL_CALLED = "roll_called"
    HELPED = "helped"  # player=helper, target=the one rolling
    LUCK_SPENT = "luck_spent"  # player, text=use
    LUCK_GAINED = "luck_gained"  # player, text=reason (award, long rest, push)
    ROLLED = "rolled"  # player, values, text=outcome, target=critical ("" if none)
    STRAIN_CHANGED = "strain_changed"  # player, number=change (already capped), text=reason
    INCAPACITATED = "incapacitated"  # player
    PANIC_ENTERED = "panic_entered"  # player, text=the GM's outcome (table not in the seeds)
    PUSHED = "pushed"  # player, number=strain dice
    DAMAGE_REDUCED = "damage_reduced"  # player, number=D6 taken off the attack's damage
    GM_ROLL_CALLED = "gm_roll_called"  # text=kind, number=morale value (morale checks)
    GM_ROLLED = "gm_rolled"  # text=kind, values, number=result, target=meaning
    LOAD_SET = "load_set"  # player, number=brawn, values=(quarter items,)
    LONG_REST = "long_rest"  # players
    DUEL_STARTED = "duel_started"  # player, target=opponent, flag=two pistols
    DUEL_RESOLVED = "duel_resolved"  # player, text=the called step's final outcome
    DUEL_ENDED = "duel_ended"  # player, text=how it ended, in the GM's words
    # players (clockwise), values=money each put on the table, number=ante, text=variant,
    # target=the first dealer, options=the house rules (minimum_raise, ties, odd_dollar, open)
    POKER_STARTED = "poker_started"
    HAND_STARTED = "hand_started"  # number=hand, target=dealer, values=each seat's ante
    POKER_THROWN = "poker_thrown"  # player, values, text=deal, the flop, the turn, the river
    POKER_BET = "poker_bet"  # player, text=check/bet/call/raise/fold/all_in, number=amount
    POKER_KEPT = "poker_kept"  # player, values=the dice kept at the draw
    POKER_DRAWN = "poker_drawn"  # player, values=the hand after the draw, number=dice thrown
    # Concealed hands ("keeping their dice concealed"): player, values=the hand entered,
    # text=deal or draw, number=dice thrown again at the draw
    POKER_ENTERED = "poker_entered"
    POKER_REVEALED = "poker_revealed"  # players=the hands still in, text=them in words
    # player, values=the tray's dice, flag=they match the hand entered, text=that hand
    POKER_SHOWN = "poker_shown"
    POT_WON = "pot_won"  # player, number=amount, target=which pot, text=the hand in words
    HAND_ENDED = "hand_ended"  # number=odd dollars left in the pot, players=busted
    POKER_LEFT = "poker_left"  # player, number=money taken home
    POKER_ENDED = "poker_ended"  # players, values=money each takes home, number=pot left
    ENDED = "ended"


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened; which fields matter depends on `kind` (see EventKind)."""

    kind: EventKind
    player: str | None = None
    target: str | None = None
    text: str = ""
    number: int | None = None
    values: tuple[int, ...] = ()
    flag: bool = False
    players: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as JSON: its type, version, and the fields its kind uses."""
    out: dict[str, Any] = {"type": event.kind.value, "v": EVENT_VERSION}
    if event.player is not None:
        out["player"] = event.player
    if event.target is not None:
        out["target"] = event.target
    if event.text:
        out["text"] = event.text
    if event.number is not None:
        out["number"] = event.number
    if event.values:
        out["values"] = list(event.values)
    if event.flag:
        out["flag"] = True
    if event.players:
        out["players"] = list(event.players)
    if event.options:
        out["options"] = dict(event.options)
    return out


def event_from_json(raw: Mapping[str, Any]) -> Event:
    """An event from its JSON; InvalidCommand naming the field that is wrong."""
    try:
        kind = EventKind(raw.get("type"))
    except ValueError:
        raise InvalidCommand(
            f"type: not an OS-SIX event: {quote(raw.get('type'))}", "type"
        ) from None
    if raw.get("v", EVENT_VERSION) != EVENT_VERSION:
        raise InvalidCommand(f"v: OS-SIX events are version {EVENT_VERSION}", "v")
    try:
        return Event(
            kind,
            player=raw.get("player"),
            target=raw.get("target"),
            text=str(raw.get("text", "")),
            number=raw.get("number"),
            values=tuple(int(v) for v in raw.get("values", ())),
            flag=bool(raw.get("flag", False)),
            players=tuple(str(p) for p in raw.get("players", ())),
            options=tuple(sorted(dict(raw.get("options", {})).items())),
        )
    except (TypeError, ValueError) as error:
        raise InvalidCommand(f"{kind.value}: malformed event ({error})", kind.value) from None

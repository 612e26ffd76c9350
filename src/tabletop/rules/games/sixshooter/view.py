"""What people and programs see of a game: the JSON snapshot, the prompt, and events in words."""

from __future__ import annotations

from typing import Any

from ..cards import Card, Rank
from . import events as ev
from .model import Phase, SlotState, Status
from .state import GameState, Pending, PendingLucky, PendingRoll, Slot

STATE_FORMAT_VERSION = 1


def state_to_json(state: GameState) -> dict[str, Any]:
    """The snapshot `tabletop replay --json` prints (without `rejected`, which replay adds)."""
    return {
        "v": STATE_FORMAT_VERSION,
        "game": "six_shooter",
        "phase": state.phase.value if state.phase else None,
        "adventure": state.adventure,
        "players": [
            {
                "name": op.name,
                "descriptor": op.descriptor.value,
                "archetype": op.archetype,
                "lucky": list(op.lucky),
                "strikes": op.strikes,
                "status": op.status.value,
                "slots": [
                    {"card": slot.card.code if slot.card else None, "state": slot.state.value}
                    for slot in op.slots
                ],
            }
            for op in state.operators.values()
        ],
        "deck_count": len(state.deck),
        "discard": [card.code for card in state.discard],
        "turn_order": list(state.turn_order),
        "pending": pending_to_json(state),
        "stages": {
            name: {"needed": stage.needed, "successes": stage.successes}
            for name, stage in state.stages.items()
        },
        "contest": (
            {"players": list(state.contest.players), "exchanges": state.contest.exchanges}
            if state.contest
            else None
        ),
        "options": state.options.to_json(),
    }


def public_state_to_json(state: GameState) -> dict[str, Any]:
    """The snapshot anyone at the table may see: a face-down card is shown only as face-down.

    "Each player should place their six cards face-down": which card lies face-down is the
    one thing the table hides, so the public snapshot names no face-down card (the discard
    pile and face-up cards are on the table for all to see)."""
    snapshot = state_to_json(state)
    for player in snapshot["players"]:
        player["slots"] = [
            {**slot, "card": None} if slot["state"] == SlotState.FACE_DOWN.value else slot
            for slot in player["slots"]
        ]
    return snapshot


def public_event_to_json(event: ev.Event, hide_critical: bool = False) -> dict[str, Any]:
    """An event as anyone at the table may see it: its type and its words, which name no
    face-down card (the engine's event itself may: a deal lists every hand) and, with
    `hide_critical`, no Critical Number before the roll."""
    text = describe_event(event)
    if hide_critical:
        match event:
            case ev.ChallengeDeclared(player=p, method=m, wager=w):
                wager = f", wagering {w} Strike(s)" if w else ""
                text = f"{p} attempts a {m.value} challenge{wager}"
            case ev.ChallengeBoosted(player=p):
                text = f"{p}'s Critical Number is lowered"
            case _:
                pass
    return {"type": ev.event_name(event), "text": text}


def pending_to_json(state: GameState, hide_critical: bool = False) -> dict[str, Any] | None:
    """What the game waits for now, structured, with `prompt` in plain words; None if only for
    the game master. `hide_critical` leaves out the challenge's Critical Number (players see
    it only if the game master chose so)."""
    head = state.pending[0] if state.pending else None
    out: dict[str, Any]
    if isinstance(head, PendingRoll):
        out = {"type": "roll", "purpose": head.purpose.value, "player": head.player}
        if head.purpose is ev.RollPurpose.CHALLENGE and state.challenge is not None:
            if not hide_critical:
                out["critical"] = state.challenge.critical
            out["method"] = state.challenge.method.value
            out["boosted"] = state.challenge.boosted
        if head.purpose is ev.RollPurpose.CONTEST and state.contest is not None:
            out["against"] = next(p for p in state.contest.players if p != head.player)
    elif isinstance(head, PendingLucky):
        out = {"type": "lucky", "player": head.player, "slot": head.slot, "card": head.card.code}
    elif state.phase is Phase.SETUP:
        waiting = [
            op.name
            for op in state.operators.values()
            if op.status is Status.ACTIVE and not op.revealed
        ]
        out = {"type": "reveal", "players": waiting}
    elif state.phase is Phase.BETWEEN_ADVENTURES:
        deciding = [
            op.name
            for op in state.operators.values()
            if op.status is Status.REMOVED and not op.returning
        ]
        if not deciding:
            return None
        out = {"type": "return_or_retire", "players": deciding}
    else:
        return None
    out["prompt"] = (
        describe_pending(state, head, hide_critical) if head else _phase_prompt(state, out)
    )
    return out


def _phase_prompt(state: GameState, pending: dict[str, Any]) -> str:
    names = _and(pending["players"])
    if pending["type"] == "reveal":
        return f"{names}: turn one card of your choice face-up"
    return f"{names}: lose a Lucky Number to return next adventure, or retire"


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_RANK_WORDS = {Rank.ACE: "ace", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king"}


def card_words(card: Card) -> str:
    """A card as people say it: "6 of hearts", "ace of spades", "joker" (a prompt, not a code)."""
    if card.suit is None:
        return "joker"
    return f"{_RANK_WORDS.get(card.rank, card.rank.value)} of {card.suit.name.lower()}"


def describe_pending(state: GameState, item: Pending, hide_critical: bool = False) -> str:
    """One pending item in plain words, for prompts and error messages."""
    if isinstance(item, PendingLucky):
        return (
            f"{item.player}: the {card_words(item.card)} matched your Lucky Number; draw a "
            f"replacement into slot {item.slot}, yes or no?"
        )
    if item.purpose is ev.RollPurpose.CHALLENGE and state.challenge is not None:
        challenge = state.challenge
        critical = "" if hide_critical else f" (Critical Number {challenge.critical})"
        return f"{item.player}: roll the die for the {challenge.method.value} challenge{critical}"
    if item.purpose is ev.RollPurpose.CONTEST:
        return f"{item.player}: roll the die for the contest"
    return f"{item.player}: roll the die to Roll Your Hand"


def describe_event(event: ev.Event) -> str:
    """One event as a line a game master would say at the table."""
    match event:
        case ev.GameStarted(players=players, jokers=jokers):
            roster = ", ".join(
                f"{p.name} ({p.descriptor.value}, {p.archetype or 'no archetype'}, "
                f"lucky {'/'.join(map(str, p.lucky))})"
                for p in players
            )
            return f"New game{' with jokers' if jokers else ''}: {roster}"
        case ev.CardsDealt(hands=hands):
            return f"Dealt six cards face-down to {', '.join(name for name, _ in hands)}"
        case ev.CardRevealed(player=p, slot=s, card=c):
            return f"{p} turns slot {s} face-up: {c}"
        case ev.PlayBegan():
            return "Every hand has a card face-up: play begins"
        case ev.DeckReshuffled(deck=deck):
            return (
                f"The deck ran out: the discard pile ({len(deck)} cards) is shuffled into the deck"
            )
        case ev.TurnOrderDrawn(player=p, card=c, value=v):
            return f"{p} draws {c} ({v}) for turn order"
        case ev.TurnOrderSet(order=order):
            return f"Turn order: {', '.join(order)}"
        case ev.StageOpened(stage=s, needed=n):
            return f"Multi-stage challenge {s!r} opens: {n} successes needed"
        case ev.CardUsed(owner=o, slot=s, card=c, for_player=f, reduction=r):
            whose = "their" if o == f else f"{o}'s"
            helper = f"{o} uses" if o == f else f"{o} helps {f} with"
            return f"{helper} {c} from {whose} slot {s}: Critical Number -{r}"
        case ev.ChallengeDeclared(player=p, method=m, base=b, critical=c, wager=w):
            wager = f", wagering {w} Strike(s)" if w else ""
            return f"{p} attempts a {m.value} challenge: base {b}, Critical Number {c}{wager}"
        case ev.ChallengeBoosted(player=p, critical=c):
            return f"{p}'s Critical Number is now {c}"
        case ev.RollCalled(player=p, purpose=purpose):
            return f"{p} must roll ({purpose.value.replace('_', ' ')})"
        case ev.DieRolled(player=p, value=v):
            return f"{p} rolls {v}"
        case ev.ChallengeResolved(player=p, roll=roll, critical=c, outcome=o):
            if roll is None:
                return f"{p} overcomes the challenge without rolling (Critical Number {c})"
            said = {
                "success": "overcomes the challenge",
                "success_roll_hand": "overcomes the challenge but must Roll Their Hand",
                "failure": "fails and must Roll Their Hand",
            }[o.value]
            return f"{p} {said} ({roll} against {c})"
        case ev.StageProgressed(stage=s, successes=k, needed=n):
            return f"{s!r}: {k} of {n} successes"
        case ev.StageOvercome(stage=s):
            return f"{s!r} is overcome"
        case ev.CardFlipped(player=p, slot=s, card=c):
            return f"{p}'s slot {s} flips face-up: {c}"
        case ev.CardDiscarded(player=p, slot=s, card=c):
            return f"{p} discards {c} from slot {s}"
        case ev.JokerKept(player=p, slot=s):
            return f"{p} keeps the joker in slot {s}: a joker is never discarded"
        case ev.StrikeGained(player=p, count=n, total=t, cause=why):
            return f"{p} gains {n} Strike{'s' if n > 1 else ''} ({why}): {t} in all"
        case ev.OperatorRemoved(player=p):
            return f"{p}'s luck runs out: their Operator is removed from play"
        case ev.LuckyOffered(player=p, slot=s, card=c):
            return f"{c} matches {p}'s Lucky Number: a replacement may be drawn into slot {s}"
        case ev.LuckyReplaced(player=p, slot=s, card=c):
            return f"{p} draws {c} face-up into slot {s}"
        case ev.LuckyDeclined(player=p, slot=s, reason=why):
            return f"{p} takes no replacement for slot {s} ({why})"
        case ev.ContestStarted(players=(a, b)):
            return f"Contest: {a} against {b}"
        case ev.ContestBoosted(player=p, reduction=r, wager=w):
            return f"{p} lowers the opponent's next contest roll by {r + w}"
        case ev.ContestExchanged(scores=scores, losers=losers):
            shown = ", ".join(f"{name} {score}" for name, score in scores)
            who = " and ".join(losers)
            after = "Contest rolls after Strikes, cards and wagers"
            return f"{after}: {shown}: {who} must Roll Their Hand"
        case ev.ContestEnded(losers=losers, reason=why):
            verb = "loses" if len(losers) == 1 else "both lose"
            return f"The contest is over: {' and '.join(losers)} {verb} ({why})"
        case ev.AdventureEnded(adventure=n, retired=retired):
            gone = f"; retired for good: {', '.join(retired)}" if retired else ""
            return f"Adventure {n} ends{gone}"
        case ev.LuckyGranted(giver=g, to=t, number=n):
            return f"{g} gives {t} an extra Lucky Number: {n}"
        case ev.OperatorReturning(player=p, dropped=n):
            return f"{p} loses Lucky Number {n} and will return next adventure"
        case ev.OperatorRetired(player=p):
            return f"{p}'s Operator retires for good"
        case ev.AdventureStarted(adventure=n):
            return f"Adventure {n} begins: Strikes reset, cards shuffled"
        case ev.GameEnded():
            return "The game is over"
    raise AssertionError(f"no words for {event!r}")  # pragma: no cover


def _slot_mark(slot: Slot) -> str:
    if slot.state is SlotState.FACE_UP and slot.card is not None:
        return slot.card.code
    return "##" if slot.state is SlotState.FACE_DOWN else "--"


def render_table(state: GameState) -> str:
    """The table as text: each hand's slots, Strikes and Lucky Numbers, the piles, the prompt."""
    if state.phase is None:
        return "No game."
    lines = [f"Adventure {state.adventure}, {state.phase.value.replace('_', ' ')}"]
    width = max(len(name) for name in state.operators) if state.operators else 0
    for op in state.operators.values():
        slots = " ".join(f"[{_slot_mark(slot):>3}]" for slot in op.slots)
        strikes = "X" * op.strikes + "." * (3 - op.strikes)
        status = "" if op.status is Status.ACTIVE else f"  ({op.status.value})"
        lucky = "/".join(map(str, op.lucky)) or "-"
        lines.append(f"  {op.name:<{width}}  {slots}  strikes {strikes}  lucky {lucky}{status}")
    lines.append(
        f"  deck {len(state.deck)}, discard {len(state.discard)}"
        + (f", turn order {', '.join(state.turn_order)}" if state.turn_order else "")
    )
    pending = pending_to_json(state)
    lines.append(f"  waiting for: {pending['prompt'] if pending else 'the game master'}")
    return "\n".join(lines)


def render_public_view(state: dict[str, Any]) -> str:
    """The table as text from its public view (`game/state`): hands, Strikes, Lucky Numbers."""
    lines = [f"Adventure {state.get('adventure')}, {str(state.get('phase')).replace('_', ' ')}"]
    players = state.get("players", [])
    width = max((len(p["name"]) for p in players), default=0)
    for player in players:
        marks = []
        for slot in player["slots"]:
            if slot["state"] == "face_up":
                marks.append(f"[{slot['card']:>3}]")
            else:
                marks.append("[ ##]" if slot["state"] == "face_down" else "[ --]")
        strikes = "X" * player["strikes"] + "." * (3 - player["strikes"])
        lucky = "/".join(map(str, player["lucky"])) or "-"
        status = "" if player["status"] == "active" else f"  ({player['status']})"
        lines.append(
            f"  {player['name']:<{width}}  {' '.join(marks)}  strikes {strikes}  lucky {lucky}"
            f"{status}"
        )
    lines.append(f"  deck {state.get('deck_count')}, discard {len(state.get('discard', []))}")
    if state.get("turn_order"):
        lines.append(f"  turn order {', '.join(state['turn_order'])}")
    return "\n".join(lines)

"""OS-SIX's views: the state as JSON, events in plain words, the table as text.

OS-SIX's one secret on the table is a concealed poker hand ("each player and the GM roll 5D6,
keeping their dice concealed"): until the reveal the room's view carries each gambler's
dice as `dice: null` and `dice_hidden: N`, the gambler's own seat and the game master see
them. Every other die is thrown in the open and Luck and Strain are known to all; what the
game master keeps secret (an NPC's Morale, a Panic Roll's table) never reaches this package."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .events import Event, EventKind
from .poker import COMMUNITY_NAMES, DEAL_DICE, VARIANT_NAMES, Phase, Poker, best_rank
from .state import Pending, PendingKind, State


def _money(amount: int) -> str:
    return f"${amount}"


def _dice(values: tuple[int, ...] | list[int]) -> str:
    return " ".join(str(v) for v in values)


# Who a view is for: the game master (everything), the room (no concealed hand), or one seat's
# player (the room's view and their own hand).
REFEREE: Final = None
ROOM: Final = ""


def _names(names: tuple[str, ...] | list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def poker_words(p: Poker, public: bool = False) -> str:
    """What the poker table waits for, in plain words (`public`: naming no concealed die)."""
    if not p.in_hand:
        return "the game master antes the next hand of poker (or ends the poker)"
    entering = p.awaited_hands()
    if entering and p.phase is Phase.DEAL:
        count = DEAL_DICE[p.variant]
        return (
            f"{_names(entering)}: throw {count} dice behind your hand and enter them "
            "(the hands stay concealed)"
        )
    if entering:
        who = entering[0]
        seat = p.seat(who)
        kept = seat.kept if seat is not None else None
        if kept is not None:
            dice = f"the other {5 - len(kept)}" if public else f"all but {_dice(kept)}"
            return f"{who}: the draw: throw {dice} again behind your hand and enter the new hand"
        return (
            f"{who}: the draw: keep at least 2 of your dice, throw up to 3 again behind your "
            "hand and enter the new hand (or stand pat)"
        )
    if p.phase is Phase.REVEAL and p.turn is not None:
        seat = p.seats[p.turn]
        return f"{seat.name}: lay your hand ({_dice(seat.dice)}) in the tray for the camera"
    awaited = p.awaited_dice()
    if awaited is not None:
        who, count, _ = awaited
        if p.phase is Phase.DRAW:
            seat = p.seat(who)
            kept = seat.kept if seat is not None else None
            if kept is not None:
                return (
                    f"{who}: leave {_dice(kept)} in the tray and throw the other "
                    f"{5 - len(kept)} again"
                )
            return f"{who}: the draw: leave at least 2 of your dice and throw up to 3 again"
        if p.phase is Phase.COMMUNITY:
            return f"{who} (dealer): throw {count} for {COMMUNITY_NAMES[p.street - 1]}"
        return f"{who}: throw {count} dice for your poker hand"
    seat = p.bettor()
    if seat is None:
        return "the hand is being settled"
    owe = p.to_call(seat)
    if owe:
        raise_words = f"raise by {_money(p.min_raise())} or more, " if seat.money > owe else ""
        call = f"call {_money(min(owe, seat.money))}"
        return f"{seat.name} to bet: {call}, {raise_words}fold or go all in"
    return f"{seat.name} to bet: check, bet {_money(1)} or more, or go all in"


def waiting_words(state: State, public: bool = False) -> str:
    """What the whole game waits for, in plain words."""
    if state.pending is None and state.poker is not None:
        return poker_words(state.poker, public)
    return pending_words(state.pending)


def poker_to_json(p: Poker, viewer: str | None = REFEREE) -> dict[str, Any]:
    """The poker table as `viewer` sees it: the game master (None) every die; the room ("")
    no concealed hand before its reveal (`dice` null, `dice_hidden` how many); a player
    (their name) the room's view and their own hand."""
    seats = []
    for index, s in enumerate(p.seats):
        concealed = p.hidden(s)
        hidden = concealed and viewer is not REFEREE and viewer != s.name
        hand = p.hand_of(s)
        best = best_rank(hand, p.ties) if len(hand) >= 5 else None
        seat: dict[str, Any] = {
            "name": s.name,
            "money": s.money,
            "dealer": index == p.dealer,
            "playing": s.playing,
            "folded": s.folded,
            "all_in": s.all_in,
            "in_pot": s.put_in,
            "bet": s.street_bet,
            "dice": None if hidden else list(s.dice),
            "dice_hidden": len(s.dice) if hidden else 0,
            "concealed": concealed,
            "kept": None if hidden or s.kept is None else list(s.kept),
            "hand": None if hidden or best is None or not s.live else best.words(),
            "shown": s.shown,
        }
        if viewer is REFEREE and not p.open:
            # What the tray showed at the reveal: the camera's check is the game master's.
            seat["tray"] = None if s.tray is None else list(s.tray)
        seats.append(seat)
    bettor = p.bettor()
    return {
        "variant": p.variant,
        "open": p.open,
        "hand": p.hand,
        "phase": p.phase.value,
        "street": p.street,
        "ante": p.ante,
        "pot": p.pot,
        "bet": p.bet,
        "to_act": None if bettor is None else bettor.name,
        "to_call": None if bettor is None else p.to_call(bettor),
        "min_raise": p.min_raise(),
        "community": list(p.community),
        "carry": p.carry,
        "seats": seats,
        "house_rules": {
            "minimum_raise": p.minimum_raise,
            "ties": p.ties,
            "odd_dollar": p.odd_dollar,
        },
    }


def pending_words(pending: Pending | None) -> str:
    """What the game waits for, in plain words."""
    if pending is None:
        return "the game master calls a roll"
    who = pending.player
    if pending.kind is PendingKind.ACTION:
        if pending.disadvantage:
            return f"{who}: throw 2 dice at disadvantage (the lowest counts)"
        return f"{who}: throw {pending.dice} dice for {pending.attribute} (the highest counts)"
    if pending.kind is PendingKind.PUSH:
        return f"{who}: throw {pending.dice} dice of Strain for pushing your luck"
    if pending.kind is PendingKind.REDUCE:
        return f"{who}: throw 1 die to reduce the attack's damage"
    if pending.kind is PendingKind.GM_ROLL:
        return f"game master: throw {pending.dice} dice for {pending.gm_roll}"
    if pending.kind is PendingKind.PANIC:
        return f"game master: enter {who}'s Panic Roll outcome"
    return f"{who}: use the pushed Luck Point now"


def pending_to_json(pending: Pending | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {
        "type": pending.kind.value,
        "player": pending.player,
        "dice": pending.dice,
        "pool": pending.pool,
        "disadvantage": pending.disadvantage,
        "attribute": pending.attribute or None,
        "high_pressure": pending.high_pressure,
        "helped": pending.helped,
        "gm_roll": pending.gm_roll or None,
    }


def state_to_json(state: State, viewer: str | None = REFEREE) -> dict[str, Any]:
    """The whole state as JSON (v1) as `viewer` sees it (`poker_to_json`): only a concealed
    poker hand differs between audiences."""
    players = []
    for c in state.characters:
        last = c.last
        players.append(
            {
                "name": c.name,
                "luck": c.luck,
                "strain": c.strain,
                "incapacitated": c.incapacitated,
                "pushes": c.pushes,
                "bonus_next": c.bonus_next,
                "brawn": c.brawn,
                "items": c.load_quarters / 4,
                "overloaded": c.overloaded,
                "last_roll": None
                if last is None
                else {
                    "values": list(last.values),
                    "outcome": last.outcome.value,
                    "critical": last.critical.value or None,
                    "upgraded": last.upgraded,
                    "max_damage": last.max_damage,
                },
            }
        )
    gm = state.last_gm_roll
    duel = state.duel
    return {
        "v": 1,
        "game": "ossix",
        "phase": ("finished" if state.started else "no_game") if state.over else "play",
        "players": players,
        "pending": pending_to_json(state.pending),
        "waiting": waiting_words(state, viewer is not REFEREE) if not state.over else "nothing",
        "last_gm_roll": None if gm is None else {"kind": gm[0], "result": gm[1], "meaning": gm[2]},
        "duel": None
        if duel is None
        else {
            "player": duel.player,
            "opponent": duel.opponent,
            "two_pistols": duel.two_pistols,
            "round": duel.round,
            "rolled": duel.called.value if duel.called else None,
            "next": [s.value for s in duel.allowed] if duel.called is None else None,
            "attack_mod": duel.attack_mod,
            "defense_mod": duel.defense_mod,
        },
        "poker": None if state.poker is None else poker_to_json(state.poker, viewer),
        "options": dict(state.options),
    }


def describe_event(event: Event, public: bool = False) -> str:
    """An event in plain words (`public`: naming no concealed poker die)."""
    k, who = event.kind, event.player
    if k is EventKind.STARTED:
        return f"OS-SIX starts: {', '.join(event.players)}"
    if k is EventKind.ROLL_CALLED:
        pool = event.number or 0
        dice = f"{pool}D6" if pool > 0 else "2D6 at disadvantage"
        pressure = " (high pressure)" if event.flag else ""
        step = f" ({event.target.replace('_', ' ')} in the duel)" if event.target else ""
        return f"{who} rolls {event.text}{step}: {dice}{pressure}"
    if k is EventKind.HELPED:
        return f"{who} helps {event.target}: a Bonus die"
    if k is EventKind.LUCK_SPENT:
        return f"{who} burns a Luck Point: {event.text.replace('_', ' ')}"
    if k is EventKind.LUCK_GAINED:
        return f"{who} gains a Luck Point ({event.text})"
    if k is EventKind.ROLLED:
        critical = f", {event.target}" if event.target else ""
        shown = " ".join(str(v) for v in event.values)
        return f"{who} throws {shown}: {event.text}{critical}"
    if k is EventKind.STRAIN_CHANGED:
        n = event.number or 0
        return f"{who} {'gains' if n >= 0 else 'loses'} {abs(n)} Strain ({event.text})"
    if k is EventKind.INCAPACITATED:
        return f"{who} hits 12 Strain and is incapacitated"
    if k is EventKind.PANIC_ENTERED:
        return f"{who}'s Panic Roll: {event.text}"
    if k is EventKind.PUSHED:
        return f"{who} pushes their luck: {event.number}D6 Strain"
    if k is EventKind.DAMAGE_REDUCED:
        return f"{who} reduces the attack's damage by {event.number}"
    if k is EventKind.GM_ROLL_CALLED:
        morale = f" against Morale {event.number}" if event.number is not None else ""
        return f"the game master rolls {event.text}{morale}"
    if k is EventKind.GM_ROLLED:
        meaning = f": {event.target}" if event.target else ""
        return f"{event.text}: {event.number}{meaning}"
    if k is EventKind.LOAD_SET:
        items = (event.values[0] if event.values else 0) / 4
        return f"{who} carries {items:g} items at Brawn {event.number}"
    if k is EventKind.DUEL_STARTED:
        pistols = " with two pistols" if event.flag else ""
        return f"{who} calls out {event.target}: a quick-draw duel{pistols}"
    if k is EventKind.DUEL_RESOLVED:
        return f"{who}'s duel roll stands: {event.text}"
    if k is EventKind.DUEL_ENDED:
        return f"{who}'s duel ends: {event.text}"
    if k is EventKind.POKER_STARTED:
        money = ", ".join(
            f"{n} {_money(m)}" for n, m in zip(event.players, event.values, strict=False)
        )
        variant = VARIANT_NAMES.get(event.text, event.text)
        return (
            f"poker ({variant}, ante {_money(event.number or 0)}): {money}; "
            f"{event.target} deals first"
        )
    if k is EventKind.HAND_STARTED:
        return f"hand {event.number} of poker: {event.target} deals, everyone antes"
    if k is EventKind.POKER_THROWN:
        return f"{who} throws {_dice(event.values)} ({event.text})"
    if k is EventKind.POKER_BET:
        amount = event.number or 0
        said = {
            "check": "checks",
            "call": "calls",
            "fold": "folds",
            "all_in": "goes all in",
            "bet": f"bets {_money(amount)}",
            "raise": f"raises by {_money(amount)}",
        }.get(event.text, event.text)
        return f"{who} {said}"
    if k is EventKind.POKER_KEPT:
        if len(event.values) == 5:
            return f"{who} stands pat"
        if public and event.flag:
            return f"{who} keeps {len(event.values)} dice (hidden)"
        return f"{who} keeps {_dice(event.values)}"
    if k is EventKind.POKER_ENTERED:
        count = len(event.values)
        if event.text == "draw":
            thrown = event.number or 0
            drew = "stands pat" if not thrown else f"draws {thrown}"
            return f"{who} {drew} (hidden)" if public else f"{who} {drew}: {_dice(event.values)}"
        if public:
            return f"{who}'s hand is in ({count} dice, hidden)"
        return f"{who}'s hand is in: {_dice(event.values)}"
    if k is EventKind.POKER_REVEALED:
        return f"the reveal: {event.text}"
    if k is EventKind.POKER_SHOWN:
        if public:
            return f"{who}'s hand is in the tray"
        if event.flag:
            return f"{who}'s hand is in the tray: {_dice(event.values)}, as entered"
        return (
            f"{who}'s hand in the tray shows {_dice(event.values)}, not the hand entered "
            f"({event.text})"
        )
    if k is EventKind.POKER_DRAWN:
        return f"{who} draws {event.number}: {_dice(event.values)}"
    if k is EventKind.POT_WON:
        return f"{who} wins {_money(event.number or 0)} from {event.target}: {event.text}"
    if k is EventKind.HAND_ENDED:
        out = f"; {', '.join(event.players)} out of money" if event.players else ""
        odd = f"; {_money(event.number or 0)} stays in the pot" if event.number else ""
        return f"the hand is over, the deal passes clockwise{odd}{out}"
    if k is EventKind.POKER_LEFT:
        return f"{who} leaves the poker table with {_money(event.number or 0)}"
    if k is EventKind.POKER_ENDED:
        money = ", ".join(
            f"{n} {_money(m)}" for n, m in zip(event.players, event.values, strict=False)
        )
        left = f"; {_money(event.number)} left in the pot" if event.number else ""
        return f"the poker ends ({event.text}): {money or 'nobody'}{left}"
    if k is EventKind.LONG_REST:
        return f"long rest: {', '.join(event.players)}"
    return "the game is over"


def render_view(view: Mapping[str, Any]) -> str:
    """The table as text, from its JSON view."""
    lines = []
    for p in view.get("players", []):
        flags = " INCAPACITATED" if p.get("incapacitated") else ""
        flags += " overloaded" if p.get("overloaded") else ""
        flags += " bonus next roll" if p.get("bonus_next") else ""
        lines.append(f"{p['name']:<12} Luck {p['luck']}  Strain {p['strain']:>2}/12{flags}")
    duel = view.get("duel")
    if duel:
        lines.append(f"duel: {duel['player']} against {duel['opponent']}, round {duel['round']}")
    table = view.get("poker")
    if table:
        lines.append(
            f"poker, hand {table['hand']}: pot ${table['pot']}"
            + (f", community {_dice(table['community'])}" if table["community"] else "")
        )
        for seat in table["seats"]:
            mark = " (dealer)" if seat["dealer"] else ""
            state = " folded" if seat["folded"] else (" ALL IN" if seat["all_in"] else "")
            hidden = seat.get("dice_hidden") or 0
            dice = f"  {_dice(seat['dice'])}" if seat["dice"] else ""
            dice = f"  {hidden} dice, hidden" if hidden else dice
            lines.append(f"  {seat['name']:<12} ${seat['money']:<5}{dice}{state}{mark}")
    lines.append(f"waiting: {view.get('waiting', 'nothing')}")
    return "\n".join(lines)

"""OS-SIX's views: the state as JSON, events in plain words, the table as text.

OS-SIX keeps no secrets on the table: every die is thrown in the open and Luck and Strain are
known to all; what the game master keeps secret (an NPC's Morale, a Panic Roll's table)
never reaches this package, so every audience sees the same view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .events import Event, EventKind
from .state import Pending, PendingKind, State


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


def state_to_json(state: State) -> dict[str, Any]:
    """The whole state as JSON (v1); the same for every audience."""
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
        "waiting": pending_words(state.pending) if not state.over else "nothing",
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
        "options": dict(state.options),
    }


def describe_event(event: Event) -> str:
    """An event in plain words."""
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
    lines.append(f"waiting: {view.get('waiting', 'nothing')}")
    return "\n".join(lines)

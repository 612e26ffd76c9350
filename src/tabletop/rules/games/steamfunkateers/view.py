"""Steamfunkateers' state and events for people: JSON views, plain words, what is awaited.

Nothing in this game is secret (no cards, every die lies open in the tray), so the game master's
view and the public view are the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..game import DiceThrow, Scoring, Waiting, WaitKind
from .engine import rerollable
from .events import (
    ConditionCalled,
    ConditionSuffered,
    ConflictEnded,
    ContestEnded,
    ContestStarted,
    DiceRerolled,
    DiceRolled,
    Event,
    ExchangeWon,
    Folded,
    GameEnded,
    GameStarted,
    GmBought,
    NarrationWon,
    OrderCalled,
    OrderSet,
    PoolKept,
    RoundCalled,
    RoundResolved,
    TieDieRolled,
    TurnEnded,
    VigorChanged,
)
from .model import CONTEST_WINS, GM
from .state import GameState, Pool

VIEW_VERSION = 1


def _phase(state: GameState) -> str:
    if not state.started:
        return "none"
    return "finished" if state.over else "play"


def _pool_json(pool: Pool) -> dict[str, Any]:
    return {
        "who": pool.who,
        "dice": pool.dice,
        "label": pool.label,
        "values": list(pool.values),
        "sixes": pool.sixes,
        "rerolled": pool.rerolled,
        "done": pool.done,
        "folded": pool.folded,
    }


def state_to_json(state: GameState) -> dict[str, Any]:
    """The whole state as JSON (referee and public view alike: nothing here is hidden)."""
    contest = state.contest
    order = state.order
    result = state.last_result
    wins = contest.wins if contest is not None else {}
    return {
        "v": VIEW_VERSION,
        "game": "steamfunkateers",
        "phase": _phase(state),
        "options": dict(state.options),
        "players": [
            {
                "name": name,
                "vigor": state.vigor.get(name, 0),
                "contest_wins": wins.get(name, 0),
                "conditions": [
                    {"name": n, "severity": s} for n, s in state.conditions.get(name, ())
                ],
                "folded": name in state.folded,
                # folded out of the action that ended last: no Vigor from the GM for it
                "unrewarded": name in state.unrewarded,
            }
            for name in state.players
        ],
        "gm_vigor": state.vigor.get(GM, 0),
        "round": None
        if state.round is None
        else {
            "kind": state.round.kind.value,
            "task": state.round.task,
            "pools": [_pool_json(p) for p in state.round.pools],
        },
        "last_result": None
        if result is None
        else {
            # the roll as thrown (its pools and dice), once nothing more can change it
            "pools": [_pool_json(p) for p in state.last_round.pools]
            if state.last_round is not None
            else [],
            "sixes": dict(result.sixes),
            "winners": list(result.winners),
            "failed": list(result.failed),
            "extraordinary": list(result.extraordinary),
        },
        "contest": None
        if contest is None
        else {
            "participants": list(contest.participants),
            "wins": dict(contest.wins),
            "goal": contest.goal,
            "winner": contest.winner,
            "over": contest.over,
        },
        "order": None
        if order is None
        else {
            "kind": order.kind.value,
            "order": list(order.order),
            "npcs": list(order.npcs),
            "current": order.current,
            "exchange": order.exchange,
            "tied": list(order.tied),
        },
        "conditions_by_npc": {
            name: [{"name": n, "severity": s} for n, s in found]
            for name, found in state.conditions.items()
            if name not in state.players
        },
        "narrator": state.narrator,
        "pending": waiting(state).detail,
    }


def waiting(state: GameState) -> Waiting:
    """What the game waits for now, with the dice throw it expects."""
    if not state.started:
        return Waiting(WaitKind.NOTHING, "no game yet: the game master starts one")
    if state.over:
        return Waiting(WaitKind.NOTHING, "the game is over")
    if state.condition is not None:
        c = state.condition
        words = f"{c.thrower}: throw one die for the severity of {c.target}'s condition"
        throw = DiceThrow(c.thrower, 1)
        detail: dict[str, Any] = {
            "type": "severity",
            "target": c.target,
            "by": c.by,
            "prompt": words,
        }
        return Waiting(WaitKind.DICE, words, (c.thrower,), throw, detail)
    order = state.order
    if order is not None and not order.order:
        who = order.next_tie_thrower or ""
        thrower = state.thrower_of(who)
        tied = " and ".join(order.tied)
        words = f"{tied} tie in the turn order: {thrower} throws one die for {who}"
        detail = {
            "type": "tie_die",
            "who": who,
            "tied": list(order.tied),
            "prompt": words,
        }
        return Waiting(WaitKind.DICE, words, (thrower,), DiceThrow(thrower, 1), detail)
    pool = state.round.current if state.round is not None else None
    if pool is not None:
        return _pool_waiting(state, pool)
    return Waiting(WaitKind.GAME_MASTER, _gm_words(state), (GM,), None, None)


def _pool_waiting(state: GameState, pool: Pool) -> Waiting:
    thrower = state.thrower_of(pool.who)
    owner = "" if thrower == pool.who else f" for {pool.who}"
    if not pool.thrown:
        can = state.vigor.get(thrower, 0) >= 1
        words = f"{thrower}: throw {pool.dice} dice{owner} ({pool.label}); every six is a success"
        # A fresh throw: every die of the pool is thrown (`rethrow`), none left lying.
        throw = DiceThrow(
            thrower, pool.dice, Scoring.COUNT_SIXES, rerollable=can, rethrow=pool.dice
        )
        detail = {"type": "roll", "who": pool.who, "dice": pool.dice, "prompt": words}
        return Waiting(WaitKind.DICE, words, (thrower,), throw, detail)
    others = pool.dice - pool.sixes
    can = rerollable(state, pool)
    sixes = f"{pool.sixes} six{'es' if pool.sixes != 1 else ''}"
    if can:
        words = (
            f"{thrower}{owner}: {sixes}; throw the {others} other "
            f"{'die' if others == 1 else 'dice'} again for a point of Vigor, or keep them"
        )
    else:
        words = f"{thrower}{owner}: {sixes}; no Vigor left for a reroll: keep the dice"
    # "reroll all dice not showing sixes": the sixes stay where they lie, the others are thrown.
    throw = DiceThrow(
        thrower, pool.dice, Scoring.COUNT_SIXES, rerollable=can, rethrow=others or None
    )
    detail = {"type": "reroll", "who": pool.who, "dice": pool.dice, "prompt": words}
    return Waiting(WaitKind.DICE, words, (thrower,), throw, detail)


def _gm_words(state: GameState) -> str:
    contest = state.contest
    if contest is not None and not contest.over:
        score = ", ".join(f"{p} {w}" for p, w in contest.wins.items())
        return f"the game master: call the next exchange of the contest ({score})"
    order = state.order
    if order is not None and order.current is not None:
        return (
            f"exchange {order.exchange}: {order.current}'s turn; the game master calls the "
            "action's pools, then ends the turn"
        )
    return "the game master: call a check, a contest or a turn order"


# -- events in words --------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith("x") else "s")


def describe_event(event: Event) -> str:
    """An event in plain words (nothing is hidden in this game)."""
    match event:
        case GameStarted(players, vigor, _):
            points = ", ".join(f"{w} {v}" for w, v in vigor)
            return f"Steamfunkateers starts: {', '.join(players)} (Vigor: {points})"
        case VigorChanged(who, delta, reason):
            sign = "gains" if delta > 0 else "spends"
            return f"{who} {sign} {_plural(abs(delta), 'point')} of Vigor ({reason})"
        case RoundCalled(kind, pools, labels, task):
            about = f" to {task}" if task else ""
            listed = "; ".join(
                f"{w} {d} dice ({label})" for (w, d), label in zip(pools, labels, strict=True)
            )
            what = "An exchange" if kind == "exchange" else "A check"
            return f"{what}{about}: {listed}"
        case DiceRolled(who, values):
            return f"{who} throws {_faces(values)}"
        case DiceRerolled(who, values):
            return f"{who} rerolls the non-sixes: {_faces(values)}"
        case PoolKept(who):
            return f"{who} keeps the dice"
        case Folded(who):
            if who == GM:
                return "The GM folds: the conflict ceases without resolution"
            return f"{who} folds out of the action"
        case RoundResolved(counts, winners, failed, extraordinary):
            return _result_words(counts, winners, failed, extraordinary)
        case ContestStarted(participants, goal):
            about = f" for {goal}" if goal else ""
            return f"A contest{about}: {', '.join(participants)}; three victories win it"
        case ExchangeWon(who):
            return f"{who} wins the exchange" if who else "A tie: nobody wins the exchange"
        case ContestEnded(winner):
            if winner is None:
                return "The contest ends unresolved"
            return f"{winner} wins the contest with {CONTEST_WINS} victories"
        case OrderCalled(kind, ranks, _):
            listed = ", ".join(f"{w} {'/'.join(map(str, r))}" for w, r in ranks)
            return f"Turn order ({kind}): {listed}"
        case TieDieRolled(who, value):
            return f"{who} throws {value} to break the tie"
        case OrderSet(order):
            return f"The turn order: {', '.join(order)}"
        case TurnEnded(who):
            return f"{who}'s turn ends"
        case ConflictEnded(resolved):
            return "The conflict is over" if resolved else "The conflict ends unresolved"
        case ConditionCalled(target, by, thrower, name):
            kind = f" ({name})" if name else ""
            return f"{target} suffers a condition{kind} from {by}: {thrower} throws its severity"
        case ConditionSuffered(target, severity, name):
            kind = f" {name}" if name else ""
            return f"{target}'s condition{kind} has severity {severity}"
        case NarrationWon(player, spent):
            return f"{player} wins the bid ({_plural(spent, 'point')} of Vigor) and narrates"
        case GmBought(on, points, detail):
            more = f": {detail}" if detail else ""
            return f"The GM buys {on.replace('_', ' ')} for {points} Vigor{more}"
        case GameEnded():
            return "The game is over"


def _faces(values: tuple[int, ...]) -> str:
    return " ".join(str(v) for v in values) + f" ({_plural(values.count(6), 'six')})"


def _result_words(
    counts: tuple[tuple[str, int], ...],
    winners: tuple[str, ...],
    failed: tuple[str, ...],
    extraordinary: tuple[str, ...],
) -> str:
    if not counts:
        return "Everyone folded: the action remains unresolved"
    parts = [", ".join(f"{w} {_plural(n, 'six')}" for w, n in counts)]
    if winners:
        parts.append(f"{' and '.join(winners)} win{'s' if len(winners) == 1 else ''}")
    for who in extraordinary:
        parts.append(f"{who}: four successes or more on the first roll, something extraordinary")
    for who in failed:
        parts.append(f"{who}: no six, something goes wrong (the GM's call)")
    return "; ".join(parts)


def render_view(view: Mapping[str, Any]) -> str:
    """The table as text from its JSON view."""
    lines = [f"Steamfunkateers ({view.get('phase')})  GM Vigor {view.get('gm_vigor', 0)}"]
    for p in view.get("players", []):
        conditions = ", ".join(
            f"{c['name'] or 'condition'} {c['severity']}" for c in p["conditions"]
        )
        lines.append(
            f"  {p['name']:<12} Vigor {p['vigor']}  victories {p['contest_wins']}"
            + (f"  conditions: {conditions}" if conditions else "")
        )
    round_ = view.get("round")
    if round_:
        for pool in round_["pools"]:
            shown = " ".join(map(str, pool["values"])) or "-"
            lines.append(f"  pool {pool['who']}: {pool['dice']} dice ({pool['label']}): {shown}")
    pending = view.get("pending")
    if isinstance(pending, dict) and pending.get("prompt"):
        lines.append(f"  waiting: {pending['prompt']}")
    return "\n".join(lines)

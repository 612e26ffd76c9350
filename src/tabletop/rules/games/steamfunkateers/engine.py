"""Steamfunkateers' engine: a command in, the events it causes out (folded), or a refusal.

A refused command changes nothing: events are computed on the side and applied only when the
whole command is legal. Dice are outside the engine: `roll` and `reroll` carry the faces read
from the tray (or typed by the game master).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import (
    InvalidCommand,
    OutOfTurn,
    SetupError,
    UnknownPlayer,
    plain,
    quote,
)
from ..game import EventLog, Gathering, command_handler
from . import commands as read
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
from .model import (
    CONTEST_WINS,
    EXTRAORDINARY,
    GM,
    GM_BASE_DICE,
    GM_COSTS,
    MAX_OBSTACLE,
    MAX_RANK,
    ORDER_SKILLS,
    SUCCESS_FACE,
    ContestRuleError,
    GmCost,
    NarrationError,
    OrderKind,
    PoolError,
    RerollError,
    RoundKind,
    TurnOrderError,
    VigorError,
)
from .state import GameState, Pool, sixes

OPTION_DEFAULTS: dict[str, Any] = {
    "starting_vigor": 0,
    "gm_vigor": 0,
    "vigor_once_per_roll": True,
    "fold_after_failed_throw": False,
}


class Game(EventLog[GameState, Event]):
    """One game: its events and the state folded from them."""

    def __init__(self, events: Iterable[Event] = ()) -> None:
        super().__init__(GameState(), events)

    def execute(self, command: Mapping[str, Any]) -> tuple[Event, ...]:
        """The events `command` causes, applied; a RulesError (nothing changed) if refused."""
        cmd, handler = command_handler(command, _HANDLERS, "Steamfunkateers", self._state)
        state = self._state
        if cmd not in _WHILE_THROWING and throw_pending(state):
            raise OutOfTurn(f"{waiting_words(state)} first")
        out = _Out(state)
        handler(out, command)
        return self._keep(out)


_Out = Gathering[GameState, Event]


def throw_pending(state: GameState) -> bool:
    """True while the game waits for dice (a pool, a tie die, a severity die)."""
    order = state.order
    return (
        state.condition is not None
        or (order is not None and not order.order)
        or (state.round is not None and state.round.current is not None)
    )


def rerollable(state: GameState, pool: Pool) -> bool:
    """True when `pool` has been thrown and its thrower may still spend Vigor to reroll."""
    return (
        pool.thrown
        and not pool.rerolled
        and not (pool.vigor_spent and state.options.get("vigor_once_per_roll", True))
        and sixes(pool.values) < len(pool.values)
        and state.vigor.get(state.thrower_of(pool.who), 0) >= 1
    )


def waiting_words(state: GameState) -> str:
    """What the game waits for, in a few words (for refusals)."""
    if state.condition is not None:
        return f"{state.condition.thrower} throws one die for the severity of the condition"
    order = state.order
    if order is not None and not order.order:
        return f"{order.next_tie_thrower} throws one die to break the tie"
    pool = state.round.current if state.round is not None else None
    if pool is not None:
        thrower = state.thrower_of(pool.who)
        if pool.thrown:
            return f"{thrower} rerolls the non-sixes for a point of Vigor, or keeps"
        return f"{thrower} throws {pool.dice} dice"
    return "the game master calls the next action"


# -- setting up ------------------------------------------------------------------------------


def _new_game(out: _Out, command: Mapping[str, Any]) -> None:
    if out.state.in_play:
        raise SetupError("a game is in play: end the game first")
    raw_options = command.get("options") or {}
    if not isinstance(raw_options, dict):
        raise InvalidCommand("options: expected a table of options", "options")
    for key in raw_options:
        if key not in OPTION_DEFAULTS:
            raise InvalidCommand(
                f"options.{key}: Steamfunkateers has no such option", f"options.{key}"
            )
    options = {**OPTION_DEFAULTS, **raw_options}
    starting = read.integer(options, "starting_vigor", 0, None, at="options.")
    gm_vigor = read.integer(options, "gm_vigor", 0, None, at="options.")
    players = command.get("players")
    if not isinstance(players, list) or not players:
        raise InvalidCommand("players: expected a list of player names", "players")
    names: list[str] = []
    vigor: list[tuple[str, int]] = []
    for i, raw in enumerate(players):
        at = f"players[{i}]"
        entry = {"name": raw} if isinstance(raw, str) else raw
        if not isinstance(entry, dict):
            raise InvalidCommand(f"{at}: expected a name or an object", at)
        name = read.text(entry, "name", at=f"{at}.")
        if name == GM or name in names:
            raise InvalidCommand(f"{at}.name: {quote(name)} is taken", f"{at}.name")
        names.append(name)
        vigor.append((name, read.integer(entry, "vigor", 0, None, starting, at=f"{at}.")))
    vigor.append((GM, gm_vigor))
    once = read.flag(options, "vigor_once_per_roll", at="options.")
    late_fold = read.flag(options, "fold_after_failed_throw", at="options.")
    chosen = (
        ("starting_vigor", starting),
        ("gm_vigor", gm_vigor),
        ("vigor_once_per_roll", once),
        ("fold_after_failed_throw", late_fold),
    )
    out.add(GameStarted(tuple(names), tuple(vigor), chosen))


def _end_game(out: _Out, command: Mapping[str, Any]) -> None:
    out.add(GameEnded())


def _award(out: _Out, command: Mapping[str, Any]) -> None:
    player = _player(out.state, read.text(command, "player"))
    points = read.integer(command, "points", 1, None, 1)
    state = out.state
    if player in state.folded or player in state.unrewarded:
        # "Characters who fold receive no Vigor from the GM after a given conflict."
        action = "the action in play" if player in state.folded else "the last action"
        raise VigorError(
            f"{player} folded out of {action}: "
            "characters who fold receive no Vigor from the GM after a given conflict"
        )
    out.add(VigorChanged(player, points, "awarded by the GM"))


def _player(state: GameState, name: str) -> str:
    if name not in state.players:
        raise UnknownPlayer(
            f"there is no player named {plain(name)} at this table "
            f"(seated: {', '.join(state.players)})"
        )
    return name


def _spend(out: _Out, who: str, points: int, reason: str) -> None:
    have = out.state.vigor.get(who, 0)
    if have < points:
        raise VigorError(f"{who} has {have} Vigor, {reason} costs {points}")
    out.add(VigorChanged(who, -points, reason))


# -- pools -----------------------------------------------------------------------------------


# The keys a pool may have; any other is refused by name (a typo would otherwise be ignored).
_PLAYER_POOL_KEYS = frozenset({"player", "rank", "skill"})
_NPC_POOL_KEYS = frozenset({"npc", "base", "outnumbering"})
_MODIFIER_KEYS = frozenset(
    {"obstacle", "unfamiliar", "conditions", "circumstance", "bonus", "extra_die"}
)
MAX_MODIFIER = 6  # no modifier takes more dice than the largest pool holds


def _modifiers(spec: Mapping[str, Any], at: str) -> tuple[int, list[str]]:
    """The dice a pool's modifiers add (negative: take off), and each in words.

    "An obstacle comes in 2 levels"; "Unfamiliarity: ... a level-1 penalty should be
    applied"; "Conditions: These will regularly provide penalties."; "Circumstantial
    modifiers ... can be positive or negative"; "a 1d (1 die) bonus might be awarded". The
    page lists them one after the other and caps none of their sum, so they all add up."""
    raw = spec.get("obstacle", 0)
    if isinstance(raw, list):  # several descriptors, each its own obstacle
        obstacles = [
            read.integer({"": level}, "", 1, MAX_OBSTACLE, at=f"{at}obstacle[{i}]")
            for i, level in enumerate(raw)
        ]
    else:
        obstacles = [read.integer(spec, "obstacle", 0, MAX_OBSTACLE, 0, at=at)]
    unfamiliar = read.flag(spec, "unfamiliar", at=at)
    conditions = read.integer(spec, "conditions", 0, MAX_MODIFIER, 0, at=at)
    circumstance = read.integer(spec, "circumstance", -MAX_MODIFIER, MAX_MODIFIER, 0, at=at)
    bonus = read.integer(spec, "bonus", 0, 1, 0, at=at)
    words = [f"-{level} obstacle" for level in obstacles if level]
    if unfamiliar:
        words.append("-1 unfamiliar")
    if conditions:
        words.append(f"-{conditions} conditions")
    if circumstance:
        words.append(f"{circumstance:+d} circumstance")
    if bonus:
        words.append("+1 applicability")
    change = -sum(obstacles) - int(unfamiliar) - conditions + circumstance + bonus
    return change, words


def _pool(out: _Out, spec: Mapping[str, Any], at: str) -> tuple[str, int, str]:
    """One pool's thrower and dice from its spec, spending or awarding Vigor for an extra die."""
    state = out.state
    known = (_PLAYER_POOL_KEYS if "player" in spec else _NPC_POOL_KEYS) | _MODIFIER_KEYS
    unknown = [key for key in spec if key not in known]
    if unknown:
        raise InvalidCommand(
            f"{at}{unknown[0]}: a pool takes no such key (it takes: {', '.join(sorted(known))})",
            f"{at}{unknown[0]}",
        )
    change, words = _modifiers(spec, at)
    extra = read.flag(spec, "extra_die", at=at)
    if "player" in spec:
        who = _player(state, read.text(spec, "player", at=at))
        rank = read.integer(spec, "rank", 0, None, at=at)
        if rank > MAX_RANK:
            raise PoolError(f"{at}rank: {rank} is over the maximum Skill rank of {MAX_RANK}")
        skill = read.text(spec, "skill", "skill", at=at)
        dice = rank + change + int(extra)
        label = f"{skill} {rank}"
        if extra:
            _spend(out, who, 1, "an extra die")
    else:
        who = read.text(spec, "npc", GM, at=at)
        if who in state.players:
            raise PoolError(f"{at}npc: {quote(who)} is a player: give a player's pool as player")
        base = read.integer(spec, "base", 1, None, GM_BASE_DICE, at=at)
        outnumbering = read.integer(spec, "outnumbering", 0, None, 0, at=at)
        dice = base + outnumbering + change + int(extra)
        label = f"GM {base}d" + (f" +{outnumbering} outnumbering" if outnumbering else "")
        if extra:
            # "The GM may award one point of Vigor to each player and receive one extra die"
            for player in state.players:
                out.add(VigorChanged(player, 1, "the GM's extra die"))
    for word in words:
        label += f" {word}"
    if extra:
        label += " +1 Vigor die"
    if dice < 1:
        raise PoolError(f"{at[:-1] or 'pool'}: {who} would throw {dice} dice: no pool to roll")
    return who, dice, label


def _call(out: _Out, command: Mapping[str, Any], kind: RoundKind) -> None:
    specs = read.table(command, "pools")
    task = str(command.get("task", ""))[:80]
    made: list[tuple[str, int]] = []
    labels: list[str] = []
    bought: list[str] = []
    for i, spec in enumerate(specs):
        who, dice, label = _pool(out, spec, f"pools[{i}].")
        if "player" in spec and spec.get("extra_die") is True:
            bought.append(who)  # a point of Vigor spent on this roll already
        if any(w == who for w, _ in made):
            raise PoolError(f"pools[{i}]: {who} already has a pool in this roll")
        if who in out.state.folded and out.state.action_in_play:
            # A fold removes the character "from the risks and the rewards of a given action".
            raise VigorError(f"pools[{i}]: {who} folded out of the action in play")
        made.append((who, dice))
        labels.append(label)
    if kind is RoundKind.EXCHANGE:
        contest = out.state.contest
        if contest is None or contest.over:
            raise ContestRuleError("no contest in play: call a contest first")
        expected = {p for p in contest.participants if p not in out.state.folded}
        named = {w for w, _ in made}
        if named != expected:
            listed = ", ".join(sorted(expected))
            raise ContestRuleError(
                f"every participant makes one skill check in an exchange: pools for {listed}"
            )
    out.add(RoundCalled(kind.value, tuple(made), tuple(labels), task, tuple(bought)))


def _check(out: _Out, command: Mapping[str, Any]) -> None:
    _call(out, command, RoundKind.CHECK)


def _exchange(out: _Out, command: Mapping[str, Any]) -> None:
    _call(out, command, RoundKind.EXCHANGE)


def _current_pool(state: GameState) -> Pool:
    pool = state.round.current if state.round is not None else None
    if pool is None:
        raise OutOfTurn(f"no pool is waiting for dice: {waiting_words(state)}")
    return pool


def _roll(out: _Out, command: Mapping[str, Any]) -> None:
    values = read.dice(command)
    state = out.state
    if state.condition is not None:
        _one_die(values, state.condition.thrower)
        pending = state.condition
        out.add(ConditionSuffered(pending.target, values[0], pending.name))
        return
    if state.order is not None and not state.order.order:
        who = state.order.next_tie_thrower
        assert who is not None
        _one_die(values, state.thrower_of(who))
        out.add(TieDieRolled(who, values[0]))
        _settle_order(out)
        return
    pool = _current_pool(state)
    if pool.thrown:
        raise OutOfTurn(
            f"{pool.who} has thrown: reroll the non-sixes for a point of Vigor, or keep"
        )
    if len(values) != pool.dice:
        raise InvalidCommand(
            f"values: {pool.who}'s pool is {pool.dice} dice, got {len(values)}", "values"
        )
    out.add(DiceRolled(pool.who, values))
    if not rerollable(out.state, _current_pool(out.state)):
        out.add(PoolKept(pool.who))
        _after_pool(out)


def _one_die(values: tuple[int, ...], thrower: str) -> None:
    if len(values) != 1:
        raise InvalidCommand(f"values: {thrower} throws a single die, got {len(values)}", "values")


def _reroll(out: _Out, command: Mapping[str, Any]) -> None:
    values = read.dice(command)
    pool = _current_pool(out.state)
    if not pool.thrown:
        raise RerollError(f"{pool.who} has not thrown yet: roll first")
    if pool.rerolled:
        raise VigorError("You can only spend a point of Vigor once for each roll")
    if pool.vigor_spent and out.state.options.get("vigor_once_per_roll", True):
        raise VigorError(
            f"{pool.who} spent a point of Vigor on an extra die for this roll: "
            "you can only spend a point of Vigor once for each roll"
        )
    kept = tuple(v for v in pool.values if v == SUCCESS_FACE)
    rethrown = len(pool.values) - len(kept)
    if rethrown == 0:
        raise RerollError(f"{pool.who}'s dice all show sixes: nothing to reroll")
    if len(values) == rethrown:
        tray = (*kept, *values)  # only the rethrown dice were given
    elif len(values) == len(pool.values):
        tray = values  # the whole tray after the rethrow
        if sixes(values) < len(kept):
            raise RerollError(
                f"a six was taken away: {len(kept)} sixes stay in the tray, "
                f"{sixes(values)} seen; rethrow only the dice not showing sixes"
            )
    elif rethrown == len(pool.values):
        raise RerollError(f"expected the {rethrown} dice thrown again, got {len(values)}")
    else:
        raise RerollError(
            f"expected the {rethrown} rethrown dice or the whole tray of {len(pool.values)}, "
            f"got {len(values)}"
        )
    thrower = out.state.thrower_of(pool.who)
    _spend(out, thrower, 1, "a reroll")
    if thrower != GM:
        # "Every time a PC rerolls, the GM is awarded 1 point of Vigor."
        out.add(VigorChanged(GM, 1, f"{thrower} rerolled"))
    out.add(DiceRerolled(pool.who, tray))
    _after_pool(out)


def _keep(out: _Out, command: Mapping[str, Any]) -> None:
    pool = _current_pool(out.state)
    if not pool.thrown:
        raise OutOfTurn(f"{pool.who} has not thrown yet: roll first")
    out.add(PoolKept(pool.who))
    _after_pool(out)


def _after_pool(out: _Out) -> None:
    """Resolves the round once no pool is left to throw."""
    round_ = out.state.round
    if round_ is None or round_.current is not None:
        return
    live = [p for p in round_.pools if not p.folded]
    players = [p for p in round_.pools if p.who in out.state.players]
    if players and all(p.folded for p in players):
        # "If all player characters fold, then the conflict remains unresolved"
        out.add(RoundResolved((), (), (), ()))
        _unresolved_contest(out)
        return
    counts = tuple((p.who, p.sixes) for p in live)
    failed = tuple(p.who for p in live if p.sixes == 0)
    extraordinary = tuple(p.who for p in live if p.first_sixes >= EXTRAORDINARY)
    out.add(RoundResolved(counts, _winners(out.state, live, round_.kind), failed, extraordinary))
    if round_.kind is RoundKind.EXCHANGE:
        _score_exchange(out)


def _winners(state: GameState, pools: list[Pool], kind: RoundKind) -> tuple[str, ...]:
    if not pools:
        return ()
    if len(pools) == 1:
        return (pools[0].who,) if pools[0].sixes >= 1 else ()
    npc = [p for p in pools if p.who not in state.players]
    if kind is RoundKind.CHECK and npc and len(npc) < len(pools):
        # "the player that beats the GM's number of successes ... wins that round"
        bar = max(p.sixes for p in npc)
        return tuple(p.who for p in pools if p.who in state.players and p.sixes > bar)
    best = max(p.sixes for p in pools)
    top = [p.who for p in pools if p.sixes == best]
    return (top[0],) if best >= 1 and len(top) == 1 else ()


def _score_exchange(out: _Out) -> None:
    result, contest = out.state.last_result, out.state.contest
    assert result is not None and contest is not None
    winner = result.winners[0] if result.winners else None
    out.add(ExchangeWon(winner))
    contest = out.state.contest
    if winner is not None and contest is not None and contest.wins[winner] >= CONTEST_WINS:
        out.add(ContestEnded(winner))


def _unresolved_contest(out: _Out) -> None:
    contest = out.state.contest
    if contest is not None and not contest.over:
        out.add(ContestEnded(None))


# -- contests, turn order, conflicts ---------------------------------------------------------


def _contest(out: _Out, command: Mapping[str, Any]) -> None:
    contest = out.state.contest
    if contest is not None and not contest.over:
        raise ContestRuleError("a contest is in play: finish it or call it off first")
    raw = command.get("participants")
    if not isinstance(raw, list) or len(raw) < 2:
        raise InvalidCommand("participants: a contest needs two or more names", "participants")
    names = tuple(
        read.text({"name": n}, "name", at=f"participants[{i}].") for i, n in enumerate(raw)
    )
    if len(set(names)) < len(names):
        raise InvalidCommand("participants: a name appears twice", "participants")
    out.add(ContestStarted(names, str(command.get("goal", ""))[:80]))


def _end_contest(out: _Out, command: Mapping[str, Any]) -> None:
    contest = out.state.contest
    if contest is None or contest.over:
        raise ContestRuleError("no contest in play")
    out.add(ContestEnded(None))


def _turn_order(out: _Out, command: Mapping[str, Any]) -> None:
    kind_raw = command.get("kind", "scene")
    try:
        kind = OrderKind(kind_raw)
    except ValueError:
        raise InvalidCommand(
            f"kind: expected scene, physical or mental, got {quote(kind_raw)}", "kind"
        ) from None
    skills = ORDER_SKILLS[kind]
    entrants = read.table(command, "entrants")
    ranks: list[tuple[str, tuple[int, ...]]] = []
    for i, entry in enumerate(entrants):
        at = f"entrants[{i}]."
        who = read.text(entry, "who", at=at)
        if any(w == who for w, _ in ranks):
            raise InvalidCommand(f"{at}who: {who} is listed twice", f"{at}who")
        row = entry.get("ranks")
        if not isinstance(row, list) or len(row) != len(skills):
            raise InvalidCommand(
                f"{at}ranks: expected {len(skills)} rank{'s' if len(skills) > 1 else ''} "
                f"({', '.join(skills)})",
                f"{at}ranks",
            )
        for j, _ in enumerate(row):
            read.integer({"r": row[j]}, "r", 0, MAX_RANK, at=f"{at}ranks[{j}]")
        ranks.append((who, tuple(row)))
    npcs = tuple(w for w, _ in ranks if w not in out.state.players)
    out.add(OrderCalled(kind.value, tuple(ranks), npcs))
    _settle_order(out)


def _settle_order(out: _Out) -> None:
    order = out.state.order
    assert order is not None
    if order.tied:
        return  # "each player and NPC involved in the tie rolls a single die"
    ranked = sorted(order.entrants, key=lambda w: order.keys[w], reverse=True)
    out.add(OrderSet(tuple(ranked)))


def _order_in_use(state: GameState) -> None:
    if state.order is None or not state.order.order:
        raise TurnOrderError("no turn order is set: the game master sets one first")


def _end_turn(out: _Out, command: Mapping[str, Any]) -> None:
    _order_in_use(out.state)
    assert out.state.order is not None
    current = out.state.order.current
    assert current is not None
    out.add(TurnEnded(current))


def _end_conflict(out: _Out, command: Mapping[str, Any]) -> None:
    _order_in_use(out.state)
    out.add(ConflictEnded(True))


def _condition(out: _Out, command: Mapping[str, Any]) -> None:
    target = read.text(command, "target")
    by = read.text(command, "by", GM)
    if target == by:
        raise InvalidCommand("by: a condition comes from the one who beat the target", "by")
    if target in out.state.folded and out.state.action_in_play:
        # A fold removes the character "from the risks and the rewards of a given action".
        raise VigorError(f"{target} folded out of the action in play: no condition from it")
    name = command.get("name", "")
    if not isinstance(name, str):  # a name is words: 5, null or a list is no condition's name
        raise InvalidCommand(
            f"name: expected the condition's name as text (or none), got {quote(name)}", "name"
        )
    name = name[:40]
    # "by the player that beat him, or the GM if the character was beaten by an NPC"
    out.add(ConditionCalled(target, by, out.state.thrower_of(by), name))


# -- Vigor -----------------------------------------------------------------------------------


def _present(state: GameState) -> list[str]:
    """Players present in the action in play (round, contest, conflict), not folded."""
    present: set[str] = set()
    if state.round is not None:
        present |= {p.who for p in state.round.pools}
    if state.contest is not None and not state.contest.over:
        present |= set(state.contest.participants)
    if state.order is not None:
        present |= set(state.order.entrants)
    return [p for p in state.players if p in present and p not in state.folded]


def _fold(out: _Out, command: Mapping[str, Any]) -> None:
    player = _player(out.state, read.text(command, "player"))
    if player not in _present(out.state):
        raise VigorError(f"{player} is in no action in play to fold out of")
    pool = (
        next((p for p in out.state.round.pools if p.who == player), None)
        if out.state.round
        else None
    )
    if pool is not None and pool.done:
        raise VigorError(f"{player} has kept their dice: too late to fold this roll")
    if (
        pool is not None
        and pool.thrown
        and pool.sixes == 0
        and not out.state.options.get("fold_after_failed_throw", False)
    ):
        # "Fold—The player may spend one point of Vigor to Fold, thereby removing his or her
        # character from the risks and the rewards of a given action": once her own throw has
        # failed, the risk has come (the option `fold_after_failed_throw` reads it otherwise).
        raise VigorError(
            f"{player}'s throw failed: too late to fold out of its risks; reroll the dice "
            "not showing sixes for a point of Vigor, or keep them"
        )
    _spend(out, player, 1, "a fold")
    out.add(Folded(player))
    if not _present(out.state):
        if out.state.round is not None:
            out.add(RoundResolved((), (), (), ()))
        _unresolved_contest(out)
        if out.state.order is not None:
            out.add(ConflictEnded(False))
    else:
        _after_pool(out)


def _gm_fold(out: _Out, command: Mapping[str, Any]) -> None:
    present = _present(out.state)
    if not present:
        raise VigorError("no player is present in an action in play: nothing to fold")
    # "The GM may award one point of Vigor to each player present in a conflict to Fold."
    for player in present:
        out.add(VigorChanged(player, 1, "the GM folded"))
    out.add(Folded(GM))
    if out.state.round is not None:
        out.add(RoundResolved((), (), (), ()))
    _unresolved_contest(out)
    if out.state.order is not None:
        out.add(ConflictEnded(False))


def _narrate(out: _Out, command: Mapping[str, Any]) -> None:
    bids = command.get("bids")
    if not isinstance(bids, dict) or not bids:
        raise InvalidCommand('bids: expected {"player": points, ...}', "bids")
    checked: dict[str, int] = {}
    for name in bids:
        player = _player(out.state, name)
        checked[player] = read.integer(bids, name, 1, None, at="bids.")
        have = out.state.vigor.get(player, 0)
        if have < checked[player]:
            raise VigorError(f"{player} bids {checked[player]} Vigor but has {have}")
    best = max(checked.values())
    top = [p for p, v in checked.items() if v == best]
    if len(top) > 1:
        raise NarrationError(
            f"{' and '.join(top)} tie at {best}: the player who spends the most narrates; "
            "raise a bid"
        )
    _spend(out, top[0], best, "narration")
    out.add(NarrationWon(top[0], best))


def _gm_buy(out: _Out, command: Mapping[str, Any]) -> None:
    raw = command.get("on")
    try:
        cost = GmCost(raw)
    except ValueError:
        names = ", ".join(c.value for c in GmCost)
        raise InvalidCommand(f"on: expected one of {names}, got {quote(raw)}", "on") from None
    low, high = GM_COSTS[cost]
    points = read.integer(command, "points", low, high, low)
    _spend(out, GM, points, cost.value.replace("_", " "))
    out.add(GmBought(cost.value, points, str(command.get("detail", ""))[:80]))


_HANDLERS: dict[str, Callable[[_Out, Mapping[str, Any]], None]] = {
    "new_game": _new_game,
    "end_game": _end_game,
    "award": _award,
    "check": _check,
    "contest": _contest,
    "exchange": _exchange,
    "end_contest": _end_contest,
    "roll": _roll,
    "reroll": _reroll,
    "keep": _keep,
    "fold": _fold,
    "gm_fold": _gm_fold,
    "turn_order": _turn_order,
    "end_turn": _end_turn,
    "end_conflict": _end_conflict,
    "condition": _condition,
    "narrate": _narrate,
    "gm_buy": _gm_buy,
}
# What may be sent while the game waits for dice.
_WHILE_THROWING = frozenset({"roll", "reroll", "keep", "fold", "gm_fold", "award", "end_game"})

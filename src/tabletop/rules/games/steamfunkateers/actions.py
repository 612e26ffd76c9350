"""The game master's verbs for Steamfunkateers (`tabletop gm VERB`): each builds one command.

A pool is written `NAME=RANK` for a player (`Ana=4`) or `npc` / `npc:NAME` for the GM's
(`npc:Thugs`), followed by comma-separated changes: `skill=Burglary`, `obstacle=1` (once
per obstacle), `unfamiliar`, `conditions=1` (dice off for conditions), `circumstance=-1` or
`=+1`, `bonus`, `extra` (a Vigor die), and for the GM `base=6`, `outnumbering=2`.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from ..game import PLAYER, ArgumentAdder, GmAction, VerbGroup, labelled, worded
from ..rows import Column, Rows
from .model import GM_BASE_DICE, MAX_OBSTACLE, MAX_RANK, ORDER_SKILLS, GmCost, OrderKind

_NUMBERS = ("outnumbering", "base", "conditions")


def pool_spec(text: str) -> dict[str, Any]:
    """One pool from `NAME=RANK,change,...` or `npc[:NAME],change,...`."""
    head, *changes = text.split(",")
    pool: dict[str, Any]
    if head == "npc" or head.startswith("npc:"):
        pool = {"npc": head[4:] or "GM"}
    else:
        name, sep, rank = head.partition("=")
        if not sep or not name or not rank.isdigit():
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected PLAYER=RANK (Ana=4) or npc[:NAME], then ,changes"
            )
        pool = {"player": name, "rank": int(rank)}
    for change in changes:
        key, sep, value = change.partition("=")
        if key in ("bonus", "extra") and not sep:
            pool["bonus" if key == "bonus" else "extra_die"] = 1 if key == "bonus" else True
        elif key == "unfamiliar" and not sep:
            pool["unfamiliar"] = True
        elif key == "obstacle" and value.isdigit():
            # Obstacles add up: `obstacle=2,obstacle=1` is two descriptors' obstacles.
            before = pool.get("obstacle")
            levels = [] if before is None else before if isinstance(before, list) else [before]
            pool["obstacle"] = int(value) if not levels else [*levels, int(value)]
        elif key == "circumstance" and value.lstrip("+-").isdigit():
            pool["circumstance"] = int(value)
        elif key in _NUMBERS and value.isdigit():
            pool[key] = int(value)
        elif key == "skill" and value:
            pool["skill"] = value
        else:
            raise argparse.ArgumentTypeError(
                f"{change!r} in {text!r}: expected skill=NAME, obstacle=1|2 (again for "
                "each obstacle), unfamiliar, conditions=N, circumstance=+N|-N, bonus, extra, "
                "base=N or outnumbering=N"
            )
    return pool


def _entrant(text: str) -> dict[str, Any]:
    name, sep, ranks = text.partition("=")
    numbers = ranks.split("/") if sep else []
    if not name or not numbers or not all(n.isdigit() for n in numbers):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME=RANK[/RANK/RANK], e.g. Ana=3/2/1"
        )
    return {"who": name, "ranks": [int(n) for n in numbers]}


# The most dice a modifier takes off or adds (the engine's own bound: the largest pool).
_MOST = 6


def _write_pool(row: Mapping[str, Any]) -> str:
    """A pool built on the page (its row's columns, checked) as `pool_spec` reads it."""
    if row.get("npc"):
        head = "npc" + (f":{row['who']}" if row.get("who") else "")
        numbers: tuple[str, ...] = ("base", "outnumbering")
    else:
        head = f"{row['who']}={row['rank']}"
        numbers = ()
    changes = [f"skill={row['skill']}"] if row.get("skill") and not row.get("npc") else []
    changes += [f"{key}={row[key]}" for key in numbers if row.get(key) is not None]
    changes += [f"obstacle={row[key]}" for key in ("obstacle", "obstacle_2") if row.get(key)]
    changes += ["unfamiliar"] if row.get("unfamiliar") else []
    changes += [f"conditions={row['conditions']}"] if row.get("conditions") else []
    if row.get("circumstance"):
        changes.append(f"circumstance={row['circumstance']:+d}")
    changes += ["bonus"] if row.get("bonus") else []
    changes += ["extra"] if row.get("extra") else []
    return ",".join([head, *changes])


POOL_ROWS = Rows(
    noun="pool",
    add="Add a pool",
    help="a row per pool: who throws, the rank and what changes the dice; two pools or more "
    "are an opposed roll",
    columns=(
        Column("who", "who throws", "who"),
        Column(
            "rank",
            "skill rank (dice)",
            "number",
            required=True,
            minimum=0,
            maximum=MAX_RANK,
            side="player",
        ),
        Column("skill", "skill", "text", side="player", help="named in the roll's words"),
        Column(
            "base",
            "the game master's dice",
            "number",
            minimum=1,
            side="npc",
            help=f"{GM_BASE_DICE} unless you say otherwise",
        ),
        Column(
            "outnumbering",
            "outnumbering the players",
            "number",
            minimum=0,
            side="npc",
            help="a die for each opponent more than the players' team",
        ),
        Column("obstacle", "obstacle level", "number", minimum=0, maximum=MAX_OBSTACLE),
        Column("obstacle_2", "another obstacle's level", "number", minimum=0, maximum=MAX_OBSTACLE),
        Column("conditions", "dice off for conditions", "number", minimum=0, maximum=_MOST),
        Column(
            "circumstance",
            "circumstance (dice, more or fewer)",
            "number",
            minimum=-_MOST,
            maximum=_MOST,
        ),
        Column("bonus", "bonus die (the more applicable talent)", "flag"),
        Column("extra", "extra die (a point of Vigor)", "flag"),
        Column("unfamiliar", "unfamiliar (a die off)", "flag"),
    ),
    write=_write_pool,
    read=pool_spec,
    reserved=",=",
)


def _write_entrant(row: Mapping[str, Any]) -> str:
    ranks = [str(row[key]) for key in _RANKS if row.get(key) is not None]
    return f"{row['who']}={'/'.join(ranks)}"


# The three ranks an entrant's `3/2/1` stands for: the skills each kind of order compares
# ("compare your Spot skill ... Athletics, then Physique"; "Empathy ... Rapport, then Will").
_RANKS = ("first", "second", "third")


def _rank_labels(index: int) -> tuple[tuple[str, str], ...]:
    return tuple(
        (kind.value, f"{skills[index]} rank")
        for kind, skills in ORDER_SKILLS.items()
        if index < len(skills)
    )


ENTRANT_ROWS = Rows(
    noun="entrant",
    add="Add an entrant",
    help="a row per player or character in the order, with the ranks of the skills compared",
    columns=(
        Column("who", "who", "who", required=True),
        *(
            Column(
                key,
                f"{('first', 'second', 'third')[i]} skill's rank",
                "number",
                required=True,
                minimum=0,
                maximum=MAX_RANK,
                labels=_rank_labels(i),
            )
            for i, key in enumerate(_RANKS)
        ),
    ),
    write=_write_entrant,
    read=_entrant,
    labels_from="kind",
    reserved="=",
)


def _bid(text: str) -> tuple[str, int]:
    name, sep, points = text.partition("=")
    if not sep or not name or not points.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: expected PLAYER=POINTS")
    return name, int(points)


def _die(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 6:
        raise argparse.ArgumentTypeError(f"{text!r}: a die shows 1 to 6")
    return int(text)


def _args(*adders: tuple[tuple[str, ...], dict[str, Any]]) -> ArgumentAdder:
    def add(parser: argparse.ArgumentParser) -> None:
        for names, options in adders:
            parser.add_argument(*names, **options)

    return add


def _plain(cmd: str) -> tuple[ArgumentAdder, Any]:
    return _args(), lambda a: {"cmd": cmd}


def _new(a: argparse.Namespace) -> dict[str, Any]:
    return {
        "cmd": "new_game",
        "players": a.players,
        "options": {"starting_vigor": a.vigor, "gm_vigor": a.gm_vigor},
    }


def _pools(cmd: str) -> Any:
    return lambda a: {"cmd": cmd, "pools": a.pools, **({"task": a.task} if a.task else {})}


_POOLS = _args(
    (
        ("pools",),
        {
            "nargs": "+",
            "type": POOL_ROWS,
            "metavar": "POOL",
            "help": "Ana=4,skill=Burglary,obstacle=1 or npc:Thugs,outnumbering=2",
        },
    ),
    (("--task",), {"default": "", "help": "what the check is for (default: not said)"}),
)
_DICE = _args((("values",), {"nargs": "+", "type": _die, "help": "the dice as read"}))

_VERBS: tuple[GmAction, ...] = (
    GmAction(
        "new",
        "start Steamfunkateers with these players",
        _args(
            (("players",), {"nargs": "+", "help": "the players' names"}),
            (
                ("--vigor",),
                {"type": int, "default": 0, "help": "each player's starting Vigor (default 0)"},
            ),
            (
                ("--gm-vigor",),
                {"type": int, "default": 0, "help": "the GM's starting Vigor (default 0)"},
            ),
        ),
        _new,
    ),
    GmAction("check", "call a roll: one pool or several (opposed)", _POOLS, _pools("check")),
    GmAction(
        "contest",
        "start a contest (three victories win it)",
        _args(
            (("participants",), {"nargs": "+", "help": "who takes part (players or NPCs)"}),
            (("--goal",), {"default": "", "help": "what the contest is about (default: not said)"}),
        ),
        lambda a: {"cmd": "contest", "participants": a.participants, "goal": a.goal},
    ),
    GmAction("exchange", "call the contest's next exchange", _POOLS, _pools("exchange")),
    GmAction("end-contest", "call the contest off unresolved", *_plain("end_contest")),
    GmAction("roll", "enter a throw by hand", _DICE, lambda a: {"cmd": "roll", "values": a.values}),
    GmAction(
        "reroll",
        "enter a Vigor reroll by hand (the rethrown dice or the whole tray)",
        _DICE,
        lambda a: {"cmd": "reroll", "values": a.values},
    ),
    GmAction("keep", "the thrower keeps the dice without a reroll", *_plain("keep")),
    GmAction(
        "fold",
        "a player spends a point of Vigor to fold",
        _args((("player",), {"help": "the player who folds"})),
        lambda a: {"cmd": "fold", "player": a.player},
    ),
    GmAction("gm-fold", "the GM folds, giving each present player a Vigor", *_plain("gm_fold")),
    GmAction(
        "turn-order",
        "set a turn order: scene (Empathy), physical (Spot, Athletics, Physique) or mental",
        _args(
            (
                ("kind",),
                {
                    "choices": [k.value for k in OrderKind],
                    "help": "the kind of order: " + ", ".join(k.value for k in OrderKind),
                },
            ),
            (
                ("entrants",),
                {
                    "nargs": "+",
                    "type": ENTRANT_ROWS,
                    "metavar": "ENTRANT",
                    "help": "Ana=3/2/1 Thug=2/2/2",
                },
            ),
        ),
        lambda a: {"cmd": "turn_order", "kind": a.kind, "entrants": a.entrants},
    ),
    GmAction("end-turn", "the current turn is over", *_plain("end_turn")),
    GmAction("end-conflict", "the conflict is resolved", *_plain("end_conflict")),
    GmAction(
        "condition",
        "a loser suffers a condition; the winner (or the GM) throws its severity",
        _args(
            (("target",), {"metavar": PLAYER, "help": "who suffers the condition"}),
            (("--by",), {"default": "GM", "help": "who throws its severity (default GM)"}),
            (
                ("--name",),
                {
                    "default": "",
                    "help": "the condition, from the Conditions table (default: not named yet)",
                },
            ),
        ),
        lambda a: {"cmd": "condition", "target": a.target, "by": a.by, "name": a.name},
    ),
    GmAction(
        "narrate",
        "bids of Vigor for narration: the highest narrates",
        _args(
            (
                ("bids",),
                {
                    "nargs": "+",
                    "type": _bid,
                    "metavar": "PLAYER=POINTS",
                    "help": "the points of Vigor each player bids",
                },
            )
        ),
        lambda a: {"cmd": "narrate", "bids": dict(a.bids)},
    ),
    GmAction(
        "gm-buy",
        "the GM spends Vigor (on one of the choices listed)",
        _args(
            (("on",), {"choices": [c.value for c in GmCost], "help": "what the GM buys"}),
            (
                ("--points",),
                {
                    "type": int,
                    "default": None,
                    "help": "Vigor spent, where the price is a range (default: the lowest)",
                },
            ),
            (("--detail",), {"default": "", "help": "what happens, for the log (default: none)"}),
        ),
        lambda a: {
            "cmd": "gm_buy",
            "on": a.on,
            "detail": a.detail,
            **({"points": a.points} if a.points is not None else {}),
        },
    ),
    GmAction(
        "award",
        "give a player Vigor",
        _args(
            (("player",), {"help": "the player given Vigor"}),
            (("points",), {"type": int, "nargs": "?", "default": 1, "help": "Vigor (default 1)"}),
        ),
        lambda a: {"cmd": "award", "player": a.player, "points": a.points},
    ),
    GmAction("end-game", "end the game", *_plain("end_game")),
)

_VERBS = labelled(
    _VERBS,
    {
        "new": {"vigor": "each player's starting Vigor", "gm_vigor": "the GM's starting Vigor"},
        "gm-buy": {"on": "what the GM buys", "points": "Vigor spent"},
        "condition": {"by": "who throws its severity", "name": "the condition"},
    },
)

_S, _D, _P, _G = VerbGroup.START, VerbGroup.DICE, VerbGroup.CHOICES, VerbGroup.CALLS
GM_ACTIONS: tuple[GmAction, ...] = worded(
    _VERBS,
    {
        "new": ("Start a game", _S, ("nothing",)),
        "check": ("Call a roll", _G, ("game_master",)),
        "contest": ("Start a contest", _G, ("game_master",)),
        "exchange": ("Call the contest's next exchange", _G, ("game_master",)),
        "end-contest": ("Call the contest off", _G, ()),
        "roll": ("Enter the dice by hand", _D, ("roll",)),
        "reroll": ("Enter a Vigor reroll by hand", _D, ("reroll",)),
        "keep": ("Keep the dice (no reroll)", _P, ("reroll",)),
        "fold": ("A player spends Vigor to fold", _P, ("roll", "reroll")),
        "gm-fold": ("The game master folds", _G, ("roll", "reroll")),
        "turn-order": ("Set a turn order", _G, ("game_master",)),
        "end-turn": ("End the turn", _G, ("game_master",)),
        "end-conflict": ("End the conflict", _G, ()),
        "condition": ("A loser suffers a condition", _G, ("severity",)),
        "narrate": ("Bid Vigor for narration", _P, ()),
        "gm-buy": ("The game master spends Vigor", _G, ()),
        "award": ("Give a player Vigor", _G, ()),
        "end-game": ("End the game", _S, ()),
    },
)

"""The game master's verbs for Six Shooter (`tabletop gm COMMAND`): each builds one command."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import InvalidCommand
from ..game import PLAYER, YES_NO, ArgumentAdder, GmAction, VerbGroup, labelled, worded
from ..roster import load_roster

ROSTER_KEYS = ("players", "jokers", "seed", "deck", "options", "campaign")
METHODS = ("danger", "sharpness", "slyness", "charm")


def _card_ref(text: str) -> dict[str, Any]:
    owner, sep, slot = text.rpartition(":")
    if not sep or not owner or not slot.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: expected PLAYER:SLOT, e.g. Ana:3")
    return {"player": owner, "slot": int(slot)}


def _keyed(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"{text!r}: expected PLAYER=VALUE")
    return name, value


def _yes_no(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("yes", "y", "true", "1"):
        return True
    if lowered in ("no", "n", "false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r}: answer yes or no")


def _critical(text: str) -> int | str:
    if text.lower() == "impossible":
        return "impossible"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a number or 'impossible'") from None


def _new(args: argparse.Namespace) -> dict[str, Any]:
    roster = load_roster(args.roster, ROSTER_KEYS)
    command: dict[str, Any] = {"cmd": "new_game", **roster}
    if args.seed is not None:
        command["seed"] = args.seed
    if args.jokers:
        command["jokers"] = True
    if args.campaign:
        command["campaign"] = True
    return command


def _challenge(args: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {
        "cmd": "challenge",
        "player": args.player,
        "method": args.method,
        "critical": args.critical,
    }
    if args.card is not None:
        command["card"] = args.card
    if args.wager:
        command["wager"] = args.wager
    if args.stage:
        command["stage"] = args.stage
    return command


def _contest(args: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {"cmd": "contest", "players": [args.first, args.second]}
    if args.method:
        command["method"] = args.method
    if args.card:
        try:
            command["cards"] = {name: _card_ref(value) for name, value in args.card}
        except argparse.ArgumentTypeError as error:
            raise InvalidCommand(f"--card {error}") from None
    if args.wager:
        try:
            command["wagers"] = {name: int(value) for name, value in args.wager}
        except ValueError:
            raise InvalidCommand("--wager PLAYER=N needs a whole number") from None
    return command


def _boost(args: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {"cmd": "boost", "player": args.player}
    if args.card is not None:
        command["card"] = args.card
    if args.wager:
        command["wager"] = args.wager
    return command


def _roll(args: argparse.Namespace) -> dict[str, Any]:
    if len(args.values) == 1:
        return {"cmd": "roll", "value": args.values[0]}
    return {"cmd": "roll", "values": args.values}


def _args(*specs: tuple[tuple[str, ...], dict[str, Any]]) -> ArgumentAdder:
    def add(parser: argparse.ArgumentParser) -> None:
        for names, options in specs:
            parser.add_argument(*names, **options)

    return add


def _a(*names: str, **options: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    return names, options


_PLAYER = _a("player", help="the player's name")
_VERBS: tuple[GmAction, ...] = tuple(
    GmAction(*action)
    for action in (
        (
            "new",
            "start a game from a roster file (TOML or JSON: players, jokers, seed, options, "
            "campaign)",
            _args(
                _a("roster", help="roster file"),
                _a("--seed", type=int, default=None, help="shuffle seed (overrides the roster's)"),
                _a("--jokers", action="store_true", help="play with the two jokers"),
                _a(
                    "--campaign",
                    action="store_true",
                    help="the Operators carry their Lucky Numbers over from an earlier game",
                ),
            ),
            _new,
            True,  # reads the roster file
        ),
        (
            "reveal",
            "a player's setup choice: turn one card face-up",
            _args(_PLAYER, _a("slot", type=int, help="slot 1-6")),
            lambda a: {"cmd": "reveal", "player": a.player, "slot": a.slot},
        ),
        (
            "order",
            "players who want the same challenge draw for turn order",
            _args(_a("players", nargs="+", help="the players drawing")),
            lambda a: {"cmd": "turn_order", "players": a.players},
        ),
        (
            "stage",
            "open a multi-stage challenge needing a number of successes in all",
            _args(_a("id", help="a name for it"), _a("needed", type=int, help="successes needed")),
            lambda a: {"cmd": "multi_stage", "id": a.id, "needed": a.needed},
        ),
        (
            "challenge",
            "call a challenge against a Critical Number",
            _args(
                _PLAYER,
                _a("method", choices=METHODS, help="the method (one of the choices listed)"),
                _a("critical", type=_critical, help="the Critical Number, or 'impossible'"),
                _a(
                    "--card",
                    type=_card_ref,
                    metavar="OWNER:SLOT",
                    help="a face-up card to use, its owner's and its slot (default: none)",
                ),
                _a(
                    "--wager",
                    type=int,
                    default=0,
                    help="All Or Nothing: Strikes wagered, 1-3 (default 0: no wager)",
                ),
                _a("--stage", help="counts toward this multi-stage challenge (default: none)"),
            ),
            _challenge,
        ),
        (
            "roll",
            "enter a die result by hand for the roll the table waits for",
            _args(_a("values", type=int, nargs="+", help="the die (1-6), or several for a pool")),
            _roll,
        ),
        (
            "lucky",
            "answer a Lucky Number offer: draw a replacement (yes) or not (no)",
            _args(_PLAYER, _a("answer", type=_yes_no, metavar=YES_NO, help="yes or no")),
            lambda a: {"cmd": "lucky", "player": a.player, "replace": a.answer},
        ),
        (
            "contest",
            "start a player-versus-player contest (rolls come in the order given)",
            _args(
                _a("first", metavar=PLAYER, help="the contestant who rolls first"),
                _a("second", metavar=PLAYER, help="the contestant who rolls second"),
                _a(
                    "--method",
                    choices=METHODS,
                    help="the method both use (needed with a card, for the suit rule; "
                    "default: none)",
                ),
                _a(
                    "--card",
                    type=_keyed,
                    action="append",
                    metavar="PLAYER=OWNER:SLOT",
                    help="the face-up card each contestant uses, if any (default: no card)",
                ),
                _a(
                    "--wager",
                    type=_keyed,
                    action="append",
                    metavar="PLAYER=N",
                    help="the Strikes each contestant wagers, All Or Nothing (default: no wager)",
                ),
            ),
            _contest,
        ),
        (
            "boost",
            "a contestant uses a card or wagers Strikes on the next exchange",
            _args(
                _PLAYER,
                _a(
                    "--card",
                    type=_card_ref,
                    metavar="OWNER:SLOT",
                    help="a face-up card to use, the player's or a helper's (default: none)",
                ),
                _a(
                    "--wager",
                    type=int,
                    default=0,
                    help="All Or Nothing: Strikes wagered (default 0: no wager)",
                ),
            ),
            _boost,
        ),
        (
            "concede",
            "a contestant concedes the contest",
            _args(_PLAYER),
            lambda a: {"cmd": "concede", "player": a.player},
        ),
        (
            "end-adventure",
            "end the adventure: Character Progression follows",
            _args(),
            lambda a: {"cmd": "end_adventure"},
        ),
        (
            "grant",
            "give an Operator an extra Lucky Number (end of adventure)",
            _args(
                _a("giver", help="the Operator who gives one of their Lucky Numbers"),
                _a("to", help="the Operator who receives it"),
                _a("number", type=int, help="the Lucky Number given (1-6)"),
            ),
            lambda a: {"cmd": "grant_lucky", "from": a.giver, "to": a.to, "number": a.number},
        ),
        (
            "return",
            "a removed Operator loses a Lucky Number to return next adventure",
            _args(_PLAYER, _a("drop_lucky", type=int, help="the Lucky Number given up")),
            lambda a: {"cmd": "return", "player": a.player, "drop_lucky": a.drop_lucky},
        ),
        (
            "retire",
            "a removed Operator retires for good",
            _args(_PLAYER),
            lambda a: {"cmd": "retire", "player": a.player},
        ),
        (
            "start-adventure",
            "start the next adventure: Strikes reset, cards dealt again",
            _args(),
            lambda a: {"cmd": "start_adventure"},
        ),
        ("end-game", "end the game for good", _args(), lambda a: {"cmd": "end_game"}),
    )
)

_VERBS = labelled(
    _VERBS,
    {
        "challenge": {"critical": "Critical Number (or the word impossible)"},
        "contest": {"first": "who rolls first", "second": "who rolls second", "card": "cards"},
        "stage": {"id": "name of the challenge"},
        "grant": {"giver": "who gives it", "to": "who receives it"},
        "return": {"drop_lucky": "the Lucky Number given up"},
        "lucky": {"answer": "draw a replacement"},
    },
)

_S, _D, _C, _P, _G = (
    VerbGroup.START,
    VerbGroup.DICE,
    VerbGroup.CARDS,
    VerbGroup.CHOICES,
    VerbGroup.CALLS,
)
GM_ACTIONS: tuple[GmAction, ...] = worded(
    _VERBS,
    {
        "new": ("Start a game", _S, ("nothing",)),
        "reveal": ("A player turns a card face up", _C, ("reveal",)),
        "order": ("Draw for turn order", _G, ()),
        "stage": ("Open a challenge in stages", _G, ("game_master",)),
        "challenge": ("Call a challenge", _G, ("game_master",)),
        "roll": ("Enter the die by hand", _D, ("dice",)),
        "lucky": ("Answer a Lucky Number offer", _P, ("lucky",)),
        "contest": ("Start a contest between players", _G, ("game_master",)),
        "boost": ("A contestant plays a card or wagers", _P, ()),
        "concede": ("A contestant concedes", _P, ()),
        "end-adventure": ("End the adventure", _G, ("game_master",)),
        "grant": ("Grant a Lucky Number", _G, ()),
        "return": ("A removed Operator returns", _P, ("return_or_retire",)),
        "retire": ("A removed Operator retires", _P, ("return_or_retire",)),
        "start-adventure": ("Start the next adventure", _S, ()),
        "end-game": ("End the game", _S, ()),
    },
)

"""The game master's verbs for OS-SIX (`tabletop gm --game ossix VERB`): each builds one
command, worded for the tablet's forms."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from tabletop.rules.games.errors import InvalidCommand
from tabletop.rules.games.game import (
    EVERYONE,
    PLAYER,
    PLAYER_OR_ALL,
    GmAction,
    VerbGroup,
    worded,
)

from .duel import DuelStep
from .engine import ATTRIBUTES, GM_ROLLS, LUCK_USES
from .poker import VARIANTS

DUEL_STEPS = tuple(step.value for step in DuelStep)


def _player(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", help="the character's player")


def _action_arguments(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument(
        "attribute", choices=ATTRIBUTES, help="the attribute rolled (one of the choices listed)"
    )
    parser.add_argument("score", type=int, help="the attribute's value")
    parser.add_argument("--skill", action="store_true", help="a relevant skill: one more die")
    parser.add_argument("--bonus", type=int, default=0, help="Bonus dice the GM gives (default 0)")
    parser.add_argument(
        "--penalty", type=int, default=0, help="Penalty dice the GM imposes (default 0)"
    )
    parser.add_argument("--pressure", action="store_true", help="a high-pressure situation")
    parser.add_argument(
        "--duel", choices=DUEL_STEPS, help="the duel step this roll is (default: not a duel roll)"
    )


def _values(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("values", type=int, nargs="+", help="the dice, as thrown")


def _spend(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument(
        "use", choices=LUCK_USES, help="what the Luck Point buys (one of the choices listed)"
    )


def _help(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "helper", metavar=PLAYER, help="who foregoes their action (and takes one Strain)"
    )
    parser.add_argument("player", help="who gets the Bonus")


def _strain(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument("change", type=int, help="Strain gained (or lost, negative)")
    parser.add_argument(
        "--reason",
        default="game master",
        help="why, for the game log (default 'game master')",
    )


def _gm_roll(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=GM_ROLLS, help="the roll (one of the choices listed)")
    parser.add_argument("--morale", type=int, help="the NPC's Morale value (morale checks)")


def _panic(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument("outcome", help="the Panic Roll's outcome, from the Combat chapter")


def _load(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument("brawn", type=int, help="the character's Brawn")
    parser.add_argument("items", type=float, help="normal items carried (a small one is 0.25)")
    parser.add_argument(
        "--no-container",
        action="store_true",
        help="the character has no backpack, bag or other container (then four items at most)",
    )


def _duel(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument("opponent", help="who the player duels")
    parser.add_argument(
        "--two-pistols", action="store_true", help="the player draws two pistols (a second shot)"
    )


def _duel_end(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "outcome",
        nargs="?",
        default="the duel is over",
        help="how it ended, for the game log (default 'the duel is over')",
    )


def _rest(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "player",
        nargs="?",
        default=EVERYONE,
        metavar=PLAYER_OR_ALL,
        help="who rests (default all: everyone)",
    )


def _award(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", metavar=PLAYER_OR_ALL, help="a player, or all (everyone)")


def _gm_roll_command(a: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {"cmd": "gm_roll", "kind": a.kind}
    if a.morale is not None:
        command["morale"] = a.morale  # a morale check without it is refused by the engine
    return command


def _load_command(a: argparse.Namespace) -> dict[str, Any]:
    items = int(a.items) if float(a.items).is_integer() else a.items
    command: dict[str, Any] = {"cmd": "load", "player": a.player, "brawn": a.brawn}
    command["items"] = items
    if a.no_container:
        command["container"] = False
    return command


def _seats(words: Sequence[str]) -> list[dict[str, Any]]:
    """The seats from NAME=MONEY words; a name may be several words ("Black Bart=30", or
    Black Bart=30 as a web form splits it)."""
    seats: list[dict[str, Any]] = []
    name: list[str] = []
    for word in words:
        before, sep, money = word.rpartition("=")
        if not sep:
            name.append(word)
            continue
        full = " ".join([*name, before]).strip()
        if not full or not money.strip().isdigit():
            raise InvalidCommand(f"seats: expected NAME=MONEY (Ana=20), got {word!r}", "seats")
        seats.append({"name": full, "money": int(money)})
        name = []
    if name:
        raise InvalidCommand(f"seats: {' '.join(name)!r} has no =MONEY", "seats")
    return seats


def _poker(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "seats",
        nargs="+",
        metavar="NAME=MONEY",
        help="each player at the poker table and the money they bring, clockwise",
    )
    parser.add_argument("--ante", type=int, help="the ante (default: the table's option)")
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        help="five-dice draw, Hold 'Em or Lucky Seven (default: the table's option)",
    )
    parser.add_argument("--dealer", help="who deals first (default: the first named)")
    parser.add_argument(
        "--open",
        action="store_true",
        help="played open: every hand thrown in the tray (default: the table's option, "
        "concealed hands unless it says open)",
    )


def _poker_command(a: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {
        "cmd": "poker_start",
        "players": _seats(a.seats),
    }
    for key in ("ante", "variant", "dealer"):
        if getattr(a, key) is not None:
            command[key] = getattr(a, key)
    if a.open:
        command["open"] = True
    return command


def _new_players(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("players", nargs="+", metavar="NAME", help="the players' names")


def _amount(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument("amount", type=int, help="dollars")


def _bet(a: argparse.Namespace, action: str) -> dict[str, Any]:
    command: dict[str, Any] = {"cmd": "bet", "player": a.player, "action": action}
    if action in ("bet", "raise"):
        command["amount"] = a.amount
    return command


def _keep(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument("keep", type=int, nargs="*", help="the dice kept (2 to 5 of them)")


def _hand(parser: argparse.ArgumentParser) -> None:
    _player(parser)
    parser.add_argument(
        "values",
        type=int,
        nargs="+",
        help="the player's dice, 1 to 6 each: the deal's, or the whole hand after the draw",
    )


def _reason(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "reason",
        nargs="?",
        default="the game master ends the poker",
        help="why, in words for the table (default 'the game master ends the poker')",
    )


_VERBS: tuple[GmAction, ...] = (
    GmAction(
        "new",
        "start OS-SIX with these characters' players",
        _new_players,
        lambda a: {"cmd": "new_game", "players": a.players},
    ),
    GmAction(
        "action",
        "call an action roll: attribute, score, skill, Bonus and Penalty",
        _action_arguments,
        lambda a: {
            "cmd": "action",
            "player": a.player,
            "attribute": a.attribute,
            "score": a.score,
            "skill": a.skill,
            "bonus": a.bonus,
            "penalty": a.penalty,
            "high_pressure": a.pressure,
            **({"duel_step": a.duel} if a.duel else {}),
        },
    ),
    GmAction(
        "roll",
        "enter the dice of the awaited throw",
        _values,
        lambda a: {"cmd": "roll", "values": a.values},
    ),
    GmAction(
        "help",
        "one character helps another's roll (a Bonus, one Strain)",
        _help,
        lambda a: {"cmd": "help", "helper": a.helper, "player": a.player},
    ),
    GmAction(
        "luck",
        "burn a Luck Point",
        _spend,
        lambda a: {"cmd": "spend_luck", "player": a.player, "use": a.use},
    ),
    GmAction(
        "award",
        "award a Luck Point (to a player, or all)",
        _award,
        lambda a: {"cmd": "award_luck", "player": a.player},
    ),
    GmAction(
        "push",
        "push your luck: D6, 2D6, 3D6 Strain for a Luck Point",
        _player,
        lambda a: {"cmd": "push", "player": a.player},
    ),
    GmAction(
        "strain",
        "Strain gained or recovered (combat, rest, the GM's call)",
        _strain,
        lambda a: {"cmd": "strain", "player": a.player, "change": a.change, "reason": a.reason},
    ),
    GmAction(
        "gmroll",
        "a GM roll: D2, D3, D6, 2D6, 3D6, morale or NPC behaviour",
        _gm_roll,
        _gm_roll_command,
    ),
    GmAction(
        "panic",
        "enter a Panic Roll's outcome",
        _panic,
        lambda a: {"cmd": "panic", "player": a.player, "outcome": a.outcome},
    ),
    GmAction("load", "items a character carries (carrying capacity)", _load, _load_command),
    GmAction(
        "rest",
        "a long rest (resets pushing your luck)",
        _rest,
        lambda a: {"cmd": "long_rest", "player": a.player},
    ),
    GmAction(
        "duel",
        "a quick-draw duel: then each of its action rolls is called with its duel step",
        _duel,
        lambda a: {
            "cmd": "duel",
            "player": a.player,
            "opponent": a.opponent,
            "two_pistols": a.two_pistols,
        },
    ),
    GmAction(
        "duelend",
        "the duel is over (the opponent is down, gives up, ...)",
        _duel_end,
        lambda a: {"cmd": "duel_end", "outcome": a.outcome},
    ),
    GmAction(
        "poker",
        "start dice poker: each player with their money, clockwise (the GM's NPC too)",
        _poker,
        _poker_command,
    ),
    GmAction(
        "ante", "everyone antes: the next hand of poker", lambda p: None, lambda a: {"cmd": "ante"}
    ),
    GmAction("check", "poker: check (pass)", _player, lambda a: _bet(a, "check")),
    GmAction(
        "bet", "poker: open the betting with this many dollars", _amount, lambda a: _bet(a, "bet")
    ),
    GmAction("call", "poker: put in the same amount", _player, lambda a: _bet(a, "call")),
    GmAction(
        "raise", "poker: raise the bet by this many dollars", _amount, lambda a: _bet(a, "raise")
    ),
    GmAction("fold", "poker: fold", _player, lambda a: _bet(a, "fold")),
    GmAction(
        "allin", "poker: bet all the money on the table", _player, lambda a: _bet(a, "all_in")
    ),
    GmAction(
        "draw",
        "poker: the dice a player keeps at the draw (all five: stand pat)",
        _keep,
        lambda a: {"cmd": "draw", "player": a.player, "keep": a.keep},
    ),
    GmAction(
        "hand",
        "poker: enter a player's concealed hand (the deal, or the whole hand after the draw)",
        _hand,
        lambda a: {"cmd": "poker_hand", "player": a.player, "values": a.values},
    ),
    GmAction(
        "leave",
        "poker: a player takes their money and leaves (between hands)",
        _player,
        lambda a: {"cmd": "poker_leave", "player": a.player},
    ),
    GmAction(
        "pokerend",
        "end the poker (mid-hand: everyone takes back what they put in)",
        _reason,
        lambda a: {"cmd": "poker_end", "reason": a.reason},
    ),
    GmAction("end", "end the game", lambda parser: None, lambda a: {"cmd": "end_game"}),
)


_S, _D, _P, _G = VerbGroup.START, VerbGroup.DICE, VerbGroup.CHOICES, VerbGroup.CALLS
_BET = ("poker_bet",)
GM_ACTIONS: tuple[GmAction, ...] = worded(
    _VERBS,
    {
        "new": ("Start a game", _S, ("nothing",)),
        "action": ("Call an action roll", _G, ("game_master",)),
        "roll": ("Enter the dice by hand", _D, ("dice",)),
        "help": ("One character helps another", _P, ("action",)),
        "luck": ("Burn a Luck Point", _P, ("action", "spend")),
        "award": ("Award a Luck Point", _G, ()),
        "push": ("Push your luck", _P, ()),
        "strain": ("Strain gained or recovered", _G, ()),
        "gmroll": ("Make a game master's roll", _G, ("game_master",)),
        "panic": ("Enter a Panic Roll's outcome", _G, ("panic",)),
        "load": ("What a character carries", _G, ()),
        "rest": ("A long rest", _G, ()),
        "duel": ("Start a quick-draw duel", _G, ()),
        "duelend": ("End the duel", _G, ()),
        "poker": ("Start dice poker", _S, ("game_master",)),
        "ante": ("Everyone antes: the next hand", _G, ("game_master",)),
        "check": ("Poker: check", _P, _BET),
        "bet": ("Poker: bet", _P, _BET),
        "call": ("Poker: call", _P, _BET),
        "raise": ("Poker: raise", _P, _BET),
        "fold": ("Poker: fold", _P, _BET),
        "allin": ("Poker: all in", _P, _BET),
        "draw": ("Poker: the dice a player keeps", _P, ("poker_draw",)),
        "hand": ("Poker: enter a concealed hand", _P, ("poker_hand", "poker_draw")),
        "leave": ("Poker: a player leaves", _P, ()),
        "pokerend": ("End the poker", _S, ()),
        "end": ("End the game", _S, ()),
    },
)

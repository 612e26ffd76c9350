"""The game master's verbs for Six-Gun Showdown (`tabletop gm --game showdown VERB`).

`new` reads the two deck files here, on the game master's machine, and sends their contents
in the `new_game` command: the daemon and the log never read a file.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..game import ArgumentAdder, GmAction, VerbGroup, worded
from .decks import deck_to_json, load_deck
from .model import OPTIONS

_OPTION = {option.name: option for option in OPTIONS}


def _option_help(name: str) -> dict[str, Any]:
    """An option of `new` helped by the game's own words and default (so they cannot drift)."""
    option = _OPTION[name]
    default = option.default
    shown = ("yes" if default else "no") if isinstance(default, bool) else default
    return {"help": f"{option.help} (default: the game's, {shown})"}


def _args(*adders: tuple[tuple[str, ...], dict[str, Any]]) -> ArgumentAdder:
    def add(parser: argparse.ArgumentParser) -> None:
        for names, options in adders:
            parser.add_argument(*names, **options)

    return add


def _seat(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=DECK.toml, e.g. Ana=cowboy.toml")
    return name, path


def _new(a: argparse.Namespace) -> dict[str, Any]:
    players = [{"name": name, "deck": deck_to_json(load_deck(path))} for name, path in a.players]
    options: dict[str, Any] = {}
    for key in ("hit_face", "tie_window_ms", "race_settle_ms", "single_shot_discard"):
        value = getattr(a, key)
        if value is not None:
            options[key] = value
    for key in ("reach_scores", "bonus_after_reach"):
        if getattr(a, key) is not None:
            options[key] = getattr(a, key) == "yes"
    return {"cmd": "new_game", "players": players, "options": options}


def _race(a: argparse.Namespace) -> dict[str, Any]:
    command: dict[str, Any] = {"cmd": "race", "how": "the game master"}
    for key in ("winner", "slot", "attacker_ms", "defender_ms"):
        value = getattr(a, key)
        if value is not None:
            command[key] = value
    return command


def _player_slot(cmd: str) -> tuple[ArgumentAdder, Any]:
    player = (("player",), {"help": "the gunslinger's name"})
    slot = (("slot",), {"type": int, "help": "the bullet's slot, 1 to 6"})
    return _args(player, slot), lambda a: {
        "cmd": cmd,
        "player": a.player,
        "slot": a.slot,
    }


def _player(cmd: str) -> tuple[ArgumentAdder, Any]:
    return _args((("player",), {"help": "the gunslinger's name"})), lambda a: {
        "cmd": cmd,
        "player": a.player,
    }


_VERBS: tuple[GmAction, ...] = (
    GmAction(
        "new",
        "start a showdown: two gunslingers, each NAME=DECK.toml (examples/decks/)",
        _args(
            (
                ("players",),
                {
                    "nargs": 2,
                    "type": _seat,
                    "metavar": "NAME=DECK.toml",
                    "help": "the two gunslingers, each with the deck file of their character",
                },
            ),
            (
                ("--hit-face",),
                {"type": int, "dest": "hit_face", "choices": range(7), **_option_help("hit_face")},
            ),
            (
                ("--tie-window-ms",),
                {"type": int, "dest": "tie_window_ms", **_option_help("tie_window_ms")},
            ),
            (
                ("--race-settle-ms",),
                {"type": int, "dest": "race_settle_ms", **_option_help("race_settle_ms")},
            ),
            (
                ("--single-shot-discard",),
                {
                    "dest": "single_shot_discard",
                    "choices": ("mixed", "always", "never"),
                    **_option_help("single_shot_discard"),
                },
            ),
            (
                ("--reach-scores",),
                {"dest": "reach_scores", "choices": ("yes", "no"), **_option_help("reach_scores")},
            ),
            (
                ("--bonus-after-reach",),
                {
                    "dest": "bonus_after_reach",
                    "choices": ("yes", "no"),
                    **_option_help("bonus_after_reach"),
                },
            ),
        ),
        _new,
        reads_files=True,  # the deck files
    ),
    GmAction(
        "load",
        "a player's bullets by hand: card ids for slots 1, 2, ... (declares ready)",
        _args(
            (("player",), {"help": "the gunslinger's name"}),
            (("cards",), {"nargs": "+", "help": "card ids of the deck file, slot 1 first"}),
        ),
        lambda a: {"cmd": "load", "player": a.player, "bullets": a.cards},
    ),
    GmAction("touch", "a player chose a bullet by touching it", *_player_slot("touch")),
    GmAction("reveal", "a player turned a bullet face up", *_player_slot("reveal")),
    GmAction("reach", "a player reached for a shot without a Draw", *_player("reach")),
    GmAction(
        "race",
        "who was first to the defender's cards (when the table cannot tell); with times, the "
        "times decide, within the tie window for the defender",
        _args(
            (
                ("winner",),
                {
                    "nargs": "?",
                    "help": "attacker, defender, unclear (the defender: 'If it is unclear which "
                    "player was fastest ... the defender is considered to have been fast "
                    "enough'), or a name; leave out to let the times decide",
                },
            ),
            (("--slot",), {"type": int, "help": "the bullet the defender chose"}),
            (
                ("--attacker-ms",),
                {"type": int, "dest": "attacker_ms", "help": "the attacker's touch, ms"},
            ),
            (
                ("--defender-ms",),
                {"type": int, "dest": "defender_ms", "help": "the defender's touch, same clock"},
            ),
        ),
        _race,
    ),
    GmAction(
        "roll",
        "enter the shooter's die by hand",
        _args((("value",), {"type": int, "help": "the face the die shows, 1 to 6"})),
        lambda a: {"cmd": "roll", "value": a.value},
    ),
    GmAction(
        "reroll",
        "a Re-roll card's owner throws the die again: its new face",
        _args(
            (("player",), {"help": "the Re-roll card's owner"}),
            (("value",), {"type": int, "help": "the die's new face, 1 to 6"}),
        ),
        lambda a: {"cmd": "reroll", "player": a.player, "value": a.value},
    ),
    GmAction("keep", "the Re-roll card's owner lets the die stand", *_player("keep")),
    GmAction("pass", "the defender reveals no more this round", *_player("pass")),
    GmAction(
        "discard",
        "a Single Shot player discards revealed cards (ids)",
        _args(
            (("player",), {"help": "the Single Shot player"}),
            (("cards",), {"nargs": "*", "help": "the ids of the revealed cards they discard"}),
        ),
        lambda a: {"cmd": "discard", "player": a.player, "cards": a.cards},
    ),
    GmAction("end-game", "end the game", _args(), lambda a: {"cmd": "end_game"}),
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
        "new": ("Start a showdown", _S, ("nothing",)),
        "load": ("Load a player's bullets by hand", _C, ()),
        "touch": ("A player touches a bullet", _C, ("card",)),
        "reveal": ("A player turns a bullet face up", _C, ("card",)),
        "reach": ("A player reaches without a Draw", _C, ("card",)),
        "race": ("Say who was first to the cards", _G, ("game_master",)),
        "roll": ("Enter the shooter's die by hand", _D, ("dice",)),
        "reroll": ("A Re-roll card throws again", _D, ("reroll",)),
        "keep": ("The die stands (no re-roll)", _P, ("reroll",)),
        "pass": ("The defender reveals no more", _P, ("card",)),
        "discard": ("A Single Shot player discards", _P, ("choice",)),
        "end-game": ("End the game", _S, ()),
    },
)

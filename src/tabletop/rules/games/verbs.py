"""The game master's verbs: each a `GmAction` (its help, arguments and the command it builds),
grouped and worded for the tablet's forms (`tabletop gm` and the console read them).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Final

ArgumentAdder = Callable[[argparse.ArgumentParser], None]
CommandBuilder = Callable[[argparse.Namespace], dict[str, Any]]


class VerbGroup(Enum):
    """Where a game master's verb stands on the tablet: what part of the game it runs."""

    START = "Start and end"
    DICE = "Dice entered by hand"
    CARDS = "Cards and the mat"
    CHOICES = "The players' choices"
    CALLS = "The game master's calls"


# An argument whose metavar is PLAYER names one of the game's players (the tablet offers the
# seated players in a list); an argument whose dest is "player" is one too unless it says else.
PLAYER: Final = "PLAYER"
# An argument whose metavar is PLAYER_OR_ALL names one of the game's players or "all" (everyone
# at once: OS-SIX's `award` and `rest`); the tablet offers the players and "all" in its list.
PLAYER_OR_ALL: Final = "PLAYER|all"
EVERYONE: Final = "all"
# An argument whose metavar is YES_NO is a yes-or-no answer (the tablet offers two buttons).
YES_NO: Final = "yes|no"


@dataclass(frozen=True, slots=True)
class GmAction:
    """One verb of `tabletop gm`: its help, its arguments, and the command it builds."""

    verb: str
    help: str
    arguments: ArgumentAdder
    build: CommandBuilder
    # True when `build` reads files named in the arguments (a roster, a deck): fine for
    # `tabletop gm` on the game master's own machine, never for a web page (the console
    # offers such a `new` as a roster built in the page instead).
    reads_files: bool = False
    # The verb in plain words for the game master's tablet ("Enter the dice by hand"), and
    # where it stands there; `answers`: what it answers when the game waits, as the prompt
    # says it (a `waiting` kind such as "dice", or a `pending` type such as "poker_bet"), so
    # the tablet shows the prompt's own actions first.
    title: str = ""
    group: VerbGroup = VerbGroup.CALLS
    answers: tuple[str, ...] = ()
    # A label in people's words for an argument whose name would not do on a page (argument
    # dest -> label): "gm_vigor" is "the GM's starting Vigor" (`labelled`).
    labels: tuple[tuple[str, str], ...] = ()


def worded(
    actions: Iterable[GmAction], words: Mapping[str, tuple[str, VerbGroup, tuple[str, ...]]]
) -> tuple[GmAction, ...]:
    """The verbs with their plain words (title, group, what they answer) from one table per
    game; a verb without words, or words for no verb, is a mistake said at import."""
    listed = tuple(actions)
    verbs = {action.verb for action in listed}
    missing = sorted(verbs - set(words))
    extra = sorted(set(words) - verbs)
    if missing or extra:
        raise ValueError(f"plain words: verbs without words {missing}, words without verb {extra}")
    return tuple(
        replace(
            action,
            title=words[action.verb][0],
            group=words[action.verb][1],
            answers=words[action.verb][2],
        )
        for action in listed
    )


def labelled(
    actions: Iterable[GmAction], labels: Mapping[str, Mapping[str, str]]
) -> tuple[GmAction, ...]:
    """The verbs with the labels in people's words of some of their arguments (verb -> dest
    -> label); a label for no verb is a mistake said at import."""
    listed = tuple(actions)
    extra = sorted(set(labels) - {action.verb for action in listed})
    if extra:
        raise ValueError(f"labels for no verb: {extra}")
    return tuple(
        replace(action, labels=tuple(labels[action.verb].items()))
        if action.verb in labels
        else action
        for action in listed
    )

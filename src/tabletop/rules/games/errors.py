"""The rules package's exceptions: one root, a branch for bad input and a branch for broken rules.

Every error carries a message a game master can read at the table. IllegalMove also carries
`rule`, a short name of the rule broken (the heading of the rulebook section it comes from),
so programs can react to it without parsing the message.
"""

from __future__ import annotations

# How much of a bad value an error message quotes: enough to recognise it, never a flood
# (a refusal is published and kept in the game's state).
QUOTE_CHARS = 40


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """`repr(value)` cut to `limit` characters with an ellipsis, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain(text: str, limit: int = QUOTE_CHARS) -> str:
    """A name as people write it, for words meant for people ("there is no player named
    Zed"): unquoted, cut to `limit` characters, with anything unprintable escaped."""
    shown = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


class RulesError(Exception):
    """Root of every error the rules package raises on purpose."""


class InvalidCommand(RulesError):
    """A command that cannot be read: bad JSON shape, unknown command, wrong field type or value."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class IllegalMove(RulesError):
    """A well-formed command that the rules forbid now; the state is left exactly as it was."""

    rule = "rules"

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule

    def __str__(self) -> str:
        # Words for people: the rule's name travels beside them (a reply's `rule`).
        return str(self.args[0])


class NoGame(IllegalMove):
    """A command arrived before `new_game` or after the game finished."""

    rule = "game"


class WrongPhase(IllegalMove):
    """The command belongs to another part of the game (setup, play, between adventures)."""

    rule = "phase"


class OutOfTurn(IllegalMove):
    """The game is waiting for something else first (a roll, a Lucky Number choice, a reveal)."""

    rule = "waiting"


class UnknownPlayer(IllegalMove):
    """A command names a player who is not at the table."""

    rule = "players"


class SetupError(IllegalMove):
    """The roster, deck or options of `new_game` break the rules of setting up."""

    rule = "setting up the game"


class DrawError(IllegalMove):
    """A card must be drawn but the deck and the discard pile are both empty."""

    rule = "deciding turn order"

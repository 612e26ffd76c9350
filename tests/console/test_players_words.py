"""No command-line syntax on any page (issue 48, item 8): every form of every game (its title,
help, labels, choices), every prompt the games produce in simulated games, and the refusals a
form gives for wrong input are in words; `NAME=MONEY`, `--duel`, `Ana=Ana:3`, `hold_em`,
`gm-vigor`, "(gm pass Ana)", "(lucky yes/no)", "7H", "reveal.slot" and "invalid int value" fail.

The command line (`tabletop gm`) shares the same verbs: its spelling stays in the argparse
arguments (option strings, metavars, dests), never in the words a page shows."""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop.console.forms import Field, Form, FormError, forms_for
from tabletop.rules import games
from tabletop.rules.games.game import GameRules

ROOT = Path(__file__).resolve().parents[2]
DECKS = ROOT / "examples" / "decks"

# What a person would never write: each with the issue's own example of it.
SYNTAX = {
    "an option's spelling (--duel)": re.compile(r"(?<![\w-])--?[a-z][a-z-]*"),
    "a placeholder in capitals (NAME=MONEY, ROSTER)": re.compile(
        r"\b(?!BANG\b|NPCS?\b|OS-SIX\b|SIX\b|OS\b)[A-Z]{3,}\b"
    ),
    "key=value (Ana=Ana:3, skill=Burglary)": re.compile(r"\w=\w|\w=\s"),
    "a name with underscores (hold_em, drop_lucky)": re.compile(r"\b[a-z]+_[a-z_]+\b"),
    "a verb of the command line (gm-vigor, (gm pass Ana), tabletop gm)": re.compile(
        r"\bgm[- ]\w|\(gm\b|\btabletop gm\b|\bgm\)"
    ),
    "choices written a/b (yes/no, standoff/draw)": re.compile(r"\b[a-z]+/[a-z]+\b"),
    "a player's slot as NAME:SLOT (Ana:3)": re.compile(r"\b[A-Za-z]+:\d"),
    "a card's code (7H)": re.compile(r"\b(10|[2-9JQKA])[SHDC]\b"),
    "a file's name (cowboy.toml)": re.compile(r"\.(toml|json)\b|\w/\w+/"),
    "a field's program name (reveal.slot)": re.compile(r"\b[a-z]+\.[a-z_]+\b"),
    "argparse's words (invalid int value)": re.compile(
        r"invalid (int|float|choice)|the following arguments|unrecognized arguments"
    ),
}


def syntax_in(text: str) -> list[str]:
    """What in `text` is command-line syntax, each as 'what: the text found'."""
    return [
        f"{what}: {found[0]!r}" for what, rule in SYNTAX.items() if (found := rule.search(text))
    ]


def test_the_checks_catch_the_issues_own_examples() -> None:
    for example in (
        "NAME=MONEY for each player",
        "the duel step (then action ... --duel standoff)",
        "e.g. Ana=Ana:3",
        "hold_em",
        "gm-vigor",
        "no game yet: the game master starts one (tabletop gm new ROSTER)",
        "or stop (gm pass Ana)",
        "draw a replacement? (lucky yes/no)",
        "Dee: 7H matched your Lucky Number",
        "reveal.slot: must be 1 to 6",
        "argument slot: invalid int value: '6,'",
        "each NAME=DECK.toml (examples/decks/)",
    ):
        assert syntax_in(example), example
    for words in (
        "Ana: throw 2 dice at disadvantage (the lowest counts)",
        "BANG! Bo draws: Bo, touch one of Ana's face-down bullets",
        "the game master: call a challenge, a contest or the end of the adventure",
        "Slot: '6,' is not a whole number",
        "OS-SIX: a quick-draw duel, a high-pressure situation, the NPC's Morale (D6, 2D6)",
    ):
        assert not syntax_in(words), (words, syntax_in(words))


# The gaps left, named exactly so that any new one still fails (none today: Steamfunkateers'
# dice pools and turn-order entrants, once typed as `Ana=4,skill=Burglary,obstacle=1` and
# `Ana=3/2/1`, are built on the page, a row per pool or entrant).
PENDING: dict[str, set[str]] = {}


def every_form() -> Iterator[tuple[str, Form]]:
    for name in games.names():
        game = games.get(name)
        for verb, form in forms_for(
            game.gm_actions(), game.roster_keys, game.player_setup(DECKS)
        ).items():
            yield f"{name} {verb}", form


FORMS = dict(every_form())


def shown(form: Form) -> Iterator[tuple[str, str]]:
    """Every text of the form that its page shows, with where."""
    described = form.to_json()
    yield "title", described["title"]
    yield "help", described["help"]
    for field in described["fields"]:
        yield f"{field['name']} label", field["label"]
        yield f"{field['name']} help", field["help"]
        for title in field["titles"]:
            yield f"{field['name']} choice", title
        rows = field.get("rows")
        if rows:  # a row per item: its button, its help and each column's words
            yield f"{field['name']} add", rows["add"]
            yield f"{field['name']} rows help", rows["help"]
            for column in rows["columns"]:
                for said in (column["label"], column["help"], *column["labels"].values()):
                    yield f"{field['name']} {column['name']} label", said
        players = field.get("players")
        if players:
            yield f"{field['name']} note", players["note"]
            for choice in players["choices"]:
                yield f"{field['name']} {choice['name']} label", choice["label"]
                for title in choice.get("titles") or []:
                    yield f"{field['name']} {choice['name']} choice", title


@pytest.mark.parametrize("where", sorted(FORMS))
def test_every_form_is_in_words(where: str) -> None:
    found = [
        f"{part} {text!r}: {problem}"
        for part, text in shown(FORMS[where])
        for problem in syntax_in(text)
        if part.split()[0] not in PENDING.get(where, set())
    ]
    assert not found, found


def wrong_values(field: Field) -> list[str]:
    """Values a person might type wrongly into the field."""
    if field.kind in ("number", "text", "list", "yesno", "choice"):
        return ["6,", "magic"]
    if field.kind == "card":
        return ["Ana 3", "Ana:x"]
    if field.kind == "pairs":
        return ["Ana", "Ana=x"]
    return []


def wrong_rows(field: Field) -> list[object]:
    """Rows a person might fill in wrongly (a "rows" field: a pool, an entrant)."""
    if field.rows is None:
        return []
    fine = _fine_row(field)
    first = field.rows.columns[1].name  # a number: a pool's rank, an entrant's first rank
    return [
        "Ana=4",  # the command line's notation, typed by hand into the API
        [{**fine, "who": ""}],
        [{**fine, first: "6,"}],
        [{**fine, first: "99"}],
        [{**fine, "who": "Ana,skill=x"}],
        [{**fine, "obstcle": "1"}],
    ]


def _fine_row(field: Field) -> dict[str, object]:
    assert field.rows is not None
    return {
        column.name: "Ana" if column.kind == "who" else "1"
        for column in field.rows.columns
        if column.required or column.kind == "who"
    }


@pytest.mark.parametrize("where", sorted(FORMS))
def test_a_forms_refusals_are_in_words(where: str) -> None:
    form = FORMS[where]
    if form.fields and form.fields[0].kind == "roster":
        return  # the roster's refusals are test_start_from_names' (a TOML error is quoted)
    found = []
    filled = {field.name: _fine(field) for field in form.fields}
    for field in form.fields:
        if field.name in PENDING.get(where, set()):
            continue
        values: list[object] = ["", *wrong_values(field), *wrong_rows(field)]
        for value in values:
            try:
                form.command({**filled, field.name: value})
            except FormError as refused:
                found += [
                    f"{field.name}={value!r}: {refused}: {p}" for p in syntax_in(str(refused))
                ]
    assert not found, found


def _fine(field: Field) -> object:
    """A value that the field takes."""
    if field.rows is not None:
        return [_fine_row(field)]
    return {
        "number": "1",
        "choice": field.choices[0] if field.choices else "x",
        "player": "Ana",
        "card": "Ana:1",
        "yesno": "yes",
        "flag": "",
        "pairs": "Ana=1",
        "list": "1",
        "names": "Ana\nBo",
    }.get(field.kind, "1")


def prompts(game: GameRules, runs: int = 12, steps: int = 250) -> set[str]:
    """The words of every prompt the game gave in simulated games (random commands), as the
    game master and as the room see them."""
    seen: set[str] = set()
    for seed in range(runs):
        rng = random.Random(seed)
        engine = game.new_engine()
        for _ in range(steps):
            seen.add(game.waiting(engine.state).words)
            seen.add(game.public_waiting(engine.state).words)
            command = game.random_command(engine.state, rng)
            if command is None:
                break
            # a refused random command changes nothing: play goes on
            with contextlib.suppress(Exception):
                engine.execute(command)
    return seen


def test_the_gaps_left_are_still_gaps() -> None:
    """A gap mended is taken off PENDING (so it cannot come back unseen)."""
    for where, names in PENDING.items():
        for name in names:
            field = next(f for f in FORMS[where].to_json()["fields"] if f["name"] == name)
            assert syntax_in(field["help"]), (where, name, field["help"])


@pytest.mark.parametrize("name", games.names())
def test_every_prompt_of_a_simulated_game_is_in_words(name: str) -> None:
    said = prompts(games.get(name))
    assert len(said) > 4, said  # the games were played: many prompts were seen
    found = {text: syntax_in(text) for text in said if syntax_in(text)}
    assert not found, found

"""The card map part: every card the table's game deals has a tag, and the face threshold.

The map is `[mat] cards` (relative to the table file), else the bundled simulated deck's, which
only a simulated mat can use. "Every card known" is the game's deck (`MatLayout.deck`): the 52
or 54 playing cards, or, for a game with a deck of its own, every card of each deck file the
map names.
"""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Final

from tabletop.hardware.mat import CardMap, simulated_deck
from tabletop.hardware.mat.errors import CardMapError
from tabletop.rules import games
from tabletop.rules.games.cards import standard_deck
from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.game import GameRules

from .context import Context

PART: Final = "cards"
STANDARD: Final = {"standard-52": False, "standard-54": True}


def is_simulated(port: str) -> bool:
    """Whether the mat port names the simulated mat started in-process."""
    return port == "sim:" or port.startswith("sim:?") or port == "sim://"


def load(context: Context) -> CardMap | None:
    """The table's card map, or None (said in the checklist) when it cannot be read."""
    name = context.config.mat.cards
    if name is None:
        return simulated_deck()
    path = context.resolve(name)
    try:
        return CardMap.load(path)
    except CardMapError as error:
        context.checklist.failed(
            PART,
            "map",
            f"mat.cards: {error}",
            f"enrol the deck: `tabletop cards enrol --port {context.mat_port} --out "
            f"{path}` (or point mat.cards at the map it wrote)",
        )
        return None


def check(context: Context) -> None:
    """Checks the map covers the game's deck and carries the face sensor's calibration."""
    config = context.config
    cards = load(context)
    if cards is None:
        return
    where = config.mat.cards or "the bundled simulated deck (no mat.cards)"
    enrol = (
        f"tabletop cards enrol --port {context.mat_port} --out {config.mat.cards or 'cards.json'}"
    )
    if config.mat.cards is None and not is_simulated(context.mat_port):
        context.checklist.failed(
            PART,
            "map",
            "no mat.cards: a real mat's cards carry their own tags, which only their map knows",
            f"enrol the deck with `{enrol}` and set [mat] cards to that file",
        )
        return
    context.checklist.passed(PART, "map", f"{where}: {len(cards.cards)} tags")
    game = games.get(config.rules.game)
    deck = game.mat_layout(config.rules.options).deck
    if deck is None:
        context.checklist.passed(PART, "every card known", f"{game.info.title} uses no cards")
    elif deck in STANDARD:
        wanted = [card.code for card in standard_deck(STANDARD[deck])]
        known = {card.code for card in cards.cards.values()}
        missing = [code for code in wanted if code not in known]
        _known(context, f"the {len(wanted)} playing cards", missing, enrol)
    else:
        _deck_files(context, cards, game, enrol)
    calibration = cards.calibration
    if calibration is None:
        context.checklist.failed(
            PART,
            "face threshold",
            f"{where} has no face calibration, so the mat judges faces by its default",
            f"enrol again with `{enrol}`: its first card, laid face up, measures the backs",
        )
    elif calibration.margin <= calibration.hysteresis:
        context.checklist.failed(
            PART,
            "face threshold",
            f"threshold {calibration.threshold}: backs {calibration.back_level}, faces "
            f"{calibration.face_level_min}-{calibration.face_level_max}: too close to tell",
            "the sensors hardly see a difference: check the face sensors' LEDs (docs/mat.md, "
            "'Face up or face down'), then enrol again",
        )
    else:
        context.checklist.passed(
            PART,
            "face threshold",
            f"{calibration.threshold} +/- {calibration.hysteresis} (backs "
            f"{calibration.back_level}, faces {calibration.face_level_min}-"
            f"{calibration.face_level_max})",
        )


def _known(context: Context, what: str, missing: list[str], enrol: str) -> None:
    if not missing:
        context.checklist.passed(PART, "every card known", f"{what}: each has a tag")
        return
    shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
    context.checklist.failed(
        PART,
        "every card known",
        f"{what}: {len(missing)} without a tag: {shown}",
        f"enrol them: `{enrol}` adds the missing ones to the map",
    )


def _deck_files(context: Context, cards: CardMap, game: GameRules, enrol: str) -> None:
    if not cards.decks:
        context.checklist.failed(
            PART,
            "every card known",
            f"{game.info.title} plays its own deck, and the map names no deck file",
            f"enrol the deck: `{enrol} --deck DECK.toml` (examples/decks/)",
        )
        return
    base = context.resolve(context.config.mat.cards) if context.config.mat.cards else None
    known = {card.code for card in cards.cards.values()}
    for name, file in sorted(cards.decks.items()):
        path = (base.parent if base is not None else _bundled()) / file
        try:
            text = path.read_text(encoding="utf-8")
            raw = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
            _deck, codes = game.deck_codes(raw, path.name)
        except (OSError, ValueError, RulesError) as error:
            context.checklist.failed(
                PART,
                f"deck {name}",
                f"cannot read its deck file {path}: {error}",
                "put the deck file where the map names it (relative to the map)",
            )
            continue
        missing = [code for code in codes if code not in known]
        _known(context, f"deck {name} ({len(codes)} cards)", missing, f"{enrol} --deck {path}")


def _bundled() -> Path:
    """The folder of the bundled map, which names its deck files relative to itself."""
    return Path(str(resources.files("tabletop.hardware.mat").joinpath("data")))

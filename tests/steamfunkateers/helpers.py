"""Shared moves for the Steamfunkateers tests: a game with Ana and Bo, pools, throws."""

from __future__ import annotations

from typing import Any

from tabletop.rules.games.steamfunkateers.engine import Game


def new_game(vigor: int = 2, gm_vigor: int = 0, players: tuple[str, ...] = ("Ana", "Bo")) -> Game:
    game = Game()
    game.execute(
        {
            "cmd": "new_game",
            "players": list(players),
            "options": {"starting_vigor": vigor, "gm_vigor": gm_vigor},
        }
    )
    return game


def pool(player: str, rank: int, **changes: Any) -> dict[str, Any]:
    return {"player": player, "rank": rank, "skill": "Athletics", **changes}


def check(game: Game, *pools: dict[str, Any]) -> None:
    game.execute({"cmd": "check", "pools": list(pools)})


def roll(game: Game, *values: int) -> None:
    game.execute({"cmd": "roll", "values": list(values)})


def vigor(game: Game, who: str) -> int:
    return game.state.vigor[who]

"""OS-SIX's simulated people: a random legal player, and a table of players and a GM.

`random_command` plays from the full state (tests, benchmarks); `OsSixPeople` sees only what
people at the table see (the public state, the prompt, the alerts) and throws dice with its
hands, now and then throwing the wrong number for the table to catch."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop.rules.games.people import People

from .duel import resolved
from .engine import ATTRIBUTES, GM_ROLLS
from .outcomes import Outcome
from .poker import DEAL_DICE, VARIANTS, Phase, Poker
from .state import MAX_LUCK, MAX_STRAIN, LastRoll, PendingKind, State

NAMES = ("Ana", "Bo", "Cy", "Di")


def _action(rng: random.Random, player: str) -> dict[str, Any]:
    return {
        "cmd": "action",
        "player": player,
        "attribute": rng.choice(ATTRIBUTES[:4]),
        "score": rng.randint(0, 3),
        "skill": rng.random() < 0.5,
        "bonus": rng.choice((0, 0, 1)),
        "penalty": rng.choice((0, 0, 1, 2)),
        "high_pressure": rng.random() < 0.5,
    }


def _failed(last: LastRoll | None) -> bool:
    """True when a character's latest action roll failed (pushing your luck may follow)."""
    return last is not None and last.outcome is Outcome.FAILURE


def _forced_use(last: Outcome | None) -> str:
    """A use that is always legal for a pushed Luck Point: re-roll a failure, else upgrade a
    partial success, else reduce an attack's damage."""
    if last is Outcome.FAILURE:
        return "reroll"
    if last is Outcome.PARTIAL:
        return "upgrade"
    return "reduce_damage"


def _next_step(state: State, rng: random.Random) -> str:
    """A duel step the duel allows next (resolving the called step as the engine will)."""
    duel = state.duel
    assert duel is not None
    me = state.character(duel.player)
    if duel.called is not None and me is not None and me.last is not None:
        duel = resolved(duel, me.last.outcome)
    return rng.choice(duel.allowed).value


def poker_bet(table: Poker, rng: random.Random) -> dict[str, Any]:
    """A random legal bet for the player whose turn it is."""
    seat = table.bettor()
    assert seat is not None
    owe = table.to_call(seat)
    bet: dict[str, Any] = {"cmd": "bet", "player": seat.name}
    choices: list[dict[str, Any]] = [{**bet, "action": "fold"}, {**bet, "action": "all_in"}]
    if owe:
        choices += [{**bet, "action": "call"}] * 4
        room = seat.money - owe
        if room >= table.min_raise():
            amount = rng.randint(table.min_raise(), min(room, table.min_raise() + 3))
            choices += [{**bet, "action": "raise", "amount": amount}] * 2
    else:
        choices += [{**bet, "action": "check"}] * 4
        if not table.bet:
            amount = rng.randint(1, min(seat.money, 4))
            choices += [{**bet, "action": "bet", "amount": amount}] * 2
    return rng.choice(choices)


def poker_draw(hand: Sequence[int], kept: Sequence[int] | None, rng: random.Random) -> list[int]:
    """A hand after the draw: the kept dice (named, or at least two of the hand) and new ones."""
    stay = list(kept) if kept is not None else rng.sample(list(hand), rng.randint(2, 5))
    return stay + [rng.randint(1, 6) for _ in range(5 - len(stay))]


def _poker_command(state: State, rng: random.Random) -> dict[str, Any]:
    """A random legal move in the game of poker being played."""
    table = state.poker
    assert table is not None
    if not table.in_hand:
        roll = rng.random()
        if roll < 0.05:
            return {"cmd": "poker_end", "reason": "a fight breaks out in the saloon"}
        if roll < 0.1:
            return {"cmd": "poker_leave", "player": rng.choice(table.seats).name}
        return {"cmd": "ante"}
    entering = table.awaited_hands()
    if entering:  # concealed hands: entered by the player (or the GM), in any order at the deal
        who = rng.choice(entering)
        seat = table.seat(who)
        assert seat is not None
        if table.phase is Phase.DRAW:
            if seat.kept is None and rng.random() < 0.4:
                keep = rng.sample(list(seat.dice), rng.randint(2, 5))
                return {"cmd": "draw", "player": who, "keep": keep}
            drawn = poker_draw(seat.dice, seat.kept, rng)
            return {"cmd": "poker_hand", "player": who, "values": drawn}
        dice = [rng.randint(1, 6) for _ in range(DEAL_DICE[table.variant])]
        return {"cmd": "poker_hand", "player": who, "values": dice}
    awaited = table.awaited_dice()
    if awaited is None:
        return poker_bet(table, rng)
    who, count, draw = awaited
    seat = table.seat(who)
    if table.phase is Phase.REVEAL and seat is not None:
        # The hand laid in the tray at the reveal; now and then not the one entered.
        shown = list(seat.dice)
        if rng.random() < 0.1:
            shown = [rng.randint(1, 6) for _ in shown]
        return {"cmd": "roll", "values": shown}
    if draw and seat is not None:
        if seat.kept is None and rng.random() < 0.4:
            keep = rng.sample(list(seat.dice), rng.randint(2, 5))
            return {"cmd": "draw", "player": who, "keep": keep}
        return {"cmd": "roll", "values": poker_draw(seat.dice, seat.kept, rng)}
    return {"cmd": "roll", "values": [rng.randint(1, 6) for _ in range(count)]}


def _poker_start(state: State, rng: random.Random) -> dict[str, Any]:
    names = [c.name for c in state.characters]
    seated = rng.sample(names, rng.randint(min(2, len(names)), len(names)))
    if len(seated) < 2 or rng.random() < 0.5:
        seated.append("Black Bart")  # "the GM ... roll dice for one NPC"
    return {
        "cmd": "poker_start",
        "players": [{"name": n, "money": rng.randint(1, 30)} for n in seated],
        "ante": rng.choice((1, 1, 2)),
        "variant": rng.choice(VARIANTS),
        "dealer": rng.choice(seated),
        "open": rng.random() < 0.5,
    }


def random_command(state: State, rng: random.Random) -> dict[str, Any]:
    """A random legal command for the state (a new game once one is over)."""
    if state.over:
        return {"cmd": "new_game", "players": list(NAMES[: rng.randint(1, 4)])}
    pending = state.pending
    table = state.poker
    if pending is None and table is not None and (table.in_hand or rng.random() < 0.7):
        return _poker_command(state, rng)
    if pending is None and state.poker is None and state.duel is None and rng.random() < 0.05:
        return _poker_start(state, rng)
    dice = pending.dice if pending is not None else 0
    if pending is not None and pending.kind is PendingKind.ACTION:
        helpers = [
            c.name for c in state.characters if c.name != pending.player and not c.incapacitated
        ]
        me = state.character(pending.player or "")
        if helpers and not pending.helped and rng.random() < 0.2:
            return {"cmd": "help", "helper": rng.choice(helpers), "player": pending.player}
        if me is not None and me.luck > 0 and rng.random() < 0.1:
            return {"cmd": "spend_luck", "player": me.name, "use": "bonus"}
    if dice:
        return {"cmd": "roll", "values": [rng.randint(1, 6) for _ in range(dice)]}
    if pending is not None and pending.kind is PendingKind.PANIC:
        return {"cmd": "panic", "player": pending.player, "outcome": "freezes for a round"}
    if pending is not None and pending.kind is PendingKind.SPEND:
        me = state.character(pending.player or "")
        last = me.last.outcome if me is not None and me.last is not None else None
        return {"cmd": "spend_luck", "player": pending.player, "use": _forced_use(last)}
    able = [c for c in state.characters if not c.incapacitated]
    choices: list[dict[str, Any]] = [_action(rng, c.name) for c in able for _ in range(3)]
    # A push and a Luck Point's re-roll answer a failure since the last long rest.
    late = bool(state.options.get("second_chance_after_long_rest", False))
    for c in state.characters:
        if c.luck < MAX_LUCK:
            choices.append({"cmd": "award_luck", "player": c.name})
        latest = c.last
        second_chance = late or not c.rested
        if c.luck == 0 and c.strain < MAX_STRAIN and _failed(latest) and second_chance:
            # "fails a crucial action roll, but really needs a second chance"
            choices.append({"cmd": "push", "player": c.name})
        if c.luck > 0 and latest is not None:
            if latest.outcome is Outcome.FAILURE and second_chance:
                choices.append({"cmd": "spend_luck", "player": c.name, "use": "reroll"})
            if latest.outcome is Outcome.PARTIAL:
                choices.append({"cmd": "spend_luck", "player": c.name, "use": "upgrade"})
        if c.strain > 0:
            choices.append({"cmd": "strain", "player": c.name, "change": -rng.randint(1, 4)})
    duel = state.duel
    if duel is None and able and rng.random() < 0.3:
        pistols = rng.random() < 0.5
        return {
            "cmd": "duel",
            "player": rng.choice(able).name,
            "opponent": "Black Bart",
            "two_pistols": pistols,
        }
    if duel is not None:
        me = state.character(duel.player)
        if me is not None and not me.incapacitated and rng.random() < 0.8:
            return {**_action(rng, me.name), "duel_step": _next_step(state, rng)}
        return {"cmd": "duel_end", "outcome": "Black Bart throws down his gun"}
    name = rng.choice(state.characters).name
    choices += [
        {"cmd": "award_luck", "player": "all"},
        {"cmd": "long_rest", "player": "all"},
        {"cmd": "load", "player": name, "brawn": rng.randint(0, 5), "items": rng.randint(0, 14)},
        {"cmd": "strain", "player": name, "change": rng.randint(1, 3), "reason": "a wound"},
    ]
    kind = rng.choice(GM_ROLLS)
    gm: dict[str, Any] = {"cmd": "gm_roll", "kind": kind}
    if kind == "morale":
        gm["morale"] = rng.randint(2, 12)
    choices.append(gm)
    if rng.random() < 0.01:
        return {"cmd": "end_game"}
    return rng.choice(choices)


def _same_moment(referee: Any, public: Any) -> bool:
    """Whether the referee's `pending` (which the people read) and the public prompt's are of
    one moment: the same item, but for the concealed poker dice the public one leaves out."""
    if isinstance(referee, Mapping) and isinstance(public, Mapping) and public.get("concealed"):
        hidden = ("hand", "kept")
        return {k: v for k, v in referee.items() if k not in hidden} == {
            k: v for k, v in public.items() if k not in hidden
        }
    return bool(referee == public)


class OsSixPeople(People):
    """Simulated players and GM: the GM calls `settings.length` action rolls (and, between
    them, a Morale check now and then); the players throw the dice the prompt asks for."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.wrong_throw_out = False
        self.rolls_called = 0
        self.ended = False
        self.last_ok = True
        # Seen on the table (not merely sent, since a command may be refused): the scenes of
        # the evening happen once each.
        self.duel_done = False
        self.poker_done = False
        # The concealed hands each gambler entered: a player knows their own dice, which the
        # room's view does not show.
        self.concealed: dict[str, list[int]] = {}

    def start_game(self, seed: int) -> None:
        """Announces a new game for the seats."""
        self.rolls_called = 0
        self.ended = False
        self.duel_done = False
        self.poker_done = False
        self.send({"cmd": "new_game", "game": "ossix", "players": list(self.seats)})

    def replied(self, ok: bool) -> None:
        self.last_ok = ok

    def step(
        self, state: dict[str, Any] | None, prompt: dict[str, Any] | None, alerts: dict[str, str]
    ) -> bool:
        """Does the next thing a person at the table would do; False when the evening is over."""
        if state is None or prompt is None or state.get("phase") == "finished":
            return False
        if not _same_moment(state.get("pending"), prompt.get("pending")):
            return False  # a state and a prompt of different moments: wait for one moment
        dice = prompt.get("dice")
        awaits_dice = prompt.get("waiting") == "dice" and isinstance(dice, Mapping)
        if self.wrong_throw_out:
            # The table took no roll from a wrong throw: the same dice are still awaited.
            self.wrong_throw_out = False
            if awaits_dice:
                self.mistakes_caught += 1
        if awaits_dice and isinstance(dice, Mapping):
            count = int(dice["count"])
            # A die too many, which the table must raise an alert for; never while the table
            # still shows an alert, as a person just told off throws with care.
            if not alerts and self.rng.random() < self.settings.mistake_rate:
                count += 1
                self.mistakes_made += 1
                self.wrong_throw_out = True
            self.settings.pause(1.0)
            self.hands.throw(self._throw(prompt, count))
            return True
        pending = state.get("pending") or {}
        if pending.get("type") == "panic":
            self.send({"cmd": "panic", "player": pending["player"], "outcome": "flees in panic"})
            return True
        players = {p["name"]: p for p in state.get("players", [])}
        if pending.get("type") == "spend":
            last = (players[pending["player"]].get("last_roll") or {}).get("outcome")
            outcome = Outcome(last) if last else None
            self.send(
                {"cmd": "spend_luck", "player": pending["player"], "use": _forced_use(outcome)}
            )
            return True
        scene = self._scene(state, prompt)
        if scene is not None:
            self.send(scene)
            return True
        if self.rolls_called >= self.settings.length:
            if not self.ended:
                self.ended = True
                self.send({"cmd": "end_game"})
                return True
            return False
        able = [name for name in self.seats if not players.get(name, {}).get("incapacitated")]
        if not able:
            self.send({"cmd": "long_rest", "player": "all"})
            name = self.rng.choice(self.seats)
            self.send({"cmd": "strain", "player": name, "change": -6, "reason": "recovery"})
            return True
        self.rolls_called += 1
        if self.rng.random() < 0.2:
            self.send({"cmd": "gm_roll", "kind": "morale", "morale": self.rng.randint(4, 10)})
        else:
            self.send(_action(self.rng, self.rng.choice(able)))
        return True

    # -- the evening's scenes: a quick-draw duel, then a hand of poker -------------------------

    DUEL_SCRIPT = ("standoff", "draw", "defense")  # each always follows the one before

    def _throw(self, prompt: Mapping[str, Any], count: int) -> list[int]:
        """The dice a player throws: at the poker draw, the hand's kept dice and new ones."""
        detail = prompt.get("pending") or {}
        if detail.get("type") == "poker_draw" and count == 5:
            return poker_draw(detail.get("hand") or [], detail.get("kept"), self.rng)
        if detail.get("type") == "poker_draw":  # a mistake: a die too many besides the hand
            return [*poker_draw(detail.get("hand") or [], detail.get("kept"), self.rng), 1]
        if detail.get("type") == "poker_reveal":  # the concealed hand, laid in the tray
            hand = list(detail.get("hand") or [])
            return hand + [1] * (count - len(hand))  # a die too many: the mistake
        return [self.rng.randint(1, 6) for _ in range(count)]

    def _scene(self, state: Mapping[str, Any], prompt: Mapping[str, Any]) -> dict[str, Any] | None:
        """The GM's (or a player's) next move in the duel or the poker, if one is on or due;
        read from the table each time, so a refused command is simply tried again."""
        players = {p["name"]: p for p in state.get("players", [])}
        able = [n for n in self.seats if not players.get(n, {}).get("incapacitated")]
        table = state.get("poker")
        if isinstance(table, Mapping):
            self.poker_done = True
            return self._poker_move(table, prompt)
        if state.get("pending") is not None:
            return None
        duel = state.get("duel")
        if isinstance(duel, Mapping):
            self.duel_done = True
            me = duel["player"]
            rolled = duel.get("rolled")
            done = self.DUEL_SCRIPT.index(rolled) + 1 if rolled in self.DUEL_SCRIPT else 0
            if done >= len(self.DUEL_SCRIPT) or me not in able or rolled == "attack":
                return {"cmd": "duel_end", "outcome": "Black Bart throws down his gun"}
            step = self.DUEL_SCRIPT[done]
            attribute = "will" if step == "standoff" else "agility"
            return {**_action(self.rng, me), "attribute": attribute, "duel_step": step}
        due = self.settings.length
        if not self.duel_done and able and self.rolls_called >= due // 3:
            return {
                "cmd": "duel",
                "player": self.rng.choice(able),
                "opponent": "Black Bart",
                "two_pistols": self.rng.random() < 0.5,
            }
        if not self.poker_done and self.rolls_called >= 2 * due // 3:
            seated = [*self.seats, "Black Bart"]  # the GM plays one NPC
            return {
                "cmd": "poker_start",
                "players": [{"name": n, "money": self.rng.randint(8, 20)} for n in seated],
                "dealer": self.rng.choice(seated),
            }
        return None

    def _poker_move(
        self, table: Mapping[str, Any], prompt: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        if table.get("phase") == "between":
            if int(table.get("hand", 0)) >= 1:  # one hand in the evening
                return {"cmd": "poker_end", "reason": "the saloon closes"}
            return {"cmd": "ante"}
        detail = prompt.get("pending") or {}
        if detail.get("type") == "poker_hand":  # the deal, concealed: behind the hand
            who = str(detail["player"])
            dice = [self.rng.randint(1, 6) for _ in range(int(detail["dice"]))]
            self.concealed[who] = dice
            return {"cmd": "poker_hand", "player": who, "values": dice}
        if detail.get("type") == "poker_draw" and detail.get("concealed"):
            who = str(detail["player"])
            hand = self.concealed.get(who)
            if hand is None:  # a hand this table did not see entered: nothing to draw from
                return {"cmd": "poker_end", "reason": "the saloon closes"}
            drawn = poker_draw(hand, None, self.rng)
            self.concealed[who] = drawn
            return {"cmd": "poker_hand", "player": who, "values": drawn}
        if detail.get("type") != "poker_bet":
            return None
        bettor = {"cmd": "bet", "player": detail["player"]}
        owe, least, money = detail["to_call"], detail["min_raise"], detail["money"]
        if owe:
            choices = [{**bettor, "action": "call"}] * 3 + [{**bettor, "action": "fold"}]
            if money - owe >= least:
                choices.append({**bettor, "action": "raise", "amount": least})
        else:
            choices = [{**bettor, "action": "check"}] * 3
            if not table.get("bet"):
                choices.append({**bettor, "action": "bet", "amount": min(money, 2)})
        return self.rng.choice(choices)

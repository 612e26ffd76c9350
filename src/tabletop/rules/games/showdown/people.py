"""Six-Gun Showdown's simulated people: a random legal player, and two gunslingers at a table.

`random_command` plays from the full state (tests, benchmarks). `Gunslingers` see what people
at the table see (the public state, the prompt, the alerts) and their own bullets; they lay,
touch, lift and turn cards with their hands and throw the die. Their reactions take human
times: a simple visual reaction of about 250 ms (sd 40 ms) and a reach of about 150 ms more, so
races are sometimes clear and sometimes inside the tie window. With hands that can touch a
slot (a mat with touch pads) they touch before they turn; without, the grab and the turn are
all the table sees.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from ..game import WAIT_ALERT, TouchHands
from ..people import People
from .decks import (
    BULLETS,
    CardType,
    Condition,
    Deck,
    DeckCard,
    DeckKind,
    RerollTarget,
    deck_to_json,
)
from .engine import discard_bounds, reroll_offer
from .state import GameState, Phase

NAMES = ("Ana", "Bo")
_SLOT_ALERT = re.compile(r"^slot\.s(\d+)\.(\d+)$")  # the reader's alert on a slot
REACTION_MS = (250.0, 40.0)  # mean and sd of a simple visual reaction
REACH_MS = (150.0, 30.0)  # moving the hand to a card on the table
# Looks at a table still asking for the throw they made before they throw again (the runner
# lets them look once per patience: 0.25 s at --speed 20, so about 15 s; 2 min at real time).
THROW_AGAIN_AFTER_LOOKS = 60


def random_deck(rng: random.Random, name: str, kind: DeckKind = DeckKind.FULL) -> Deck:
    """A deck of 12 to 18 cards with random modifiers: at least two Draws (tests, people)."""
    kinds = [CardType.DRAW, CardType.DRAW]
    kinds += [rng.choice(list(CardType)) for _ in range(rng.randint(10, 16))]
    cards = []
    for i, kind_ in enumerate(kinds):
        cards.append(
            DeckCard(
                id=f"{kind_.value.replace('-', '')}-{i + 1}",
                title=kind_.value.title(),
                type=kind_,
                speed=rng.randint(-1, 2),
                accuracy=rng.randint(-1, 2),
                opponent_speed=rng.randint(-1, 0),
                opponent_accuracy=rng.randint(-1, 0),
                condition=(
                    Condition.OPPONENT_NEXT_IS_DRAW
                    if kind_ is CardType.FLINCH
                    else Condition.ALWAYS
                ),
                rerolls=rng.choice(list(RerollTarget)) if kind_ is CardType.REROLL else None,
            )
        )
    return Deck(name, name.title(), kind, tuple(cards), example=True)


# The example decks' card ids (examples/decks/cowboy.toml and desperado.toml): the simulated mat's
# bundled card map tags exactly these, so the gunslingers' decks use them (tests check the files).
MAT_DECK_IDS: tuple[tuple[CardType, int], ...] = (
    (CardType.DRAW, 4),
    (CardType.FOCUS, 3),
    (CardType.REACH, 3),
    (CardType.DISTRACT, 2),
    (CardType.FLINCH, 2),
    (CardType.REROLL, 2),
)


def mat_deck(rng: random.Random, name: str) -> Deck:
    """A deck of the example decks' cards (their ids, so the simulated mat has tags for them)
    with random modifiers: what the gunslingers play at the simulated table."""
    cards = []
    for kind, count in MAT_DECK_IDS:
        for number in range(1, count + 1):
            cards.append(
                DeckCard(
                    id=f"{kind.value.replace('-', '')}-{number}",
                    title=kind.value.title(),
                    type=kind,
                    speed=rng.randint(-1, 2),
                    # steadier hands than random_deck's: shots hit often enough to score
                    accuracy=rng.randint(0, 2),
                    opponent_speed=rng.randint(-1, 0),
                    opponent_accuracy=rng.randint(-1, 0),
                    condition=(
                        Condition.OPPONENT_NEXT_IS_DRAW
                        if kind is CardType.FLINCH
                        else Condition.ALWAYS
                    ),
                    rerolls=rng.choice(list(RerollTarget)) if kind is CardType.REROLL else None,
                )
            )
    return Deck(name, name.title(), DeckKind.FULL, tuple(cards), example=True)


def new_game_command(rng: random.Random) -> dict[str, Any]:
    kinds = [DeckKind.FULL, DeckKind.SINGLE_SHOT]
    decks = [random_deck(rng, n, rng.choice(kinds)) for n in ("cowboy", "desperado")]
    return {
        "cmd": "new_game",
        "players": [
            {"name": name, "deck": deck_to_json(deck)}
            for name, deck in zip(NAMES, decks, strict=True)
        ],
        "options": {
            "hit_face": rng.choice((0, 6, 6, 1)),
            "single_shot_discard": rng.choice(("mixed", "always", "never")),
            "reach_scores": rng.random() < 0.2,
            "bonus_after_reach": rng.random() < 0.2,
        },
    }


def _face_down(state: GameState, player: str) -> list[int]:
    return [b.slot for b in state.hands[player].face_down]


def random_command(state: GameState, rng: random.Random) -> dict[str, Any] | None:
    """A random, usually legal, command for the state."""
    if not state.started or state.over:
        return new_game_command(rng)
    phase = state.phase
    if phase is Phase.LOAD:
        player = next(p for p in state.players if not state.hands[p].loaded)
        cards = rng.sample(list(state.available[player]), state.to_load[player])
        slots = rng.sample(range(1, BULLETS + 1), len(cards))
        bullets = [{"slot": s, "card": c} for s, c in zip(slots, cards, strict=True)]
        return {"cmd": "load", "player": player, "bullets": bullets}
    if phase is Phase.STARE_DOWN:
        player = state.turn or rng.choice(state.players)
        if rng.random() < 0.05:
            return {"cmd": "reach", "player": rng.choice(state.players)}
        hand = state.hands[player]
        slot = hand.touched or rng.choice(_face_down(state, player))
        if hand.touched is None and rng.random() < 0.3:
            return {"cmd": "touch", "player": player, "slot": slot, "at_ms": rng.randint(0, 10**6)}
        return {"cmd": "reveal", "player": player, "slot": slot}  # a reveal takes no time
    if phase is Phase.DISCARD:
        player = state.discards_due[0]
        low, high = discard_bounds(state, player)
        revealed = [c for p, c in state.reveals if p == player]
        return {
            "cmd": "discard",
            "player": player,
            "cards": rng.sample(revealed, rng.randint(low, high)),
        }
    attacker, defender = state.attacker, state.defender
    assert attacker is not None and defender is not None
    if phase is Phase.RACE:
        if rng.random() < 0.3:
            return {
                "cmd": "reveal",
                "player": defender,
                "slot": rng.choice(_face_down(state, defender)),
            }
        if rng.random() < 0.5:
            # the times alone: the engine judges them as the mat's (`race.judge_race`)
            a, d = rng.randint(0, 400), rng.randint(0, 400)
            return {"cmd": "race", "attacker_ms": a, "defender_ms": d}
        return {"cmd": "race", "winner": rng.choice(("attacker", "defender", "unclear"))}
    if phase in (Phase.DEFENDER_CHOOSES, Phase.REPLY):
        hand = state.hands[defender]
        if phase is Phase.REPLY and rng.random() < 0.15:
            return {"cmd": rng.choice(("pass", "reach")), "player": defender}
        slot = hand.touched or rng.choice(_face_down(state, defender))
        return {"cmd": "reveal", "player": defender, "slot": slot}
    if phase is Phase.SHOOT:
        offer = reroll_offer(state)
        if offer is not None:
            if rng.random() < 0.6:
                return {"cmd": "reroll", "player": offer[0], "value": rng.randint(1, 6)}
            return {"cmd": "keep", "player": offer[0]}
        return {"cmd": "roll", "value": rng.randint(1, 6)}
    return {"cmd": "end_game"}


class Gunslingers(People):
    """Two players at a simulated table (`tabletop sim --game showdown`), seen as people see it."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.decks: dict[str, Deck] = {}
        self.laid: dict[int, dict[int, str]] = {}  # seat -> slot -> card code on the mat
        self.loaded_round = 0
        self.seen_round = 0
        self.acted: set[str] = set()
        self.undo: tuple[int, int] | None = None  # a bullet turned by mistake, to turn back
        self.before: dict[int, dict[int, str]] = {}  # what lay in each slot last round
        self.putting_right: set[str] = set()  # the alerts they have acted on
        self.up: set[tuple[int, int]] = set()  # (seat, slot) of cards their hands left face up
        self.wait_heard: str | None = None  # the table's last `wait` alert they acted on
        self.looks_since_act = 0  # looks at an unchanged table since they last acted

    # -- SimulatedPeople --------------------------------------------------------------------

    def start_game(self, seed: int) -> None:
        rng = random.Random(seed)
        self._clear()
        decks = [mat_deck(rng, n) for n in ("cowboy", "desperado")]
        names = self.seats[:2]
        self.decks = dict(zip(names, decks, strict=True))
        self.loaded_round = self.seen_round = 0
        self.acted.clear()
        self.send(
            {
                "cmd": "new_game",
                "game": "showdown",
                "players": [
                    {"name": n, "deck": deck_to_json(d)} for n, d in zip(names, decks, strict=True)
                ],
            }
        )

    def step(
        self, state: dict[str, Any] | None, prompt: dict[str, Any] | None, alerts: dict[str, str]
    ) -> bool:
        if WAIT_ALERT not in alerts:
            # The table moved, or a restarted daemon has not said it yet: its next saying,
            # even in the same words, is heard anew.
            self.wait_heard = None
        if state is None or state.get("game") != "showdown":
            return False
        if self.undo is not None:
            if alerts:
                self.mistakes_caught += 1
            self._flip(*self.undo)
            self.undo = None
            return True
        if self._put_right(alerts):
            return True
        phase = state.get("phase")
        round_ = int(state.get("round", 0))
        players = {p["name"]: p for p in state.get("players", [])}
        if round_ != self.seen_round:
            self._new_round(state, round_)
        turning = ("stare_down", "race", "defender_chooses", "reply")
        if phase in turning and self._ahead_of_the_table(players):
            # They wait for the table to see the card they turned; told that it waited long
            # ("if it was done, the mat did not see it: lift the card and lay it again"), they
            # do just that, face up, as a person would (the soak's Showdown stalls of issue 30).
            if self._asked_again(alerts):
                return self._lay_again_what_is_ahead(players)
            return False
        pending = (prompt or {}).get("pending") or state.get("pending") or {}
        shown = sum(b.get("face_up", False) for p in players.values() for b in p["bullets"])
        key = (
            f"{round_}:{phase}:{shown}:{pending.get('prompt')}:{state.get('rolls')}:"
            f"{pending.get('card')}"
        )
        if phase == "load":
            return self._load(state, players, round_)
        if self._asked_again(alerts):
            self.acted.discard(key)
        if key in self.acted:
            self.looks_since_act += 1
            if phase != "shoot" or self.looks_since_act < THROW_AGAIN_AFTER_LOOKS:
                return False
            # The table still asks for the throw they made long ago and says nothing (a
            # restarted daemon has not waited long enough to say so): they throw again, as a
            # person who sees the screen still asking would. Only a throw: a card turned
            # again would hide a revealed bullet.
        self.looks_since_act = 0
        self.acted.add(key)
        if phase == "stare_down":
            before = self.mistakes_made
            acted = self._stare_down(state, players)
            if self.mistakes_made != before:
                self.acted.discard(key)  # a slip: the turn is still to be played
            return acted
        if phase == "race":
            return self._race(state, players)
        if phase in ("defender_chooses", "reply"):
            return self._defender(state, players, phase == "reply")
        if phase == "shoot":
            return self._shoot(pending)
        if phase == "discard":
            return self._discard(state, players)
        return False

    # -- what they do -----------------------------------------------------------------------

    def _asked_again(self, alerts: Mapping[str, str]) -> bool:
        """True once per `wait` alert: the table says it has waited long for what they did
        (a throw the camera never read, a card the mat never saw while it was unplugged or the
        bridge restarted), so they do it again, as a person told so at a table would."""
        said = alerts.get(WAIT_ALERT)
        if said is None or said == self.wait_heard:
            return False
        self.wait_heard = said  # the table says it again, in new words, if it still waits
        return True

    def _put_right(self, alerts: Mapping[str, str]) -> bool:
        """Does what the table asks of a slot that does not match the game (a revealed bullet
        lying face down, a bullet taken away), once per alert, as a person reading it would."""
        self.putting_right &= set(alerts)
        for key, message in sorted(alerts.items()):
            match = _SLOT_ALERT.match(key)
            if match is None or key in self.putting_right:
                continue
            seat, slot = int(match.group(1)) - 1, int(match.group(2))
            # A person looks at the card before turning it: one their hands left face up
            # is not turned again, whatever a late reading of the mat said (turning it
            # would hide a revealed bullet: the ghost face-down bullets of issue 30).
            shown_wrong = (
                message.endswith("it was revealed; turn it face up") and (seat, slot) not in self.up
            )
            turned_wrong = "turn it face down again" in message and (seat, slot) in self.up
            if shown_wrong or turned_wrong:
                self._flip(seat, slot)
            elif message.endswith("put the bullet back") and slot in self.laid.get(seat, {}):
                self._lay(seat, slot, self.laid[seat][slot], False)
            elif message.endswith("lift it and lay it again") and slot in self.laid.get(seat, {}):
                # the hands lift the card and lay it down again (MatHands keeps the slot
                # empty long enough for the mat to see it)
                self._lift(seat, slot)
                self._lay(seat, slot, self.laid[seat][slot], False)
            else:
                continue
            self.putting_right.add(key)
            return True
        return False

    def _lay(self, seat: int, slot: int, code: str, face_up: bool) -> None:
        self.hands.lay(seat, slot, code, face_up)
        if face_up:
            self.up.add((seat, slot))
        else:
            self.up.discard((seat, slot))

    def _lift(self, seat: int, slot: int) -> None:
        self.hands.lift(seat, slot)
        self.up.discard((seat, slot))

    def _flip(self, seat: int, slot: int) -> None:
        self.hands.flip(seat, slot)
        self.up ^= {(seat, slot)}

    def _ahead_of_the_table(self, players: Mapping[str, Any]) -> bool:
        """Whether a card their hands turned face up is not yet revealed in the state, when the
        next move is to turn a bullet: the table has not caught up with them, and people wait
        for it rather than turn a bullet again (turning that one again would hide a revealed
        card, turning another would reveal two)."""
        for name, player in players.items():
            seat = self._seat(name)
            for bullet in player.get("bullets", []):
                if (seat, bullet["slot"]) in self.up and not bullet.get("face_up"):
                    return True
        return False

    def _lay_again_what_is_ahead(self, players: Mapping[str, Any]) -> bool:
        """Lifts each card their hands left face up that the state has not revealed and lays it
        down again, face up."""
        done = False
        for name, player in players.items():
            seat = self._seat(name)
            for bullet in player.get("bullets", []):
                slot = bullet["slot"]
                code = self.laid.get(seat, {}).get(slot)
                if (seat, slot) in self.up and not bullet.get("face_up") and code is not None:
                    self._lift(seat, slot)
                    self._lay(seat, slot, code, True)
                    done = True
        return done

    def _seat(self, name: str) -> int:
        return self.seats.index(name)

    def _clear(self) -> None:
        if not self.laid:
            return  # nothing on the mat: what lay there last (`before`) is still what counts
        for seat, slots in self.laid.items():
            for slot in list(slots):
                self._lift(seat, slot)
        self.before = self.laid
        self.laid = {}

    def _new_round(self, state: dict[str, Any], round_: int) -> None:
        self.seen_round = round_
        self._clear()

    def _react(self) -> float:
        """One person's reaction and reach, in ms."""
        return max(120.0, self.rng.gauss(*REACTION_MS)) + max(60.0, self.rng.gauss(*REACH_MS))

    def _load(self, state: dict[str, Any], players: Mapping[str, Any], round_: int) -> bool:
        if self.loaded_round == round_:
            return False
        self.loaded_round = round_
        for name, player in players.items():
            if player.get("loaded"):
                continue
            deck = self.decks[name]
            spent = set(player.get("spent", ()))
            left = [c.id for c in deck.cards if c.id not in spent]
            count = min(BULLETS, len(left))
            seat = self._seat(name)
            chosen = self.rng.sample(left, count)
            before = self.before.get(seat, {})
            for _ in range(20):
                # Nobody lays last round's card back on its own slot at once: the mat, which
                # never saw that slot empty, could not tell the new bullet from the old.
                if all(before.get(s) != deck.code(c) for s, c in enumerate(chosen, start=1)):
                    break
                self.rng.shuffle(chosen)
            for slot, card in enumerate(chosen, start=1):
                code = deck.code(card)
                self._lay(seat, slot, code, False)
                self.laid.setdefault(seat, {})[slot] = code
            self.settings.pause(0.2)
        return True

    def _turn(self, seat: int, slot: int) -> None:
        """Chooses a bullet: a touch where the mat has pads, then the card turned face up."""
        if isinstance(self.hands, TouchHands):
            self.hands.touch(seat, slot)
            self.settings.pause(0.3)
        self._flip(seat, slot)

    def _face_down(self, player: Mapping[str, Any]) -> list[int]:
        return [b["slot"] for b in player.get("bullets", []) if not b.get("face_up")]

    def _stare_down(self, state: dict[str, Any], players: Mapping[str, Any]) -> bool:
        turn = state.get("turn")
        names = list(players)
        if turn is None:
            # "Whoever goes first, goes first": the quicker hand
            turn = min(names, key=lambda _: self._react())
        else:
            other = names[1] if turn == names[0] else names[0]
            others = self._face_down(players[other])
            if others and self.rng.random() < self.settings.mistake_rate:
                # the other player turns a bullet out of turn: the table says so, and they
                # turn it back face down
                self.mistakes_made += 1
                self.undo = (self._seat(other), self.rng.choice(others))
                self._flip(*self.undo)
                return True
        touched = players[turn].get("touched")
        choices = self._face_down(players[turn])
        if not choices:
            return False
        self.settings.pause(self.rng.uniform(0.5, 2.0))  # the stare
        slot = touched if touched in choices else self.rng.choice(choices)
        self._turn(self._seat(turn), slot)
        return True

    def _race(self, state: dict[str, Any], players: Mapping[str, Any]) -> bool:
        attacker, defender = state.get("attacker"), state.get("defender")
        if attacker is None or defender is None:
            return False
        seat = self._seat(defender)
        slots = self._face_down(players[defender])
        if not slots:
            return False
        attack_ms = self._react()
        defend_ms = self._react() + 100.0  # the defender reacts to the attacker's reveal
        touch = isinstance(self.hands, TouchHands)
        grab = self.rng.choice(slots)
        if touch:
            # Fingers touch without moving a card: the attacker may reach for the very bullet
            # the defender turns (a split pad tells whose hand was first).
            choice = self.rng.choice(slots)
        else:
            choice = self.rng.choice([s for s in slots if s != grab] or slots)
        first, second = sorted((("a", attack_ms), ("d", defend_ms)), key=lambda x: x[1])
        # The mat times the race with its own clock: at a race people react in human time
        # whatever the speed (`PeopleSettings.react`), or two hands land a few ms apart.
        self.settings.react(first[1] / 1000)
        for who, _ in (first, second):
            if who == "a":
                if touch:
                    assert isinstance(self.hands, TouchHands)
                    self.hands.touch(seat, grab, hand=self._seat(attacker))
                else:
                    # the grab lays the card back as it lay: face up if the defender, quicker,
                    # has just turned it
                    face_up = (seat, grab) in self.up
                    self._lift(seat, grab)
                    self._lay(seat, grab, self.laid[seat][grab], face_up)
            elif defend_ms <= attack_ms or self.rng.random() < 0.5:
                self._turn(seat, choice)
            if who == first[0]:
                self.settings.react((second[1] - first[1]) / 1000)
        return True

    def _defender(self, state: dict[str, Any], players: Mapping[str, Any], reply: bool) -> bool:
        defender = state.get("defender")
        if defender is None:
            return False
        player = players[defender]
        if reply and self.rng.random() < 0.2:
            self.send({"cmd": "pass", "player": defender})
            return True
        touched = player.get("touched")
        slots = self._face_down(player)
        if not slots:
            return False
        slot = touched if touched in slots else self.rng.choice(slots)
        self.settings.pause(self.rng.uniform(0.2, 0.8))
        self._turn(self._seat(defender), slot)
        return True

    def _shoot(self, pending: Mapping[str, Any]) -> bool:
        if pending.get("type") == "reroll" and self.rng.random() < 0.3:
            who = pending.get("who") or [None]
            self.send({"cmd": "keep", "player": who[0]})
            return True
        self.settings.pause(self.rng.uniform(0.5, 1.5))
        self.hands.throw([self.rng.randint(1, 6)])
        return True

    def _discard(self, state: dict[str, Any], players: Mapping[str, Any]) -> bool:
        pending = state.get("pending") or {}
        for name in pending.get("who", []):
            player = players[name]
            revealed = [b["card"].partition("/")[2] for b in player["bullets"] if b.get("face_up")]
            room = max(0, player["cards_left"] - 4)
            count = min((len(revealed) + 1) // 2, room)
            cards = revealed[:count]
            self.send({"cmd": "discard", "player": name, "cards": cards})
        return True

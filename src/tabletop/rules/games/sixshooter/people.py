"""Simulated people at a Six Shooter table: players who act physically and a game master.

The players never send commands: they deal, flip, lift and lay cards and throw the die through
`tabletop.rules.games.game.TableHands` (the simulated mat and camera in `tabletop sim`, or memory in
tests), following what the published game state says, as people at a real table follow the screen.
Sometimes they make a mistake (flip a card that should stay down, lay a card in the wrong slot)
and fix it once the table raises an alert. The game master sends the commands a person would type.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..cards import Card, parse_card, standard_deck
from ..game import TableHands
from .engine import draws_decide_order
from .model import Descriptor, Method
from .players import ARCHETYPES

GATHER_PAUSE_S = 0.8
# Turns of the table's patience a game master waits for a deal to be read before dealing again.
DEAL_WAITS = 4
# Turns of the table's patience a player waits for the card they lifted for a roll to be read.
LIFT_WAITS = 4
# A person notices their own slip after this many more moves, if the table has not said it
# first (it should, within its grace period): the game never waits on a slip nobody sees.
NOTICE_AFTER_STEPS = 8


@dataclass(slots=True)
class Tabletop:
    """Where every physical card is: in a slot, in the deck or on the discard pile."""

    slots: dict[tuple[int, int], tuple[str, bool]] = field(default_factory=dict)
    deck: list[str] = field(default_factory=list)  # top is the last
    discard: list[str] = field(default_factory=list)

    def take_from_deck(self, rng: random.Random) -> str:
        if not self.deck:
            self.deck, self.discard = self.discard, []
            rng.shuffle(self.deck)
        return self.deck.pop()


@dataclass(slots=True)
class Mistake:
    """A mistake made on purpose, and how to undo it."""

    seat: int
    slot: int
    undo: Callable[[], None]
    description: str
    unseen_for: int = 0  # steps the person has not noticed it (the table should say first)


@dataclass(slots=True)
class SixShooterPeople:
    """Players and a game master; `step` does the next thing a person would do, if any."""

    seats: list[str]
    hands: TableHands
    rng: random.Random
    send: Callable[[dict[str, Any]], None]  # a game master's command, to the rules daemon
    mistake_rate: float = 0.02
    pause: Callable[[float], None] = lambda seconds: None  # time passing at a real table
    adventures_per_game: int = 2
    challenges_per_adventure: int = 12
    table: Tabletop = field(default_factory=Tabletop)
    mistakes: list[Mistake] = field(default_factory=list)
    mistakes_made: int = 0
    mistakes_caught: int = 0  # undone because the table raised an alert
    gm_waiting: bool = False  # a game master's command is out; wait for the state to move
    _last_state: dict[str, Any] | None = None
    _challenges: int = 0
    _adventures: int = 0
    _dealing: bool = False
    _deal_waits: int = 0  # turns waited for the table to read the last deal
    # The card last lifted for a roll (its owner, slot and code) until the state shows it
    # gone, and the turns waited for that: a person who has lifted a card for their roll
    # waits for the table to read it (an unplugged mat) rather than lift a second one.
    _lifted: tuple[str, int, str] | None = None
    _lift_waits: int = 0

    # -- the game master -------------------------------------------------------------------

    def start_game(self, seed: int) -> None:
        """Gathers the cards, announces a game, then lays out the deal the daemon waits for."""
        self._gather()
        lucky = self.rng.sample(range(2, 11), len(self.seats))
        self.send(
            {
                "cmd": "new_game",
                "players": [
                    {
                        "name": name,
                        "descriptor": self.rng.choice(list(Descriptor)).value,
                        "archetype": ARCHETYPES[i % len(ARCHETYPES)],
                        "lucky": [lucky[i]],
                    }
                    for i, name in enumerate(self.seats)
                ],
                "seed": seed,
            }
        )
        self._adventures = 1
        self._challenges = 0
        self._deal(self.seats)

    def _gather(self) -> None:
        """Takes every card off the mat, and waits for the mat to see the table empty (a game
        master gathers the cards before announcing the next deal)."""
        self.mistakes.clear()  # a slip still on the table is gathered with the cards
        self._lifted, self._lift_waits = None, 0  # ... and a card lifted for a roll
        for zone in list(self.table.slots):
            self.hands.lift(*zone)
            del self.table.slots[zone]
        self.pause(GATHER_PAUSE_S)

    def _deal(self, names: list[str]) -> None:
        self.table.deck = [card.code for card in standard_deck(jokers=False)]
        self.table.discard = []
        self.rng.shuffle(self.table.deck)
        for slot in range(1, 7):
            for name in names:
                seat = self.seats.index(name)
                card = self.table.deck.pop()
                self.table.slots[(seat, slot)] = (card, False)
                self.hands.lay(seat, slot, card, False)

    def _game_master(self, state: dict[str, Any]) -> None:
        phase = state["phase"]
        active = [p for p in state["players"] if p["status"] == "active"]
        if phase == "between_adventures":
            self._between_adventures(state)
            return
        if phase != "play":
            return
        if not active or self._challenges >= self.challenges_per_adventure:
            self.send({"cmd": "end_adventure"})
            return
        self._challenges += 1
        player = self.rng.choice(active)
        roll = self.rng.random()
        if roll < 0.05 and len(active) >= 2:
            names = [p["name"] for p in self.rng.sample(active, 2)]
            self.send({"cmd": "turn_order", "players": names})
            self._draw_for_turn_order(names)
            return
        if roll < 0.12 and len(active) >= 2:
            a, b = self.rng.sample(active, 2)
            method = self.rng.choice(list(Method)).value
            self.send({"cmd": "contest", "players": [a["name"], b["name"]], "method": method})
            return
        command: dict[str, Any] = {
            "cmd": "challenge",
            "player": player["name"],
            "method": self.rng.choice(list(Method)).value,
            "critical": self.rng.randint(1, 6),
        }
        if self.rng.random() < 0.1 and player["strikes"] < 3:
            command["wager"] = self.rng.randint(1, 3 - player["strikes"])
        self.send(command)

    def _between_adventures(self, state: dict[str, Any]) -> None:
        pending = state.get("pending")
        if pending and pending["type"] == "return_or_retire":
            name = pending["players"][0]
            lucky = next(p["lucky"] for p in state["players"] if p["name"] == name)
            if lucky and self.rng.random() < 0.7:
                self.send({"cmd": "return", "player": name, "drop_lucky": self.rng.choice(lucky)})
            else:
                self.send({"cmd": "retire", "player": name})
            return
        if self._dealing:
            # The adventure asked for still waits for its deal, and the state has not moved: a
            # busy mat reads late. Ending the game here, as the count of adventures says, made
            # the late deal a move in a finished game; dealing again at once never let a slow
            # mat finish reading. So wait a few turns of the table's patience, then deal again
            # (a card dealt where the same card lay, its lift unseen, is never read as dealt).
            self._deal_waits += 1
            if self._deal_waits < DEAL_WAITS:
                self.gm_waiting = False  # nothing was sent, so no reply will come
                return
            self._start_adventure(state)
            return
        if self._adventures >= self.adventures_per_game:
            self.send({"cmd": "end_game"})
            return
        self._adventures += 1
        self._challenges = 0
        self._start_adventure(state)

    def _start_adventure(self, state: dict[str, Any]) -> None:
        """Gathers the cards, asks for the next adventure and deals it to those who play it."""
        self._deal_waits = 0
        self._gather()
        self.send({"cmd": "start_adventure"})
        coming = [
            p["name"]
            for p in state["players"]
            if p["status"] == "active" or (p["status"] == "removed")
        ]
        self._dealing = True
        self._deal([name for name in self.seats if name in coming])

    def _draw_for_turn_order(self, names: list[str]) -> None:
        """Players lay cards from the deck on the draw pad until they settle the order (each
        draws once, tied players draw again), by the engine's own rule."""
        drawn: list[Card] = []
        while not draws_decide_order(names, drawn, ace_high=True):
            card = self.table.take_from_deck(self.rng)
            self.hands.lay_on_pad(card)
            self.table.discard.append(card)
            drawn.append(parse_card(card))

    def replied(self, ok: bool) -> None:
        """The rules daemon answered the game master's command: act again (a refused command
        leaves the state as it was, so waiting for it to move would wait forever)."""
        self.gm_waiting = False

    # -- the players -------------------------------------------------------------------------

    def step(
        self,
        state: dict[str, Any] | None,
        prompt: dict[str, Any] | None,
        alerts: dict[str, str],
    ) -> bool:
        """Does the next physical thing the table needs; False when there is nothing to do.
        (Six Shooter's people read what they need from the state's `pending`.)"""
        # The table named a slot the players slipped on: they put it right.
        named = [m for m in self.mistakes if f"s{m.seat + 1}.{m.slot}" in alerts]
        if named:
            mistake = named[-1]
            self.mistakes.remove(mistake)
            self.mistakes_caught += 1
            mistake.undo()
            return True
        if state is None or state["phase"] in (None, "finished"):
            return False
        if state != self._last_state:
            self._last_state = state
            self.gm_waiting = False
        if self._put_right(state, alerts):
            return True
        if self._follow_the_rules(state):
            return True
        pending = state.get("pending")
        if pending is None:
            if self.gm_waiting:
                return False
            self.gm_waiting = True
            self._game_master(state)
            return True
        if pending["type"] == "reveal":
            name = pending["players"][0]
            seat = self.seats.index(name)
            slot = self.rng.randint(1, 6)
            self._flip(seat, slot)
            return True
        if pending["type"] == "roll":
            return self._roll(state, pending)
        if pending["type"] == "lucky":
            seat = self.seats.index(pending["player"])
            card = self.table.take_from_deck(self.rng)
            self.table.slots[(seat, pending["slot"])] = (card, True)
            self.hands.lay(seat, pending["slot"], card, True)
            return True
        if pending["type"] == "return_or_retire" and not self.gm_waiting:
            self.gm_waiting = True
            self._between_adventures(state)
            return True
        return False

    def _roll(self, state: dict[str, Any], pending: dict[str, Any]) -> bool:
        name = pending["player"]
        if self._lifted is not None:
            owner, slot, code = self._lifted
            unread = any(
                p["name"] == owner and p["slots"][slot - 1]["card"] == code
                for p in state["players"]
            )
            if unread and self._lift_waits < LIFT_WAITS:
                self._lift_waits += 1
                return True  # a turn of the table's patience, waiting for the lift
            self._lifted, self._lift_waits = None, 0
            if unread:
                # The table never took the card: it goes back where it lay, and the roll goes
                # on as if it had not been lifted (a lift read after the roll is refused).
                self._put_back(owner, slot, code)
                return True
        if (
            pending["purpose"] == "challenge"
            and not pending.get("boosted")
            and self.rng.random() < 0.3
            and self._lift_a_useful_card(state, name, pending["method"])
        ):
            return True
        if self.rng.random() < self.mistake_rate:
            self._make_a_mistake(state)
            return True
        self.hands.throw([self.rng.randint(1, 6)])
        return True

    def _lift_a_useful_card(self, state: dict[str, Any], name: str, method: str) -> bool:
        """The player (or a helper) lifts a face-up card the rules let them use on this roll."""
        wanted = Method(method)
        me = next(p for p in state["players"] if p["name"] == name)
        candidates = []
        for owner in state["players"]:
            if owner["status"] != "active":
                continue
            descriptor = Descriptor(owner["descriptor"])
            seat = self.seats.index(owner["name"]) if owner["name"] in self.seats else None
            for slot, view in enumerate(owner["slots"], start=1):
                code = view["card"]
                if view["state"] != "face_up" or code is None or code.startswith("JK"):
                    continue
                lying = None if seat is None else self.table.slots.get((seat, slot))
                if lying is None or lying[0] != code:
                    # The state still shows a card their hands already took (a mat that has
                    # not read the lift yet, unplugged say), or one the table has since
                    # changed: a person judges the card they see lying there, and lifts only
                    # one the screen agrees on (found by the soak, seed 653160).
                    continue
                suit = code[-1]
                if owner is me:
                    usable = (
                        suit == wanted.suit.value or Descriptor(me["descriptor"]).method is wanted
                    )
                else:
                    usable = suit == descriptor.suit.value == wanted.suit.value
                if usable:
                    candidates.append((owner["name"], slot))
        if not candidates:
            return False
        owner_name, slot = self.rng.choice(candidates)
        seat = self.seats.index(owner_name)
        self._lifted = (owner_name, slot, self.table.slots[(seat, slot)][0])
        self._discard(seat, slot)
        return True

    def _follow_the_rules(self, state: dict[str, Any]) -> bool:
        """Makes the mat match the published hands (a flip or a discard the rules made)."""
        if self._dealing:
            if state["phase"] != "setup":
                return False
            self._dealing = False
        for mistake in self.mistakes:
            mistake.unseen_for += 1
        unseen = {(m.seat, m.slot) for m in self.mistakes if m.unseen_for <= NOTICE_AFTER_STEPS}
        for player in state["players"]:
            if player["name"] not in self.seats:
                continue
            seat = self.seats.index(player["name"])
            for slot, view in enumerate(player["slots"], start=1):
                if (seat, slot) in unseen:
                    continue  # a person does not see their own slip: the table must say it
                # Whatever is put right here, a slip noticed at last is put right with it.
                self.mistakes = [m for m in self.mistakes if (m.seat, m.slot) != (seat, slot)]
                here = self.table.slots.get((seat, slot))
                if view["card"] is None and here is not None:
                    self._discard(seat, slot)
                    return True
                if view["card"] is not None and here is not None and view["card"] == here[0]:
                    up = view["state"] == "face_up"
                    if up != here[1]:
                        self._flip(seat, slot)
                        return True
        return False

    def _put_right(self, state: dict[str, Any], alerts: dict[str, str]) -> bool:
        """A slot the table names (its alert) that holds another card than the state's gets
        the state's card: the game master reads "put its own card back" and does (a deal read
        late, after the cards were dealt again, left every slot so: the soak, seed 842951)."""
        if self._dealing and state["phase"] != "setup":
            return False  # the state is the last adventure's: the new deal is still unread
        for player in state["players"]:
            if player["name"] not in self.seats:
                continue
            seat = self.seats.index(player["name"])
            for slot, view in enumerate(player["slots"], start=1):
                card = view["card"]
                if f"s{seat + 1}.{slot}" not in alerts or card is None:
                    continue
                here = self.table.slots.get((seat, slot))
                if here is not None and here[0] == card:
                    continue  # the right card, turned wrong: the rules' own flips see to it
                if self._lifted is not None and self._lifted[:2] == (player["name"], slot):
                    continue  # lifted for a roll, not read yet
                self._take(card)
                if here is not None:
                    self._discard(seat, slot)
                up = view["state"] == "face_up"
                self.table.slots[(seat, slot)] = (card, up)
                self.hands.lay(seat, slot, card, up)
                return True
        return False

    def _take(self, card: str) -> None:
        """Takes a card in hand from wherever it is: the deck, the discard or another slot."""
        for pile in (self.table.deck, self.table.discard):
            if card in pile:
                pile.remove(card)
                return
        for zone, (lying, _) in list(self.table.slots.items()):
            if lying == card:
                del self.table.slots[zone]
                self.hands.lift(*zone)
                return

    def _flip(self, seat: int, slot: int) -> None:
        card, up = self.table.slots[(seat, slot)]
        self.table.slots[(seat, slot)] = (card, not up)
        self.hands.flip(seat, slot)

    def _put_back(self, owner: str, slot: int, card: str) -> None:
        """Lays a card lifted for a roll back where it lay, face-up."""
        seat = self.seats.index(owner)
        if card in self.table.discard:
            self.table.discard.remove(card)
        self.table.slots[(seat, slot)] = (card, True)
        self.hands.lay(seat, slot, card, True)

    def _discard(self, seat: int, slot: int) -> None:
        card, _ = self.table.slots.pop((seat, slot))
        self.table.discard.append(card)
        self.hands.lift(seat, slot)

    def _make_a_mistake(self, state: dict[str, Any]) -> None:
        """Flips a face-down card that should stay down; flips it back after the alert."""
        face_down = [zone for zone, (_, up) in self.table.slots.items() if not up]
        if not face_down:
            self.hands.throw([self.rng.randint(1, 6)])
            return
        seat, slot = self.rng.choice(face_down)
        self._flip(seat, slot)
        self.mistakes_made += 1
        self.mistakes.append(
            Mistake(
                seat,
                slot,
                lambda: self._flip_back(seat, slot),
                f"flipped seat {seat + 1} slot {slot}",
            )
        )

    def _flip_back(self, seat: int, slot: int) -> None:
        """Puts a slip right: the card turned back, if it still lies there (the rules may have
        had it discarded meanwhile)."""
        if (seat, slot) in self.table.slots:
            self._flip(seat, slot)

"""Hidden information by design (issue 14, item 4): a display reads every public topic of a whole
game, for every registered game, played to the end through the real daemon over MQTT, and finds
no face-down card or other secret in any payload.

The secrets are worked out from the game itself, played beside the daemon on a local engine:
whatever the referee's view, the referee's event words or the referee's prompt held at some point
and the public ones never showed. Six Shooter adds what its text hides by name: the cards that
stayed face-down or in the deck the whole game, and the Critical Numbers ("You don't have to tell
your players the exact Critical Numbers"), hidden unless the game master chose otherwise.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from daemon_helpers import DaemonThread, Mosquitto, client, pump_until, wait_until
from paho.mqtt.enums import CallbackAPIVersion

from tabletop.rules import games
from tabletop.rules.games.errors import RulesError
from tabletop.rules.games.game import GameRules
from tabletop.wire.roles import Role, User

CARD = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b|\bJK[12]\b")
# A game deck's card code (Six-Gun Showdown's `cowboy/draw-1`): `cowboy/draw-14` is another card.
DECK_CODE = re.compile(r"[a-z0-9-]+/[a-z0-9-]+")
# Seeds whose random games are short but full: Six Shooter's has challenges, Lucky Numbers and
# the end of an adventure. A game that has not ended after MAX_COMMANDS is ended by the game
# master (Steamfunkateers' random players never end one by themselves).
SEEDS = {"sixshooter": 2, "ossix": 9, "steamfunkateers": 3, "showdown": 1, "highroll": 1}
MAX_COMMANDS = 120


pytestmark = pytest.mark.usefixtures("high_roll")


def leaves(value: object) -> Iterator[str]:
    """Every string in a JSON value (keys are names, not content)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from leaves(item)


class Display:
    """A client with a display's rights: it subscribes to exactly what the viewer role reads."""

    def __init__(self, broker: Mosquitto, table: str) -> None:
        self.filters = User("display", Role.VIEWER, (table,)).filters("read")
        self.client = paho.Client(
            CallbackAPIVersion.VERSION2, client_id=f"display-{uuid.uuid4().hex[:8]}"
        )
        self.port = broker.port
        self.received: list[tuple[str, bytes]] = []

    def start(self) -> None:
        self.client.on_message = lambda c, u, m: self.received.append((m.topic, m.payload))
        self.client.connect("127.0.0.1", self.port)
        self.client.loop_start()
        for topic_filter in self.filters:
            self.client.subscribe(topic_filter, qos=1)

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()

    def payloads(self) -> list[tuple[str, list[str]]]:
        """Each payload received: its topic and the strings in it."""
        out = []
        for topic, raw in list(self.received):
            try:
                strings = list(leaves(json.loads(raw)))
            except ValueError:
                strings = [raw.decode("utf-8", errors="replace")]
            out.append((topic.rsplit("/", 2)[-2] + "/" + topic.rsplit("/", 1)[-1], strings))
        return out


class Secrets:
    """What a game's views hide, gathered state by state while the game is played."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.hidden: set[str] = set()
        self.shown: set[str] = set()
        self.always_hidden_cards: set[str] | None = None
        self.critical_numbers = 0

    def observe(self, state: Any, events: Iterable[Any]) -> None:
        rules = self.rules
        self.hidden |= set(leaves(rules.referee_view(state)))
        self.shown |= set(leaves(rules.public_view(state)))
        self.hidden.add(rules.waiting(state).words)
        self.shown.add(rules.public_waiting(state).words)
        for event in events:
            self.hidden.add(rules.describe_event(event))
            self.shown |= set(leaves(rules.public_event(event, state)))
            self.critical_numbers += len(
                re.findall(r"Critical Number \d", rules.describe_event(event))
            )
        if rules.name == "sixshooter" and state.phase is not None:
            cards = {card.code for card in state.deck} | {
                slot.card.code
                for operator in state.operators.values()
                for slot in operator.slots
                if slot.card is not None and slot.state.value == "face_down"
            }
            previous = self.always_hidden_cards
            self.always_hidden_cards = cards if previous is None else previous & cards

    def never_shown(self) -> set[str]:
        """Strings the referee saw and no public view, event or prompt ever showed.

        A deck card shown as `deck/id` (Six-Gun Showdown) shows its bare `id` too."""
        shown = self.shown | {text.split("/", 1)[1] for text in self.shown if "/" in text}
        return self.hidden - shown

    def cards(self) -> set[str]:
        return self.always_hidden_cards or set()


def play(rules: GameRules, seed: int) -> list[dict[str, Any]]:
    """A whole random game (ended by the game master if it runs long), legal commands only."""
    rng = random.Random(seed)
    engine = rules.new_engine()
    commands: list[dict[str, Any]] = []
    while len(commands) < MAX_COMMANDS:
        command = rules.random_command(engine.state, rng)
        if command is None:
            break
        try:
            events = engine.execute(command)
        except RulesError:
            continue  # the random player tried something the rules refuse: it is not sent
        commands.append(as_seen_at_the_table(rules, command, events))
        if rules.is_over(engine.state):
            return commands
    commands.append({"cmd": "end_game"})
    return commands


def as_seen_at_the_table(
    rules: GameRules, command: dict[str, Any], events: Iterable[Any]
) -> dict[str, Any]:
    """A Six Shooter game master's command with the cards the mat would have seen (the deck
    laid out, the hands dealt, the turn-order draws): a physical table's daemon otherwise waits
    for them on the mat, and this test has no mat."""
    if rules.name != "sixshooter":
        return command
    named = [(type(event).__name__, event) for event in events]
    if command["cmd"] == "new_game" and "deck" not in command and "hands" not in command:
        deck = next(event.deck for kind, event in named if kind == "GameStarted")
        return {**command, "deck": [card.code for card in deck]}
    if command["cmd"] == "start_adventure" and "hands" not in command:
        dealt = next(event.hands for kind, event in named if kind == "CardsDealt")
        return {**command, "hands": {name: [c.code for c in cards] for name, cards in dealt}}
    if command["cmd"] == "turn_order" and "draws" not in command:
        drawn = [event.card.code for kind, event in named if kind == "TurnOrderDrawn"]
        return {**command, "draws": drawn}
    return command


def seated(new_game: Mapping[str, Any]) -> list[str]:
    return [p["name"] if isinstance(p, Mapping) else p for p in new_game["players"]]


def hides(secret: str, text: str) -> bool:
    """True if `text` shows `secret`: a card by its code, any other secret word for word."""
    if CARD.fullmatch(secret) or DECK_CODE.fullmatch(secret):
        return re.search(rf"(?<![\w]){re.escape(secret)}(?![\w])", text) is not None
    return secret in text


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_no_public_payload_of_a_whole_game_holds_a_secret(
    mosquitto: Mosquitto, table: str, db: Path, name: str
) -> None:
    assert sorted(SEEDS) == sorted({*games.names(), "highroll"}), "every registered game"
    rules = games.get(name)
    commands = play(rules, SEEDS[name])
    display = Display(mosquitto, table)
    display.start()
    daemon = DaemonThread(mosquitto.url, table, db, seats=seated(commands[0]), grace=0.3, game=name)
    daemon.start()
    mirror = rules.new_engine()
    secrets = Secrets(rules)
    try:
        with client(mosquitto.url, table) as gm:
            for command in commands:
                reply = gm.send(command)
                assert reply["ok"], json.dumps([command, reply])
                events = mirror.execute(command)
                secrets.observe(mirror.state, events)
            assert rules.is_over(mirror.state)
            final = {**rules.public_view(mirror.state), "refused": 0}
            state_topic = gm.topics.state

            def final_state_read() -> bool:
                last = [raw for topic, raw in display.received if topic == state_topic]
                if not last:
                    return False
                # The public view, stamped with the command it reflects and its prompt's.
                body = json.loads(last[-1])
                stamps = body.pop("seq", None), body.pop("prompt_seq", None)
                return body == final and all(isinstance(s, int) for s in stamps)

            wait_until(final_state_read, 10, "the display to read the game's last state")
            expected = {**rules.referee_view(mirror.state), "rejected": []}
            pump_until(gm, lambda: gm.state() == expected, 10, "the daemon's game to match")
    finally:
        daemon.stop()
        display.stop()

    payloads = display.payloads()
    read = {topic for topic, _ in payloads}
    assert {"game/state", "game/event", "game/prompt", "leds/frame"} <= read, read
    assert not any(topic.startswith(("seat/", "referee/")) for topic in read)
    found = [
        (topic, secret, text)
        for topic, strings in payloads
        for text in strings
        for secret in secrets.never_shown()
        if hides(secret, text)
    ]
    assert found == []
    if name != "sixshooter":
        return
    cards = secrets.cards()
    assert cards, "cards stayed face-down or in the deck all game: there is something to find"
    named = [(t, s) for t, strings in payloads for s in strings if set(CARD.findall(s)) & cards]
    assert named == []
    # "You don't have to tell your players the exact Critical Numbers": hidden by default.
    assert secrets.critical_numbers > 0, "the game master's words gave Critical Numbers"
    everything = "\n".join(s for _, strings in payloads for s in strings)
    assert "attempts a" in everything, "challenges were announced publicly"
    assert not re.search(r"Critical Number \d", everything)
    assert not any(
        '"critical"' in raw.decode() for topic, raw in display.received if "game/" in topic
    )

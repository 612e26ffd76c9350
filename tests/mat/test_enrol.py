"""Card enrolment: the state machine, the card map file, and a run against the simulated mat."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop.hardware.mat import MatDriver, MatLayout
from tabletop.hardware.mat.cardmap import Calibration, CardMap, default_card_map, simulated_deck
from tabletop.hardware.mat.enrol import Enrolment, Step
from tabletop.hardware.mat.errors import CardMapError, DuplicateUidError
from tabletop.hardware.mat.events import CardEvent, EventKind
from tabletop.hardware.mat.protocol import Face
from tabletop.hardware.mat.sim import SimulatedMat, sim_card_levels
from tabletop.rules.games.cards import Card, DeckCard, parse_card, parse_tagged, standard_deck
from tabletop.rules.games.showdown.decks import enrolment_codes, load_deck

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "decks"
TABLETOP = [sys.executable, "-m", "tabletop"]

UID_1 = "04000000000001"
UID_2 = "04000000000002"


def on_pad(kind: EventKind, uid: str, level: int, card: str | None = None) -> CardEvent:
    return CardEvent(kind, "pad", uid, Face.DOWN, parse_card(card) if card else None, level)


def test_the_walk_measures_the_back_then_asks_for_each_card_in_order() -> None:
    deck = [parse_card("AS"), parse_card("2S")]
    enrolment = Enrolment(deck, CardMap())
    assert "FACE UP" in enrolment.prompt()
    assert enrolment.handle(on_pad(EventKind.UNKNOWN_CARD, UID_1, 11000))[-1].startswith("Take")
    assert enrolment.handle(on_pad(EventKind.REMOVED, UID_1, 0)) == [
        "Lay AS FACE DOWN on the draw pad (2 to go)."
    ]
    lines = enrolment.handle(on_pad(EventKind.UNKNOWN_CARD, UID_1, 46000))
    assert lines[0] == f"AS = tag {UID_1}."
    enrolment.handle(on_pad(EventKind.REMOVED, UID_1, 0))
    assert enrolment.prompt() == "Lay 2S FACE DOWN on the draw pad (1 to go)."
    enrolment.handle(on_pad(EventKind.UNKNOWN_CARD, UID_2, 47000))
    enrolment.handle(on_pad(EventKind.REMOVED, UID_2, 0))
    assert enrolment.step is Step.DONE
    assert {uid: c.code for uid, c in enrolment.cards.cards.items()} == {UID_1: "AS", UID_2: "2S"}
    calibration, verdict = enrolment.calibration()
    assert calibration is not None and calibration.threshold == (11000 + 46000) // 2
    assert verdict.startswith("Face sensor calibrated")


def test_a_tag_already_enrolled_is_refused_and_the_same_card_asked_again() -> None:
    cards = CardMap({UID_1: parse_card("AS")})
    enrolment = Enrolment([parse_card("AS"), parse_card("2S")], cards)
    enrolment.step = Step.LAY_CARD
    lines = enrolment.handle(on_pad(EventKind.PLACED, UID_1, 46000, "AS"))
    assert lines[0].startswith(f"Refused: tag {UID_1} is already enrolled as AS")
    enrolment.handle(on_pad(EventKind.REMOVED, UID_1, 0, "AS"))
    assert enrolment.prompt().startswith("Lay 2S")  # AS was already in the map
    assert len(cards.cards) == 1


def test_ask_mode_takes_the_code_a_person_types() -> None:
    enrolment = Enrolment(list(standard_deck(jokers=False)), CardMap(), ask=True)
    enrolment.step = Step.LAY_CARD
    assert enrolment.handle(on_pad(EventKind.UNKNOWN_CARD, UID_1, 40000)) == [
        "Which card is it? Type its code (QS, 10H, JK1):"
    ]
    assert "not a card code" in enrolment.answer("ZZ")[0]
    assert enrolment.answer("qh")[0] == f"QH = tag {UID_1}."
    assert enrolment.cards.cards[UID_1].code == "QH"


def test_backs_like_faces_give_a_warning() -> None:
    enrolment = Enrolment([parse_card("AS")], CardMap())
    enrolment.back_level = 30000
    enrolment.face_levels = [32000]
    calibration, verdict = enrolment.calibration()
    assert calibration is not None and verdict.startswith("Warning: backs (30000)")


def test_the_card_map_file_round_trips_and_refuses_duplicates(tmp_path: Path) -> None:
    cards = CardMap(deck="standard")
    cards.add("04:00:00:00:00:00:01", parse_card("QS"))
    with pytest.raises(DuplicateUidError, match=f"tag {UID_1} is already enrolled as QS"):
        cards.add(UID_1.lower(), parse_card("KS"))
    cards.calibration = Calibration.from_levels(11000, [40000, 46000])
    path = tmp_path / "deck.json"
    cards.save(path)
    loaded = CardMap.load(path)
    assert loaded.cards == cards.cards and loaded.calibration == cards.calibration
    assert json.loads(path.read_text())["cards"] == {UID_1: "QS"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "line 1"),
        ('{"format": "x"}', "not a card map"),
        ('{"format": "tabletop-card-map", "version": 9, "cards": {}}', "version 9"),
        ('{"format": "tabletop-card-map", "version": 1, "cards": {"0400": "QS"}}', "2 bytes"),
        (
            '{"format": "tabletop-card-map", "version": 1, "cards": {"04000000000001": "QX"}}',
            r"cards\[04000000000001\]: 'QX' is not a card code",
        ),
        (
            '{"format": "tabletop-card-map", "version": 1, "cards": {}, "calibration": {}}',
            "calibration: missing",
        ),
    ],
)
def test_a_bad_card_map_file_is_refused_naming_file_and_key(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CardMapError, match=message):
        CardMap.load(path)


def test_the_bundled_simulated_deck_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLETOP_CARDS", raising=False)
    deck = default_card_map()
    playing = {c.code for c in deck.cards.values() if isinstance(c, Card)}
    assert playing == {c.code for c in standard_deck(jokers=True)}
    # ... and the example Showdown decks, card for card, each tag knowing its deck
    for name in ("cowboy", "desperado"):
        codes = enrolment_codes(load_deck(EXAMPLES / f"{name}.toml"))
        assert all(deck.uid_for(parse_tagged(code)) is not None for code in codes)
        assert {deck.deck_of(uid) for uid, c in deck.cards.items() if c.code in codes} == {name}
    assert len(deck.cards) == 54 + 32
    # Its calibration is what enrolling the simulated deck would measure.
    levels = [sim_card_levels(card, uid) for uid, card in deck.cards.items()]
    assert deck.calibration == Calibration.from_levels(levels[0][0], [f for _, f in levels])


def test_enrolling_three_cards_on_the_simulated_mat(tmp_path: Path) -> None:
    """A person follows the prompts on a simulated mat whose tags nobody has enrolled."""
    mat = SimulatedMat(MatLayout(1, 2, True), link_dir=str(tmp_path))
    cards = CardMap()
    deck = [parse_card(code) for code in ("AH", "KC", "JK2")]
    enrolment = Enrolment(deck, cards)
    driver = MatDriver(mat.start(), cards)
    driver.start()
    said: list[str] = []
    try:
        deadline = time.monotonic() + 15
        while enrolment.step is not Step.DONE and time.monotonic() < deadline:
            event = driver.get_event(0.1)
            if event is None:
                continue
            lines = enrolment.handle(event)
            said += lines
            for line in lines:  # the person does what the last line asks
                if "FACE UP" in line:
                    mat.place("pad", "QD", "up")
                elif line.startswith("Take"):
                    mat.remove("pad")
                elif line.startswith("Lay ") and enrolment.next_card is not None:
                    mat.place("pad", enrolment.next_card.code, "down")
    finally:
        driver.close()
        mat.stop()
    assert enrolment.step is Step.DONE, said
    sim_deck = simulated_deck()
    assert {uid: c.code for uid, c in cards.cards.items()} == {
        sim_deck.uid_for(card): card.code for card in deck
    }
    calibration, verdict = enrolment.calibration()
    assert calibration is not None and calibration.face_brighter
    assert 11000 < calibration.threshold < 36000, verdict


def test_enrol_command_refuses_a_missing_port_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabletop",
            "cards",
            "enrol",
            "--port",
            str(tmp_path / "none"),
            "--out",
            str(tmp_path / "cards.json"),
        ],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("tabletop cards: cannot open")


def enrol_on_the_simulated_mat(tmp_path: Path, options: list[str], face_up: str) -> list[str]:
    """Runs `tabletop cards enrol OPTIONS` against `tabletop mat sim`, a person answering
    every prompt (`face_up`: the card shown face up to calibrate the face sensor); what it said."""
    with subprocess.Popen(
        [*TABLETOP, "mat", "sim", "--seats", "1", "--dir", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as sim:
        assert sim.stdin is not None and sim.stdout is not None
        path = sim.stdout.readline().strip()

        def person(command: str) -> None:
            assert sim.stdin is not None and sim.stdout is not None
            sim.stdin.write(command + "\n")
            sim.stdin.flush()
            assert sim.stdout.readline().startswith("ok"), command

        with subprocess.Popen(
            [*TABLETOP, "cards", "enrol", "--port", path, *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as enrol:
            assert enrol.stdout is not None
            said = []
            for line in enrol.stdout:
                said.append(line.rstrip())
                if "FACE UP" in line:
                    person(f"place pad {face_up} up")
                elif line.startswith("Take"):
                    person("remove pad")
                elif line.startswith("Lay "):
                    person(f"place pad {line.split()[1]} down")
            enrol.wait(timeout=10)
        assert enrol.returncode == 0, said
        sim.stdin.write("quit\n")
        sim.stdin.flush()
    return said


def test_enrol_command_walks_a_person_through_on_the_simulated_mat(tmp_path: Path) -> None:
    """`tabletop cards enrol` against `tabletop mat sim`: a person answers every prompt."""
    out = tmp_path / "deck.json"
    said = enrol_on_the_simulated_mat(tmp_path, ["--out", str(out), "--limit", "2"], "9H")
    assert said[-1].startswith(f"Wrote 2 card(s) to {out}")
    assert any(line.startswith("Face sensor calibrated: backs at 1") for line in said), said
    written = CardMap.load(out)
    assert sorted(c.code for c in written.cards.values()) == ["2C", "AC"]
    assert written.calibration is not None


# ---- game decks: `deck/id` cards in a version 2 map --------------------------------------


def test_a_map_with_deck_cards_is_version_2_and_keeps_each_tags_deck(tmp_path: Path) -> None:
    cards = CardMap(deck="six-gun-showdown", decks={"cowboy": "cowboy.toml"})
    cards.add(UID_1, parse_tagged("cowboy/draw-1"))
    cards.add(UID_2, parse_card("QS"))
    cards.save(tmp_path / "cards.json")
    raw = json.loads((tmp_path / "cards.json").read_text())
    assert raw["version"] == 2
    assert raw["decks"] == {"cowboy": "cowboy.toml"}
    assert raw["cards"] == {UID_1: "cowboy/draw-1", UID_2: "QS"}
    again = CardMap.load(tmp_path / "cards.json")
    assert again.cards[UID_1] == DeckCard("cowboy", "draw-1")
    assert again.deck_of(UID_1) == "cowboy" and again.deck_of(UID_2) is None
    assert again.decks == {"cowboy": "cowboy.toml"}


def test_a_map_of_playing_cards_only_is_still_written_as_version_1(tmp_path: Path) -> None:
    cards = CardMap()
    cards.add(UID_1, parse_card("QS"))
    cards.save(tmp_path / "cards.json")
    raw = json.loads((tmp_path / "cards.json").read_text())
    assert raw["version"] == 1 and "decks" not in raw


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"format": "tabletop-card-map", "version": 1, "cards": '
            '{"04000000000001": "cowboy/draw-1"}}',
            r"cards\[04000000000001\]: cowboy/draw-1 is a deck card; a version 1 map",
        ),
        (
            '{"format": "tabletop-card-map", "version": 2, "cards": '
            '{"04000000000001": "Cowboy/Draw 1"}}',
            r"cards\[04000000000001\]: 'Cowboy/Draw 1' is not a deck card code",
        ),
        (
            '{"format": "tabletop-card-map", "version": 2, "decks": ["cowboy"], "cards": {}}',
            '"decks" must be an object',
        ),
        ('{"format": "tabletop-card-map", "version": 3, "cards": {}}', "version 3; this program"),
    ],
)
def test_a_bad_version_2_map_is_refused_naming_the_key(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CardMapError, match=message):
        CardMap.load(path)


def test_a_map_is_checked_against_its_deck_files_naming_the_uid() -> None:
    cards = CardMap(decks={"cowboy": "cowboy.toml"}, source="cards.json")
    cards.add(UID_1, parse_tagged("cowboy/draw-1"))
    cards.add(UID_2, parse_tagged("cowboy/draw-99"))
    cards.add("04000000000003", parse_tagged("desperado/draw-1"))
    files = {"cowboy.toml": {"draw-1", "draw-2"}}
    problems = cards.check_decks(lambda path: files[path])
    assert problems == [
        f"cards.json: cards[{UID_2}]: cowboy/draw-99: cowboy.toml has no card 'draw-99'",
        'cards.json: cards[04000000000003]: desperado/draw-1: no deck file for "desperado" '
        'in "decks"',
    ]


def test_the_bundled_map_agrees_with_the_example_deck_files() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tabletop", "cards", "check", str(_bundled_map())],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("86 card(s), 2 deck file(s), 0 problem(s)")


def _bundled_map() -> Path:
    return (
        Path(__file__).resolve().parents[2]
        / "src"
        / "tabletop"
        / "hardware"
        / "mat"
        / "data"
        / "sim-deck.json"
    )


def test_asking_for_a_game_decks_card_takes_its_id_and_refuses_another_deck() -> None:
    deck = [parse_tagged("cowboy/draw-1"), parse_tagged("cowboy/focus-1")]
    enrolment = Enrolment(deck, CardMap(), ask=True)
    enrolment.handle(on_pad(EventKind.UNKNOWN_CARD, UID_1, 11000))
    enrolment.handle(on_pad(EventKind.REMOVED, UID_1, 0))
    enrolment.handle(on_pad(EventKind.UNKNOWN_CARD, UID_1, 40000))
    assert "id in the cowboy deck file" in enrolment.prompt()
    assert enrolment.answer("desperado/draw-1")[0] == (
        "desperado/draw-1 is not a card of the deck being enrolled."
    )
    assert enrolment.answer("focus-1")[0] == f"cowboy/focus-1 = tag {UID_1}."
    assert enrolment.cards.cards[UID_1] == DeckCard("cowboy", "focus-1")


def test_enrol_command_walks_through_a_deck_file_on_the_simulated_mat(tmp_path: Path) -> None:
    """`tabletop cards enrol --deck cowboy.toml`: the cards in the file's order, as deck/id;
    the map names the deck file, and `tabletop cards check` finds it whole."""
    deck_file = tmp_path / "cowboy.toml"
    deck_file.write_text((EXAMPLES / "cowboy.toml").read_text())
    out = tmp_path / "cards.json"
    options = ["--out", str(out), "--deck", str(deck_file), "--limit", "3"]
    said = enrol_on_the_simulated_mat(tmp_path, options, "desperado/draw-1")
    assert "Lay cowboy/draw-1 FACE DOWN on the draw pad (3 to go)." in said, said
    written = CardMap.load(out)
    assert sorted(c.code for c in written.cards.values()) == [
        "cowboy/draw-1",
        "cowboy/draw-2",
        "cowboy/draw-3",
    ]
    assert written.decks == {"cowboy": "cowboy.toml"}
    assert all(written.deck_of(uid) == "cowboy" for uid in written.cards)
    checked = subprocess.run(
        [*TABLETOP, "cards", "check", str(out)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # A deck file that lost a card: the check names the tag.
    deck_file.write_text((EXAMPLES / "cowboy.toml").read_text().replace('"draw-2"', '"draw-9"'))
    checked = subprocess.run(
        [*TABLETOP, "cards", "check", str(out)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert checked.returncode == 1
    uid = written.uid_for(parse_tagged("cowboy/draw-2"))
    assert f"cards[{uid}]: cowboy/draw-2: cowboy.toml has no card 'draw-2'" in checked.stdout


def test_a_deck_file_is_read_by_the_game_whose_format_it_is(tmp_path: Path) -> None:
    from tabletop.hardware.mat.cli import _read_deck

    name, codes = _read_deck(EXAMPLES / "desperado.toml")
    assert name == "desperado" and codes[0] == "desperado/draw-1" and len(codes) == 16
    other = tmp_path / "other.toml"
    other.write_text('format = "poker-chips"\n')
    with pytest.raises(CardMapError, match=r"other.toml: format 'poker-chips' is no game's deck"):
        _read_deck(other)
    bad = tmp_path / "bad.toml"
    bad.write_text((EXAMPLES / "cowboy.toml").read_text().replace("speed = 1", 'speed = "fast"'))
    with pytest.raises(CardMapError, match=r"bad.toml: cards\[\d+\]\.speed"):
        _read_deck(bad)


def test_enrol_on_a_mat_not_plugged_in_says_so_and_waits_when_asked(tmp_path: Path) -> None:
    """The refusal names the option that waits (issue 46: `cards enrol` suggested a --wait it
    did not have), and that option waits for the mat instead of refusing."""
    port = str(tmp_path / "ttyACM9")
    words = [*TABLETOP, "cards", "enrol", "--port", port, "--out", str(tmp_path / "cards.json")]
    refused = subprocess.run(words, capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2
    assert "use --wait" in refused.stderr and "Traceback" not in refused.stderr
    with subprocess.Popen(
        [*words, "--wait"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as waiting:
        assert waiting.stdout is not None
        assert f"Waiting for the mat on {port}" in waiting.stdout.readline()
        assert waiting.poll() is None  # still waiting: the mat is not there
        waiting.terminate()
        waiting.communicate(timeout=30)

"""The mat part: HELLO, the layout, every reader, and, zone by zone, what a person's hands do.

The protocol has no way to ask one reader whether it is alive (docs/mat-protocol.md): a reader
that does not answer on SPI is reset by the firmware after a few failed reads and flagged in
the next snapshot (a `zone_fault` event, then `zone_ok` when it reads again). So the readers
are watched for a few seconds with nothing laid on the mat: a fault flag in any snapshot, or a
`zone_fault` event, is a reader not answering. Then the walk: for each zone, lit white on its
guidance LED, a card laid face down (the reader reads its tag, the face sensor's level), turned
face up (the level again), the touch pad touched and let go, the card lifted; last, every
guidance LED lit in its seat's colour for the person to confirm.

On the simulated mat started in-process (`sim:`) nobody can reach the cards, so the simulated
table plays the person: the check lays, turns, touches and lifts through the simulator and
reads its guidance LEDs back. A simulated mat in another process (`tabletop mat sim`, a pty)
is checked as a real one: a person, or a test, acts through that process's commands.
"""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from tabletop.hardware import MAT_ENV
from tabletop.hardware.mat import (
    CardEvent,
    CardMap,
    EventKind,
    LinkEvent,
    MatDriver,
    MatError,
    MatEvent,
    TouchEvent,
    ZoneEvent,
    simulated_deck,
)
from tabletop.hardware.mat.cardmap import Calibration
from tabletop.hardware.mat.protocol import LedSetting, Result, ResultCode
from tabletop.hardware.mat.sim import SimulatedMat
from tabletop.hardware.mat.zones import MatLayout
from tabletop.rules import games

from . import cards as card_part
from .context import Context
from .person import Person

PART: Final = "mat"
HELLO_S: Final = 5.0
# Longer than a heartbeat (1 s) and than the firmware's reset of a hung reader (3 failed reads).
WATCH_S: Final = 3.0
# A colour per seat for the guidance LED pattern, the pad white: (name, red, green, blue).
SEAT_COLOURS: Final = (
    ("red", 255, 0, 0),
    ("green", 0, 255, 0),
    ("blue", 0, 0, 255),
    ("yellow", 255, 255, 0),
    ("cyan", 0, 255, 255),
    ("magenta", 255, 0, 255),
)
WHITE: Final = (255, 255, 255)
SIM_CARD: Final = "AS"  # the card the simulated table lays (the simulated deck tags it)
READERS_FIX: Final = (
    "check that zone's reader: its SPI wires (MISO, MOSI, SCK), its chip-select line, its "
    "3.3 V and ground (docs/mat.md, 'Readers and the SPI buses')"
)


def check(context: Context) -> None:
    """Checks the mat the table's file names, then walks its zones with the person."""
    port = context.mat_port
    simulated = card_part.is_simulated(port)
    if not simulated and port.startswith("/") and not os.path.exists(port):
        context.checklist.failed(
            PART,
            "port",
            f"mat.port: no device {port}{context.swapped(MAT_ENV, 'mat.port')}",
            "plug the mat's USB cable in; with deploy/99-tabletop-mat.rules installed it "
            "appears as /dev/tabletop-mat (`ls /dev/ttyACM*` shows its kernel name)",
        )
        return
    known = _card_map(context)
    driver = MatDriver(port, known)
    try:
        driver.start()
    except MatError as error:
        context.checklist.failed(
            PART,
            "port",
            str(error),
            "stop what holds the port (`sudo systemctl stop tabletop-bridge`)",
        )
        return
    try:
        mat = _Mat(context, driver, known)
        if mat.hello() and mat.layout_fits():
            mat.watch_readers()
            mat.walk()
            mat.guidance_leds()
    finally:
        driver.close()


def _card_map(context: Context) -> CardMap:
    """The table's map (the cards part says what is wrong with it), else the simulated deck."""
    name = context.config.mat.cards
    if name is None:
        return simulated_deck()
    try:
        return CardMap.load(context.resolve(name))
    except MatError:
        return simulated_deck()


@dataclass(frozen=True, slots=True)
class Step:
    """One thing the hands do on a zone, and the words that ask a person for it."""

    action: str  # place, flip, touch, release, remove
    zone: str
    words: str


class PersonHands:
    """The person's hands: asked in words."""

    def __init__(self, person: Person) -> None:
        self.person = person

    def do(self, step: Step) -> None:
        self.person.tell(f"  {step.words} (Enter skips)")


class SimulatedHands:
    """The simulated table's hands on the simulated mat this check started."""

    def __init__(self, mat: SimulatedMat) -> None:
        self.mat = mat

    def do(self, step: Step) -> None:
        if step.action == "place":
            self.mat.place(step.zone, SIM_CARD, "down")
        elif step.action == "flip":
            self.mat.flip(step.zone)
        elif step.action == "touch":
            self.mat.touch(step.zone)
        elif step.action == "release":
            self.mat.release(step.zone)
        else:
            self.mat.remove(step.zone)


Hands = PersonHands | SimulatedHands
Want = Callable[[MatEvent], bool]


@dataclass(slots=True)
class _Zone:
    """What the walk saw on one zone."""

    name: str
    levels: dict[str, int] = field(default_factory=dict)  # asked face -> level
    problem: str = ""
    fix: str = ""
    skipped: bool = False
    touched: bool = False


class _Mat:
    """One mat being checked: its driver, what came of HELLO, and the person or the sim."""

    def __init__(self, context: Context, driver: MatDriver, known: CardMap) -> None:
        self.context = context
        self.driver = driver
        self.calibration: Calibration | None = known.calibration
        self.layout: MatLayout | None = None
        self.touch_zones = 0
        self.hands: Hands | None = None
        self.lying: set[str] = set()  # zones a card lay on while the readers were watched
        sim = driver.simulator
        if sim is not None:
            self.hands = SimulatedHands(sim)
        elif context.person.present:
            self.hands = PersonHands(context.person)

    # ---- HELLO and the layout ------------------------------------------------------------

    def hello(self) -> bool:
        deadline = time.monotonic() + HELLO_S
        while time.monotonic() < deadline:
            event = self.driver.get_event(0.1)
            if isinstance(event, LinkEvent) and event.kind is EventKind.LINK_UP:
                self.layout = self.driver.layout
                self.touch_zones = event.touch_zones
                assert self.layout is not None
                pads = f", touch pads on {event.touch_zones} zones" if event.touch_zones else ""
                self.context.checklist.passed(
                    PART,
                    "hello",
                    f"firmware {event.detail!r} on {self.driver.path}, a "
                    f"{self.layout.seats}x{self.layout.slots}{' + pad' if self.layout.pad else ''}"
                    f" mat{pads}{self.context.swapped(MAT_ENV, 'mat.port')}",
                )
                return True
        self.context.checklist.failed(
            PART,
            "hello",
            f"no HELLO from {self.driver.path} in {HELLO_S:g} s",
            "the device answers but not as a mat: put the firmware on the Pico (docs/mat.md, "
            "'Firmware'), or point mat.port at the mat (not another serial device)",
        )
        return False

    def layout_fits(self) -> bool:
        config = self.context.config
        layout = self.layout
        assert layout is not None
        need = games.get(config.rules.game).mat_layout(config.rules.options)
        problems = []
        if layout.seats < len(config.seats):
            problems.append(f"{len(config.seats)} [[seats]] on a mat of {layout.seats} seats")
        if layout.slots < need.slots_per_seat:
            problems.append(
                f"{config.rules.game} lays {need.slots_per_seat} cards a seat, the mat has "
                f"{layout.slots} slots"
            )
        if (need.pad or config.mat.draw_pad) and not layout.pad:
            why = f"{config.rules.game} deals from it" if need.pad else "mat.draw_pad is true"
            problems.append(f"the mat has no draw pad, and {why}")
        if problems:
            self.context.checklist.failed(
                PART,
                "layout",
                "; ".join(problems),
                "flash firmware built for this mat (its board.py's SEATS, SLOTS and PAD), or "
                "set fewer [[seats]] / mat.draw_pad = false in the table's file",
            )
            return False
        self.context.checklist.passed(
            PART,
            "layout",
            f"{len(config.seats)} seats of the table on the mat's {layout.seats}; "
            f"{layout.slots} slots each for {config.rules.game}",
        )
        return True

    # ---- the readers, left alone ---------------------------------------------------------

    def watch_readers(self) -> None:
        layout = self.layout
        assert layout is not None
        person = self.context.person
        person.tell(f"watching the mat's readers for {WATCH_S:g} s: keep hands off the mat")
        faults: set[str] = set()
        touched: set[str] = set()
        lying: set[str] = set()
        deadline = time.monotonic() + WATCH_S
        while time.monotonic() < deadline:
            event = self.driver.get_event(0.05)
            if isinstance(event, ZoneEvent) and event.kind is EventKind.ZONE_FAULT:
                faults.add(event.zone)
            elif isinstance(event, TouchEvent) and event.kind is EventKind.TOUCH:
                touched.add(event.zone)
            elif isinstance(event, CardEvent) and event.kind is not EventKind.REMOVED:
                lying.add(event.zone)
        snapshot = self.driver.session.snapshot
        if snapshot is not None:
            for index, zone in enumerate(snapshot.zones):
                name = layout.name(index)
                if zone.fault:
                    faults.add(name)
                if zone.present:
                    lying.add(name)
        if faults:
            names = ", ".join(sorted(faults, key=layout.index))
            self.context.checklist.failed(
                PART,
                "readers",
                f"{names}: reader not answering (the firmware flagged it and reset it while "
                f"{WATCH_S:g} s were watched)",
                READERS_FIX.replace("that zone's", f"{names}'s"),
            )
        else:
            self.context.checklist.passed(
                PART,
                "readers",
                f"all {layout.count} zones' readers answered for {WATCH_S:g} s (no fault flag)",
            )
        if self.touch_zones:
            if touched:
                names = ", ".join(sorted(touched, key=layout.index))
                self.context.checklist.failed(
                    PART,
                    "pads at rest",
                    f"{names}: touched while nobody was asked to touch anything",
                    "a stuck pad: take hands and objects off it; if it stays, its electrode "
                    "touches a neighbour or the MPR121 calibrated with something on it "
                    "(unplug the mat and plug it in with the pads bare; docs/mat.md, 'Touch "
                    "pads')",
                )
            else:
                self.context.checklist.passed(
                    PART, "pads at rest", f"none of {self.touch_zones} pads touched by itself"
                )
        self.lying = lying

    # ---- the walk ------------------------------------------------------------------------

    def _zones(self) -> list[str]:
        layout = self.layout
        assert layout is not None
        if self.context.zones:
            return [layout.name(layout.index(zone)) for zone in self.context.zones]
        zones = [
            f"s{seat}.{slot}"
            for seat in range(1, min(len(self.context.config.seats), layout.seats) + 1)
            for slot in range(1, layout.slots + 1)
        ]
        return zones + (["pad"] if layout.pad and self.context.config.mat.draw_pad else [])

    def walk(self) -> None:
        if self.hands is None:
            self.context.checklist.skipped(
                PART,
                "zones",
                "laying a card, turning it and touching each pad needs a person at the table "
                f"({self.context.person.absent})",
                f"run `{self.context.command} --part mat` on a terminal at the table",
            )
            return
        try:
            zones = self._zones()
        except MatError as error:
            self.context.checklist.failed(PART, "zones", str(error), "name zones this mat has")
            return
        if isinstance(self.hands, SimulatedHands):
            self.context.person.tell("the simulated table lays, turns and touches for you")
        else:
            self.context.person.tell(
                f"{len(zones)} zones, one at a time: each is lit white on its guidance LED; "
                "have one card at hand"
            )
        for zone in zones:
            if zone in self.lying:
                self.context.checklist.failed(
                    PART,
                    zone,
                    "a card lay there when the walk began",
                    f"clear the mat and run `{self.context.command} --part mat` again",
                )
                continue
            self._light({zone: WHITE})
            self._report(self._walk_zone(zone))
        self._light({})

    def _walk_zone(self, zone: str) -> _Zone:
        seen = _Zone(zone)
        placed = self._step(
            Step("place", zone, f"{zone}: lay a card on it face DOWN"),
            lambda e: _card(e, zone, EventKind.PLACED, EventKind.UNKNOWN_CARD),
            seen,
        )
        if not isinstance(placed, CardEvent):
            if not seen.skipped:
                seen.problem = f"no card read in {self.context.step_s:g} s"
                seen.fix = READERS_FIX.replace("that zone's", f"{zone}'s") + (
                    "; lay the card with its tag over the antenna"
                )
            return seen
        self._face(seen, "down", placed)
        flipped = self._step(
            Step("flip", zone, f"{zone}: turn the card face UP"),
            lambda e: _card(e, zone, EventKind.FLIPPED),
            seen,
        )
        if isinstance(flipped, CardEvent):
            self._face(seen, "up", flipped)
        elif not seen.skipped and not seen.problem:
            seen.problem = (
                f"turned face up, the sensor still says {placed.face.text} (level {placed.level})"
            )
            seen.fix = self._face_fix(zone)
        layout = self.layout
        assert layout is not None
        if layout.index(zone) < self.touch_zones and not seen.skipped:
            self._pad(seen)
        if not seen.skipped:
            lifted = self._step(
                Step("remove", zone, f"{zone}: lift the card"),
                lambda e: _card(e, zone, EventKind.REMOVED),
                seen,
            )
            if lifted is None and not seen.skipped and not seen.problem:
                seen.problem = (
                    f"lifted, the reader still read the card after {self.context.step_s:g} s"
                )
                seen.fix = READERS_FIX.replace("that zone's", f"{zone}'s")
        return seen

    def _pad(self, seen: _Zone) -> None:
        zone = seen.name
        strays: list[str] = []

        def touch_here(event: MatEvent) -> bool:
            if isinstance(event, TouchEvent) and event.kind is EventKind.TOUCH:
                if event.zone == zone:
                    return True
                strays.append(event.zone)
            return False

        touched = self._step(
            Step("touch", zone, f"{zone}: touch its pad and keep the finger there"),
            touch_here,
            seen,
        )
        if touched is None:
            if seen.skipped:
                return
            crossed = f" ({', '.join(sorted(set(strays)))} felt it instead)" if strays else ""
            seen.problem = seen.problem or f"pad: no touch in {self.context.step_s:g} s{crossed}"
            seen.fix = seen.fix or (
                f"check {zone}'s electrode wire to its MPR121 input and the chip's I2C address "
                "(docs/mat.md, 'Touch pads'); a pad touched before it was asked may be stuck"
                + (": the wires of these pads are crossed" if strays else "")
            )
            return
        released = self._step(
            Step("release", zone, f"{zone}: felt it; now let go"),
            lambda e: isinstance(e, TouchEvent) and e.kind is EventKind.RELEASE and e.zone == zone,
            seen,
        )
        if released is None and not seen.skipped:
            seen.problem = seen.problem or (
                f"pad: touched, but never let go in {self.context.step_s:g} s (stuck)"
            )
            seen.fix = seen.fix or (
                f"{zone}'s pad is stuck: its electrode touches a neighbour or the mat's edge, "
                "or the MPR121 calibrated with a hand on it (unplug the mat and plug it in "
                "with the pads bare)"
            )
            return
        seen.touched = True

    def _step(self, step: Step, want: Want, seen: _Zone) -> MatEvent | None:
        """Has the hands do `step` and waits for the event it should bring; None when none
        came in time or the person skipped it (`seen.skipped`)."""
        assert self.hands is not None
        try:
            self.hands.do(step)
        except MatError as error:  # the simulator refused (a mat without touch pads, say)
            seen.problem = f"the simulated table could not {step.action}: {error}"
            return None
        person = self.context.person if isinstance(self.hands, PersonHands) else None
        deadline = time.monotonic() + self.context.step_s
        while time.monotonic() < deadline:
            event = self.driver.get_event(0.05)
            if event is not None and want(event):
                return event
            if (
                isinstance(event, ZoneEvent)
                and event.kind is EventKind.ZONE_FAULT
                and event.zone == seen.name
            ):
                seen.problem = "reader not answering (the firmware reset it)"
                seen.fix = READERS_FIX.replace("that zone's", f"{seen.name}'s")
            if person is not None and person.typed():
                seen.skipped = True
                return None
        return None

    def _face(self, seen: _Zone, asked: str, event: CardEvent) -> None:
        seen.levels[asked] = event.level
        if event.face.text != asked and not seen.problem:
            seen.problem = (
                f"laid face {asked}, the face sensor said {event.face.text} (level {event.level}"
                + (f", threshold {self.calibration.threshold}" if self.calibration else "")
                + ")"
            )
            seen.fix = self._face_fix(seen.name)

    def _face_fix(self, zone: str) -> str:
        return (
            f"check {zone}'s face sensor (its LED and phototransistor, docs/mat.md, 'Face up "
            "or face down'); if every zone says so, enrol the deck again (`tabletop cards "
            "enrol`) to set the threshold"
        )

    def _report(self, seen: _Zone) -> None:
        checklist = self.context.checklist
        if seen.problem:
            checklist.failed(PART, seen.name, seen.problem, seen.fix)
            return
        if seen.skipped:
            checklist.skipped(PART, seen.name, "skipped at the terminal", "")
            return
        levels = ", ".join(f"face {face} level {level}" for face, level in seen.levels.items())
        pad = "; pad touched and let go" if seen.touched else ""
        margin = ""
        if self.calibration is not None and seen.levels:
            nearest = min(abs(level - self.calibration.threshold) for level in seen.levels.values())
            margin = f" ({nearest} from the threshold)"
        checklist.passed(PART, seen.name, f"card read; {levels}{margin}{pad}")

    # ---- the guidance LEDs ---------------------------------------------------------------

    def _light(self, colours: dict[str, tuple[int, int, int]]) -> None:
        layout = self.layout
        assert layout is not None
        settings = [LedSetting(255, 0, 0, 0)]
        settings += [LedSetting(layout.index(z), *rgb) for z, rgb in sorted(colours.items())]
        self.driver.set_leds(settings)

    def guidance_leds(self) -> None:
        layout = self.layout
        assert layout is not None
        pattern = {
            layout.name(index): (
                WHITE if layout.name(index) == "pad" else SEAT_COLOURS[index // layout.slots][1:]
            )
            for index in range(layout.count)
        }
        while not self.driver.results.empty():
            self.driver.results.get_nowait()
        self._light(pattern)
        seats = ", ".join(
            f"seat {seat + 1} {SEAT_COLOURS[seat][0]}" for seat in range(layout.seats)
        )
        words = f"every slot lit, {seats}{', the pad white' if layout.pad else ''}"
        try:
            result: Result | None = self.driver.results.get(timeout=HELLO_S)
        except queue.Empty:
            result = None
        if result is None or result.code is not ResultCode.OK:
            self.context.checklist.failed(
                PART,
                "guidance LEDs",
                "the mat did not take the LED colours"
                + (f": {result.text}" if result is not None else f" in {HELLO_S:g} s"),
                "update the mat's firmware (docs/mat.md, 'Firmware')",
            )
            return
        sim = self.driver.simulator
        try:
            if sim is not None:
                self._sim_leds(sim, pattern, words)
            elif not self.context.person.present:
                self.context.checklist.skipped(
                    PART,
                    "guidance LEDs",
                    f"lit {words}; nobody to look ({self.context.person.absent})",
                    f"run `{self.context.command} --part mat` on a terminal at the table",
                )
            elif self.context.person.confirm(f"Is {words}?"):
                self.context.checklist.passed(PART, "guidance LEDs", f"{words}, as confirmed")
            else:
                self.context.checklist.failed(
                    PART,
                    "guidance LEDs",
                    f"asked for {words}; the person saw otherwise",
                    "a dark slot: its LED's data line or 5 V; wrong colours: the strip's "
                    "colour order; a seat shifted: the strip's order of slots (docs/mat.md, "
                    "'Guidance LEDs')",
                )
        finally:
            self._light({})

    def _sim_leds(
        self, sim: SimulatedMat, pattern: dict[str, tuple[int, int, int]], words: str
    ) -> None:
        layout = self.layout
        assert layout is not None
        deadline = time.monotonic() + HELLO_S
        wrong: list[str] = []
        while time.monotonic() < deadline:
            wrong = [
                zone
                for zone, rgb in pattern.items()
                if tuple(sim.leds.colours[layout.index(zone)][:3]) != rgb
            ]
            if not wrong:
                break
            time.sleep(0.02)
        if wrong:
            self.context.checklist.failed(
                PART,
                "guidance LEDs",
                f"the simulated mat shows other colours on {', '.join(wrong)}",
                "a bug in the simulated mat or the firmware: report it",
            )
        else:
            self.context.checklist.passed(
                PART, "guidance LEDs", f"{words} (read back from the simulated mat)"
            )


def _card(event: MatEvent, zone: str, *kinds: EventKind) -> bool:
    return isinstance(event, CardEvent) and event.zone == zone and event.kind in kinds

"""The simulated mat: the real firmware modules on simulated readers, behind a real pty.

It boots the firmware exactly as `src/tabletop/firmware/main.py` does on the RP2040 (a scanner per
SPI bus, the second one on its own thread as on the second core, the controller between scan steps
on the first) with SimRfidBus readers whose operations take their modelled time. The host opens
the pty like any serial device, through a stable symlink (as udev's /dev/serial/by-id/ gives a
real mat), so unplugging and plugging it back in works as with USB re-enumeration: unplugging
cuts the (bus-powered) mat's power, plugging in boots it again with a new boot id.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import tempfile
import threading
import time
import tty
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

from tabletop.firmware.controller import MatController, ZoneTable
from tabletop.firmware.hal import Link
from tabletop.firmware.scanner import ZoneScanner
from tabletop.firmware.simhw import (
    PROFILES,
    SimCard,
    SimFaceSensors,
    SimLeds,
    SimMpr121Bus,
    SimRfidBus,
    SimTable,
)
from tabletop.firmware.touch import (
    SIDE_FAR,
    SIDE_NEAR,
    TouchPads,
    build_pads,
    split_seat_zones,
    split_zones_per_chip,
)
from tabletop.firmware.zones import Layout

# Against the data flow, on purpose: a tag names a card of the games' card model,
# which is pure (standard library only).
from tabletop.rules.games.cards import Card, Rank, TaggedCard, parse_tagged
from tabletop.rules.games.errors import InvalidCommand

from .cardmap import CardMap, normalise_uid, simulated_deck
from .errors import CardMapError, MatError
from .zones import MatLayout

BACK_LEVEL = 11000
# A finger from a side reaches the other half of a split pad this long after its own half (the
# fingertip spreading as it lands). One value, inside the 2-12 ms that bench/showdown_hands.py
# models, and longer than a touch poll, so the simulated table's fingers always name their
# side; the bench measures the fingertips that land across both halves or curl round.
FINGER_LEAD_MS = 10


def sim_card_levels(card: TaggedCard | None, uid: str) -> tuple[int, int]:
    """The simulated deck's reflectance: (back, face). Court cards carry more ink than pips."""
    spread = hashlib.sha256(uid.encode()).digest()[0] * 12
    if not isinstance(card, Card):  # an unknown tag, or a game deck's card: a printed picture
        return BACK_LEVEL, 40000 + spread
    if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.JOKER):
        return BACK_LEVEL, 36000 + spread
    return BACK_LEVEL, 46000 + spread


class MatClock:
    """The simulated mat controller's clock: milliseconds since it booted.

    It runs on real time, and a test that is about time can hold it and step it: `hold()`
    stops it, `advance(ms)` moves it on, `resume()` lets it run again from where it stands
    (no jump). While it is held the firmware goes on scanning and polling its pads, all at the
    one instant, so a touch is dated exactly when the test steps past it, whatever the load
    on the host."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._origin = time.monotonic()
        self._held_ms: float | None = None

    def now_ms(self) -> int:
        with self._lock:
            if self._held_ms is not None:
                return int(self._held_ms)
            return int((time.monotonic() - self._origin) * 1000)

    def hold(self) -> None:
        with self._lock:
            if self._held_ms is None:
                self._held_ms = (time.monotonic() - self._origin) * 1000

    def advance(self, ms: float) -> None:
        if ms < 0:
            raise MatError(f"the mat's clock only goes forward, not by {ms} ms")
        with self._lock:
            if self._held_ms is not None:
                self._held_ms += ms
            else:
                self._origin -= ms / 1000

    def resume(self) -> None:
        with self._lock:
            if self._held_ms is not None:
                self._origin = time.monotonic() - self._held_ms / 1000
                self._held_ms = None


class RealPacer:
    """Spends modelled reader time as real time, without drift: sleeps to a running deadline."""

    def __init__(self, power: threading.Event) -> None:
        self._deadline = time.monotonic()
        self._power = power

    def spend(self, us: int) -> None:
        if not self._power.is_set():
            raise PowerCut
        now = time.monotonic()
        # After a long stall (a busy host), start afresh rather than rush to catch up.
        self._deadline = max(self._deadline, now - 0.005) + us / 1e6
        delay = self._deadline - now
        if delay > 0:
            time.sleep(delay)


class PowerCut(Exception):
    """Raised inside the firmware's threads when the simulated mat loses power."""


class PtyLink(Link):
    """The firmware's link to the host: the master side of a pty, with optional line noise."""

    def __init__(self, master: int, noise: NoiseSettings) -> None:
        self.master = master
        self.noise = noise
        self.dropped = 0

    def read(self) -> bytes:
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return b""
        return self.noise.corrupt(data)

    def write(self, data: bytes) -> None:
        view = memoryview(self.noise.corrupt(data))
        while view:
            try:
                written = os.write(self.master, view)
            except BlockingIOError:
                # Nobody is reading: a real mat's USB buffer fills and it drops, never blocks.
                self.dropped += len(view)
                return
            except OSError:
                return
            view = view[written:]


@dataclass
class NoiseSettings:
    """The fraction of bytes corrupted on the line, both ways."""

    rate: float = 0.0
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    corrupted: int = 0

    def corrupt(self, data: bytes) -> bytes:
        if self.rate <= 0 or not data:
            return data
        out = bytearray(data)
        for i in range(len(out)):
            if self.rng.random() < self.rate:
                out[i] ^= self.rng.randrange(1, 256)
                self.corrupted += 1
        return bytes(out)


@dataclass(frozen=True, slots=True)
class Placement:
    """A change made to the simulated mat, and when (time.monotonic()), for latency figures."""

    action: str
    zone: str
    at: float


class SimulatedMat:
    """A whole mat in software: cards laid by command, the firmware scanning them, a pty link."""

    def __init__(
        self,
        layout: MatLayout | None = None,
        *,
        profile: str = "tuned",
        buses: int | None = None,
        miss_rate: float = 0.002,
        deck: CardMap | None = None,
        link_dir: str | None = None,
        seed: int = 1,
        touch_pads: bool = True,
        split_seats: int = 0,
    ) -> None:
        self.layout = layout or MatLayout()
        if profile not in PROFILES:
            raise MatError(f"no timing profile {profile!r}; choose one of {', '.join(PROFILES)}")
        self.profile = profile
        self.buses = buses if buses is not None else (2 if profile == "tuned" else 1)
        self.deck = deck if deck is not None else simulated_deck()
        self.noise = NoiseSettings()
        self.table = SimTable(self.layout.count, miss_rate=miss_rate, seed=seed)
        self.leds = SimLeds(self.layout.count)
        self.history: list[Placement] = []
        self.boots = 0
        self.seed = seed
        self._link_dir = link_dir
        self._link_path: Path | None = None
        self._owns_dir = False
        self._power = threading.Event()
        self._threads: list[threading.Thread] = []
        self._fds: tuple[int, int] | None = None
        self.controller: MatController | None = None
        self.link: PtyLink | None = None
        # Touch pads: four simulated MPR121s under the zones, read by the real driver.
        self.touch_pads = touch_pads
        # The seats whose pads are split in near and far halves (a bit per seat): the mat is
        # built so, and its firmware boots knowing it (as board.SPLIT_SEATS tells a real one).
        try:
            split_seat_zones(self.layout.seats, self.layout.slots, split_seats)
        except ValueError as error:
            raise MatError(f"split: {error}") from None
        self.split_seats = split_seats
        self.touch_bus: SimMpr121Bus | None = None
        self._clock: MatClock | None = None

    @classmethod
    def from_url(cls, url: str) -> SimulatedMat:
        """Builds a mat from "sim:?seats=4&slots=6&pad=1&profile=tuned&split=1,2" (split: the
        seats whose touch pads are split in near and far halves, or "all")."""
        query = parse_qs(url.partition("?")[2])

        def number(key: str, default: int) -> int:
            try:
                return int(query.get(key, [str(default)])[0])
            except ValueError:
                raise MatError(f"{url}: {key} must be a whole number") from None

        layout = MatLayout(number("seats", 6), number("slots", 6), bool(number("pad", 1)))
        split_text = query.get("split", [""])[0]
        split_seats = 0
        if split_text == "all":
            split_seats = (1 << layout.seats) - 1
        elif split_text:
            for seat in split_text.split(","):
                if not seat.strip().isdigit() or not 1 <= int(seat) <= layout.seats:
                    raise MatError(
                        f"{url}: split must be seat numbers 1-{layout.seats} or all, "
                        f"not {split_text!r}"
                    )
                split_seats |= 1 << (int(seat) - 1)
        return cls(
            layout,
            profile=query.get("profile", ["tuned"])[0],
            touch_pads=bool(number("touch", 1)),
            split_seats=split_seats,
        )

    # ---- power and the pty ------------------------------------------------------------

    @property
    def path(self) -> str:
        """The stable device path the host opens (a symlink to the current pty)."""
        if self._link_path is None:
            raise MatError("the simulated mat has not been started")
        return str(self._link_path)

    @property
    def plugged_in(self) -> bool:
        return self._power.is_set()

    def start(self) -> str:
        """Creates the device and boots the firmware; returns the device path."""
        if self._link_dir is None:
            self._link_dir = tempfile.mkdtemp(prefix="tabletop-mat-")
            self._owns_dir = True
        self._link_path = Path(self._link_dir) / "ttyMAT0"
        self.replug()
        return str(self._link_path)

    def replug(self) -> None:
        """Plugs the mat in: a new pty behind the same path, and a fresh boot."""
        if self._power.is_set():
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._fds = (master, slave)
        assert self._link_path is not None
        temporary = self._link_path.with_name(self._link_path.name + ".new")
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(os.ttyname(slave))
        os.replace(temporary, self._link_path)
        self._boot(master)

    def unplug(self) -> None:
        """Pulls the cable: the firmware stops, the pty and its path disappear."""
        if not self._power.is_set():
            return
        self._power.clear()
        for thread in self._threads:
            thread.join(timeout=2)
        self._threads = []
        if self._link_path is not None:
            self._link_path.unlink(missing_ok=True)
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def stop(self) -> None:
        """Unplugs the mat and removes its device folder."""
        self.unplug()
        if self._owns_dir and self._link_dir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._link_dir)

    def _boot(self, master: int) -> None:
        self.boots += 1
        layout = Layout(self.layout.seats, self.layout.slots, self.layout.pad)
        zones = ZoneTable(layout, lock=threading.Lock())
        if self.profile == "plain":
            zones.config.presence_checks = 0
        clock = MatClock()
        self._power.set()
        sensors = SimFaceSensors(self.table, RealPacer(self._power), seed=self.seed + 3)
        scanners = []
        for index, bus_zones in enumerate(layout.split(self.buses)):
            bus = SimRfidBus(
                self.table, RealPacer(self._power), self.profile, seed=self.seed + 10 + index
            )
            scanners.append(ZoneScanner(bus, sensors, bus_zones, zones, clock))
        self.link = PtyLink(master, self.noise)
        boot_id = random.Random(f"{self.seed}:{self.boots}").getrandbits(32)
        self._clock = clock
        touch = None
        touch_factory = None
        if self.touch_pads:
            touch = self._touch_pads(layout, clock, zones)

            def touch_factory(split_seats: int) -> TouchPads:
                split = split_seat_zones(layout.seats, layout.slots, split_seats)
                pads: TouchPads = build_pads(self.touch_bus, layout.count, split, zones.log)
                return pads

        self.controller = MatController(
            zones,
            self.link,
            clock,
            boot_id,
            scanners,
            self.leds,
            watchdog=None,
            touch=touch,
            touch_factory=touch_factory,
        )
        self._threads = [
            threading.Thread(
                target=self._core0,
                args=(scanners[0], self.controller),
                daemon=True,
                name="sim mat core 0",
            )
        ]
        self._threads += [
            threading.Thread(target=self._core1, args=(s,), daemon=True, name="sim mat core 1")
            for s in scanners[1:]
            if s.zones  # a bus with no reader (one seat, no pad) has nothing to scan
        ]
        self.controller.start()
        for thread in self._threads:
            thread.start()

    def _touch_pads(self, layout: Layout, clock: MatClock, zones: ZoneTable) -> TouchPads:
        split = split_seat_zones(layout.seats, layout.slots, self.split_seats)
        # The electrodes as the mat is built: split pads take two, in zone order.
        wiring = split_zones_per_chip(layout.count, split)
        # Fingers lifted while the mat was off are not on its pads when it boots.
        self.table.lift_all()
        self.touch_bus = SimMpr121Bus(self.table, wiring, clock, RealPacer(self._power))
        zones.config.split_seats = self.split_seats
        pads: TouchPads = build_pads(self.touch_bus, layout.count, split, zones.log)
        return pads

    def _core0(self, scanner: ZoneScanner, controller: MatController) -> None:
        try:
            while self._power.is_set():
                scanner.step()
                controller.service()
        except PowerCut:
            pass

    def _core1(self, scanner: ZoneScanner) -> None:
        try:
            while self._power.is_set():
                scanner.step()
        except PowerCut:
            pass

    # ---- the table ------------------------------------------------------------------

    def _card(self, text: str) -> SimCard:
        if text.startswith("#"):
            uid = normalise_uid(text[1:])
            card = self.deck.cards.get(uid)
        else:
            try:
                card = parse_tagged(text, "card")
            except InvalidCommand as error:
                raise MatError(str(error)) from None
            found = self.deck.uid_for(card)
            if found is None:
                raise CardMapError(f"the simulated deck has no tag on {card.code}")
            uid = found
        back, face = sim_card_levels(card, uid)
        return SimCard(bytes.fromhex(uid), back, face, card.code if card else uid)

    def place(self, zone: str, card: str, face: str = "up") -> Placement:
        """Lays `card` (a code such as QS, or #UID for any tag) on `zone`, face "up" or "down"."""
        index = self.layout.index(zone)
        if face not in ("up", "down"):
            raise MatError(f"face must be up or down, not {face!r}")
        self.table.place(index, self._card(card), face)
        return self._note("place", zone)

    def remove(self, zone: str) -> Placement:
        index = self.layout.index(zone)
        if self.table.cards[index] is None:
            raise MatError(f"no card on {zone} to remove")
        self.table.remove(index)
        return self._note("remove", zone)

    def flip(self, zone: str) -> Placement:
        index = self.layout.index(zone)
        if self.table.cards[index] is None:
            raise MatError(f"no card on {zone} to flip")
        self.table.flip(index)
        return self._note("flip", zone)

    def touch(self, zone: str, hand: int | None = None, *, spread: bool = True) -> Placement:
        """A finger lands on `zone`'s touch pad now (the mat's clock dates it).

        `hand` is the seat (from 0) whose hand it is; None, the slot's owner. The owner's hand
        reaches a split pad's near half first, any other seat's (across the table) the far
        half, and the other half `FINGER_LEAD_MS` later (`spread` False: never, the fingertip
        stays on its half); a whole pad feels it at once."""
        return self._finger(zone, True, hand, spread)

    def release(self, zone: str) -> Placement:
        """The finger leaves `zone`'s touch pad."""
        return self._finger(zone, False)

    def touch_ms(self) -> int:
        """The mat controller's clock now: milliseconds since it booted."""
        return self.clock.now_ms()

    @property
    def clock(self) -> MatClock:
        """The running controller's clock, which a test about time holds and steps."""
        if self._clock is None or not self.plugged_in:
            raise MatError("the simulated mat is not plugged in")
        return self._clock

    def wait_polled(self, polls: int = 3, timeout: float = 20.0) -> None:
        """Waits until the firmware has polled its touch pads `polls` more times.

        With the clock held and stepped past a finger's landing, two polls settle it (the
        firmware's debounce) and the next one has sent it: the barrier before the test steps
        the clock again. The timeout is a safety net for a host starved of CPU."""
        controller = self.controller
        if controller is None or controller.touch is None or not self.plugged_in:
            raise MatError("the simulated mat has no touch pads running")
        pads = controller.touch
        target = pads.polls + polls
        deadline = time.monotonic() + timeout
        while pads.polls < target:
            if time.monotonic() > deadline or not self.plugged_in:
                raise MatError(
                    f"the mat's firmware did not poll its pads {polls} times in {timeout} s"
                )
            time.sleep(0.001)

    def _finger(
        self, zone: str, touched: bool, hand: int | None = None, spread: bool = True
    ) -> Placement:
        if not self.touch_pads:
            raise MatError("this simulated mat has no touch pads")
        index = self.layout.index(zone)
        if hand is not None and not 0 <= hand < self.layout.seats:
            raise MatError(f"no seat {hand + 1} on this mat for a hand (1-{self.layout.seats})")
        owner = index // self.layout.slots if zone != "pad" else None
        side = None
        if owner is not None:
            side = SIDE_NEAR if hand is None or hand == owner else SIDE_FAR
        if self.plugged_in:
            lead = FINGER_LEAD_MS if spread else None
            self.table.touch(index, touched, self.touch_ms(), side, lead)
        # else: a pad with no power senses nothing; the finger comes and goes unseen
        return self._note("touch" if touched else "release", zone)

    def hang_reader(self, zone: str) -> None:
        """Makes a zone's reader stop answering until the firmware resets it."""
        self.table.hang(self.layout.index(zone))

    def set_noise(self, rate: float) -> None:
        if not 0 <= rate <= 1:
            raise MatError(f"noise rate must be between 0 and 1, not {rate}")
        self.noise.rate = rate

    def _note(self, action: str, zone: str) -> Placement:
        placement = Placement(action, zone, time.monotonic())
        self.history.append(placement)
        return placement

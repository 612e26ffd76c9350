"""Helpers for the firmware tests, which run under both CPython (pytest) and MicroPython.

Only what MicroPython has may be used here and in the test_fw_* files: no pytest, no typing,
plain asserts, and functions named test_* taking no arguments.
"""

import json
import struct

from tabletop import firmware
from tabletop.firmware import wire
from tabletop.firmware.controller import MatController, ZoneTable
from tabletop.firmware.scanner import ZoneScanner
from tabletop.firmware.simhw import (
    MemoryLink,
    SimCard,
    SimFaceSensors,
    SimLeds,
    SimMpr121Bus,
    SimRfidBus,
    SimTable,
    VirtualClock,
)
from tabletop.firmware.touch import build_pads, split_seat_zones, split_zones_per_chip
from tabletop.firmware.zones import Layout


def vectors(name="protocol-v1.json"):
    """Returns the golden vectors shared with the host tests."""
    base = firmware.__file__.replace("\\", "/").rsplit("/", 1)[0]
    with open(base + "/vectors/" + name) as handle:
        return json.load(handle)


def touch_pads(table, zone_count, clock, log=None, split=()):
    """Touch pads on simulated MPR121s that feel the fingers `table` records, the zones in
    `split` with split pads (wired so, and read so); (pads, i2c)."""
    i2c = SimMpr121Bus(table, split_zones_per_chip(zone_count, split), clock, clock)
    return build_pads(i2c, zone_count, split, log), i2c


def frames(data):
    """Returns every (type, payload) frame in `data`."""
    return wire.FrameReader().feed(data)


def parse_snapshot(payload):
    """Returns (head, zones) of a SNAPSHOT payload; zones as dicts like the vectors'."""
    boot_id, seq, uptime, reason, count = struct.unpack("<IIIBB", payload[:14])
    zones = []
    at = 14
    for _ in range(count):
        flags, generation = payload[at], payload[at + 1]
        at += 2
        zone = {
            "present": bool(flags & wire.FLAG_PRESENT),
            "face": (flags & wire.FACE_MASK) >> wire.FACE_SHIFT,
            "fault": bool(flags & wire.FLAG_FAULT),
            "generation": generation,
            "quality": 0,
            "level": 0,
            "uid": "",
        }
        if zone["present"]:
            quality, level, size = struct.unpack("<BHB", payload[at : at + 4])
            at += 4
            zone["quality"] = quality
            zone["level"] = level
            zone["uid"] = bytes(payload[at : at + size]).hex()
            at += size
        zones.append(zone)
    assert at == len(payload), "snapshot has %d bytes left over" % (len(payload) - at)
    head = {"boot_id": boot_id, "seq": seq, "uptime_ms": uptime, "reason": reason}
    return head, zones


def card(n, face_level=45000):
    """A simulated card with a 7-byte UID made from `n`."""
    return SimCard(bytes([4, 0, 0, 0, 0, n >> 8, n & 0xFF]), face_level=face_level)


class Mat:
    """A whole simulated mat in modelled time: table, readers, scanners and controller."""

    def __init__(
        self,
        seats=1,
        slots=2,
        pad=True,
        buses=2,
        profile="tuned",
        miss_rate=0.0,
        touch=False,
        split_seats=0,
    ):
        self.layout = Layout(seats, slots, pad)
        self.clock = VirtualClock()
        self.table = SimTable(self.layout.count, miss_rate=miss_rate)
        self.zones = ZoneTable(self.layout)
        self.link = MemoryLink()
        self.leds = SimLeds(self.layout.count)
        self.buses = []
        self.scanners = []
        sensors = SimFaceSensors(self.table, self.clock)
        for index, zones in enumerate(self.layout.split(buses)):
            bus = SimRfidBus(self.table, self.clock, profile, seed=index + 5)
            self.buses.append(bus)
            self.scanners.append(ZoneScanner(bus, sensors, zones, self.zones, self.clock))
        self.watchdog = FeedCounter()
        self.touch = None
        self.i2c = None
        touch_factory = None
        if touch:
            # The pads are built split for `split_seats` (the wiring) and the firmware boots
            # knowing it, as `board.SPLIT_SEATS` tells a real mat's.
            split = split_seat_zones(seats, slots, split_seats)
            self.touch, self.i2c = touch_pads(
                self.table, self.layout.count, self.clock, self.zones.log, split
            )
            self.zones.config.split_seats = split_seats

            def touch_factory(new_split_seats):
                zones = split_seat_zones(seats, slots, new_split_seats)
                return build_pads(self.i2c, self.layout.count, zones, self.zones.log)

        self.controller = MatController(
            self.zones,
            self.link,
            self.clock,
            0xB007,
            self.scanners,
            self.leds,
            self.watchdog,
            self.touch,
            touch_factory,
        )

    def run(self, ms):
        """Runs the scan loop and the controller for `ms` modelled milliseconds."""
        end = self.clock.now_ms() + ms
        while self.clock.now_ms() < end:
            for scanner in self.scanners:
                scanner.step()
            self.controller.service()

    def run_until(self, condition, limit_ms=2000):
        """Runs until `condition()` holds; returns the modelled milliseconds it took."""
        start = self.clock.now_ms()
        while not condition():
            assert self.clock.now_ms() - start < limit_ms, "condition not met in %d ms" % limit_ms
            for scanner in self.scanners:
                scanner.step()
            self.controller.service()
        return self.clock.now_ms() - start

    def take_sent(self):
        """Returns the (type, payload) frames the mat sent since the last call."""
        data = bytes(self.link.sent)
        self.link.sent = bytearray()
        return frames(data)

    def snapshots(self):
        return [parse_snapshot(p) for t, p in self.take_sent() if t == wire.SNAPSHOT]

    def command(self, msg_type, payload=b""):
        self.link.inbox.extend(wire.encode_frame(msg_type, payload))
        self.controller.service()
        return self.take_sent()


class FeedCounter:
    """A watchdog that counts how often it was fed."""

    def __init__(self):
        self.feeds = 0

    def feed(self):
        self.feeds += 1

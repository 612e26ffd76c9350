"""The mat's entry point on the RP2040: the board's own main.py runs `firmware.main.run()`.

Bus B's scanner runs on the second core; the first core scans bus A and, between its steps,
serves the host. A reader that fails at start-up is reported and retried by the scan loop.
"""

import _thread
import os
import struct

from . import board
from .controller import MatController, ZoneTable
from .hal import ReaderFault
from .scanner import ZoneScanner
from .wire import LOG_ERROR
from .zones import Layout

SEATS = 6
SLOTS = 6
PAD = True


def run():
    if board.maintenance_jumper():
        print("tabletop mat: maintenance jumper fitted; REPL left on USB")
        return
    layout = Layout(SEATS, SLOTS, PAD)
    zones_per_bus = layout.split(2)
    buses, sensors, leds = board.build(layout, zones_per_bus)
    clock = board.TicksClock()
    table = ZoneTable(layout, lock=_thread.allocate_lock())
    for bus, zones in zip(buses, zones_per_bus):
        for zone in zones:
            try:
                bus.init(zone)
            except ReaderFault as fault:
                table.log(LOG_ERROR, "zone %s: %s" % (layout.name(zone), fault))
    scanners = [
        ZoneScanner(bus, sensors, zones, table, clock) for bus, zones in zip(buses, zones_per_bus)
    ]
    boot_id = struct.unpack("<I", os.urandom(4))[0]
    link = board.UsbLink()
    # Started last: the readers' set-up above may take longer than the watchdog allows.
    watchdog = board.HardwareWatchdog()
    touch = None
    touch_factory = None
    if board.TOUCH_PADS:
        table.config.split_seats = board.SPLIT_SEATS

        def touch_factory(split_seats):
            return board.build_touch(layout, table.log, split_seats)

        touch = touch_factory(board.SPLIT_SEATS)
    controller = MatController(
        table, link, clock, boot_id, scanners, leds, watchdog, touch, touch_factory
    )

    def second_core():
        while True:
            scanners[1].step()

    if zones_per_bus[1]:  # a one-seat mat without a draw pad has no reader on bus B
        _thread.start_new_thread(second_core, ())
    controller.start()
    first = scanners[0]
    while True:
        first.step()
        controller.service()

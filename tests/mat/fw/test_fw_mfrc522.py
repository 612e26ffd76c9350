"""The pure parts of the MFRC522 driver: CRC_A, chip selects, reset chain (CPython, MicroPython)."""

from firmware.mfrc522 import DecodedSelect, ResetChain, crc_a


class Pin:
    """A GPIO that remembers every value written to it."""

    def __init__(self, value=0):
        self.values = [value]

    def value(self, level=None):
        if level is None:
            return self.values[-1]
        self.values.append(level)
        return None


def test_crc_a_matches_the_iso_14443_halt_frame():
    assert crc_a(bytes([0x50, 0x00])) == bytes([0x57, 0xCD])


def test_a_zone_is_selected_by_address_and_the_enable_of_its_decoder():
    address = [Pin() for _ in range(4)]
    enables = [Pin(1), Pin(1)]
    select = DecodedSelect(address, enables)
    select.select(18)  # the third output of the second decoder
    assert [p.value() for p in address] == [0, 1, 0, 0]
    assert enables[1].value() == 0 and enables[0].value() == 1
    select.release(18)
    assert enables[1].value() == 1
    writes = len(address[1].values)
    select.select(18)
    assert len(address[1].values) == writes  # address lines untouched when already pointing


def test_the_reset_chain_pulls_only_the_pulsed_reader_low():
    data, clock, latch = Pin(), Pin(), Pin(1)
    chain = ResetChain(data, clock, latch, 5)
    chain._shift(3)
    shifted = data.values[-5:]
    # The first bit shifted ends up on the last output: zone 4 first, zone 0 last.
    assert shifted == [1, 0, 1, 1, 1]
    assert clock.values.count(1) == 5
    assert latch.values[-2:] == [0, 1]

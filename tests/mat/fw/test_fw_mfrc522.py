"""The pure parts of the MFRC522 driver: CRC_A, chip selects, reset chain (CPython, MicroPython)."""

from tabletop.firmware.mfrc522 import DecodedSelect, ResetChain, crc_a, seat_board_positions
from tabletop.firmware.zones import Layout


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
    chain = ResetChain(data, clock, latch, [0, 1, 3], 5)
    chain._shift(2)  # zone 2 sits at chain position 3
    chain.release_all()
    pulse = data.values[-10:-5]
    # The far end is shifted first: positions 4, 3, 2, 1, 0.
    assert pulse == [1, 0, 1, 1, 1]
    assert data.values[-5:] == [1, 1, 1, 1, 1]  # and released
    assert latch.values[-4:] == [0, 1, 0, 1]


def test_seat_boards_take_eight_chain_positions_each():
    positions, length = seat_board_positions(Layout(2, 6, True))
    assert positions[:6] == [0, 1, 2, 3, 4, 5]
    assert positions[6] == 8 and positions[11] == 13
    assert positions[12] == 16 and length == 24


def test_two_buses_split_the_seats_and_give_the_pad_to_the_second():
    zones_a, zones_b = Layout(6, 6, True).split(2)
    assert zones_a == list(range(18)) and zones_b == list(range(18, 37))

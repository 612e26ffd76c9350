"""The touch extension on the host: golden vectors, the session's handling of TOUCH frames and
the simulated mat's touch pads through a real pty."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop.firmware.simhw import CHIP_RESPONSE_MS as RESPONSE_MS
from tabletop.hardware.mat import MatDriver, MatLayout
from tabletop.hardware.mat.cardmap import simulated_deck
from tabletop.hardware.mat.cli import sim_command
from tabletop.hardware.mat.errors import FrameError, MatError
from tabletop.hardware.mat.events import EventKind, LinkEvent, MatEvent, TouchEvent, describe_event
from tabletop.hardware.mat.framing import FrameDecoder, encode_frame
from tabletop.hardware.mat.protocol import (
    EXT_TOUCH,
    EXT_TOUCH_SIDES,
    Capabilities,
    Face,
    MessageType,
    PadSide,
    ScanSetting,
    Snapshot,
    SnapshotReason,
    Touch,
    TouchReading,
    ZoneReading,
    check_touch_zones,
    decode_message,
    describe,
    encode_snapshot,
    hello_request,
    unwrap_ms,
)
from tabletop.hardware.mat.session import MatSession
from tabletop.hardware.mat.sim import FINGER_LEAD_MS, SimulatedMat

TOUCH_VECTORS = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "tabletop"
    / "firmware"
    / "vectors"
    / "touch-v1.json"
)
SIDES_VECTORS = TOUCH_VECTORS.with_name("touch-v2.json")


@pytest.fixture(scope="module")
def touch_vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TOUCH_VECTORS.read_text())
    return data


def _decode(frame_hex: str) -> Any:
    frames = FrameDecoder().feed(bytes.fromhex(frame_hex))
    assert len(frames) == 1
    return decode_message(frames[0].msg_type, frames[0].payload)


# ---- golden vectors ---------------------------------------------------------------------


def test_capabilities_and_touch_frames_decode_to_their_fields(
    touch_vectors: dict[str, Any],
) -> None:
    checked = 0
    for vector in touch_vectors["messages"]:
        fields = vector["fields"]
        if vector["kind"] == "capabilities":
            assert _decode(vector["frame_hex"]) == Capabilities(
                fields["extensions"],
                fields["touch_version"],
                fields["touch_zones"],
                fields["sample_ms"],
                fields["debounce"],
            )
        elif vector["kind"] == "touch":
            message = _decode(vector["frame_hex"])
            assert message == Touch(
                fields["boot_id"],
                fields["seq"],
                tuple(TouchReading(z, s == 1, t) for z, s, t in fields["events"]),
            )
            check_touch_zones(message, 37)
        else:
            continue
        checked += 1
    assert checked == 6


def test_the_host_asks_for_touch_with_the_vectors_bytes(touch_vectors: dict[str, Any]) -> None:
    by_name = {v["name"]: v["frame_hex"] for v in touch_vectors["messages"]}
    assert encode_frame(*hello_request(EXT_TOUCH)).hex() == by_name["hello_request_with_touch"]
    assert encode_frame(*hello_request()).hex() == by_name["hello_request_v1_host"]


def test_a_damaged_touch_frame_is_rejected_with_a_clear_message(
    touch_vectors: dict[str, Any],
) -> None:
    layout = touch_vectors["layout"]
    zones = MatLayout(layout["seats"], layout["slots"], layout["pad"]).count
    for vector in touch_vectors["malformed"]:
        with pytest.raises(FrameError) as caught:
            message = _decode(vector["frame_hex"])
            if isinstance(message, Touch):
                check_touch_zones(message, zones)
        assert vector["error_contains"] in str(caught.value), vector["name"]
    for stream in touch_vectors["streams"]:
        decoder = FrameDecoder()
        frames = decoder.feed(bytes.fromhex(stream["stream_hex"]))
        assert [[f.msg_type, f.payload.hex()] for f in frames] == stream["frames"]
        assert decoder.stats.crc_errors == 1


def test_times_are_unwrapped_past_2_32(touch_vectors: dict[str, Any]) -> None:
    by_name = {v["name"]: v for v in touch_vectors["messages"]}
    before = by_name["touch_before_the_wrap"]["fields"]["events"][0][2]
    after = by_name["touch_after_the_wrap"]["fields"]["events"][0][2]
    first = unwrap_ms(None, before)
    assert unwrap_ms(first, after) == (1 << 32) + 5
    assert unwrap_ms(first, after) - first == 11
    assert unwrap_ms(1000, 990) == 990  # a little earlier is earlier, not 49 days later


# ---- the session ------------------------------------------------------------------------

LAYOUT = MatLayout(1, 3, False)
BOOT = 0xB76298F5


def _hello() -> bytes:
    text = b"tabletop-mat 1.0.0"
    payload = bytes([1]) + BOOT.to_bytes(4, "little") + bytes([1, 3, 0, len(text)]) + text
    return encode_frame(MessageType.HELLO, payload)


def _snapshot(seq: int) -> bytes:
    zones = tuple(ZoneReading(False, Face.UNKNOWN, False, 0) for _ in range(LAYOUT.count))
    snapshot = Snapshot(BOOT, seq, 100, SnapshotReason.BOOT, zones)
    return encode_frame(MessageType.SNAPSHOT, encode_snapshot(snapshot))


def _caps(zones: int) -> bytes:
    return encode_frame(
        MessageType.CAPABILITIES, bytes([EXT_TOUCH if zones else 0, 1, zones, 1, 2])
    )


def _touch(seq: int, *events: tuple[int, int, int]) -> bytes:
    payload = BOOT.to_bytes(4, "little") + seq.to_bytes(2, "little") + bytes([len(events)])
    for zone, state, t_ms in events:
        payload += bytes([zone, state]) + (t_ms % (1 << 32)).to_bytes(4, "little")
    return encode_frame(MessageType.TOUCH, payload)


def _session(caps: bytes | None) -> tuple[MatSession, list[MatEvent]]:
    session = MatSession("test", simulated_deck())
    session.opened(0.0)
    assert session.take_outgoing() == [encode_frame(*hello_request(EXT_TOUCH | EXT_TOUCH_SIDES))]
    events = session.receive(_hello() + (caps or b"") + _snapshot(1), 0.1)
    return session, events


def test_touch_frames_become_touch_and_release_events() -> None:
    session, events = _session(_caps(3))
    assert [e.to_json() for e in events] == [
        {
            "event": "link_up",
            "port": "test",
            "firmware": "tabletop-mat 1.0.0",
            "boot_id": "b76298f5",
            "touch_zones": 3,
        }
    ]
    events = session.receive(_touch(1, (1, 1, 5000), (2, 1, 5003)) + _touch(2, (1, 0, 5200)), 0.2)
    assert [e.to_json() for e in events] == [
        {"event": "touch", "zone": "s1.2", "t_ms": 5000, "boot_id": "b76298f5"},
        {"event": "touch", "zone": "s1.3", "t_ms": 5003, "boot_id": "b76298f5"},
        {"event": "release", "zone": "s1.2", "t_ms": 5200, "boot_id": "b76298f5"},
    ]
    assert all(isinstance(e, TouchEvent) and e.at == 0.2 for e in events)
    # Past the wrap of the wire's u32 (49.7 days after boot) the times keep counting up.
    session, _ = _session(_caps(3))
    events = session.receive(_touch(3, (0, 1, (1 << 32) - 2)) + _touch(4, (0, 0, 3)), 0.3)
    times = [e.t_ms for e in events if isinstance(e, TouchEvent)]
    assert times[1] - times[0] == 5 and times[1] == (1 << 32) + 3


def test_a_damaged_or_impossible_touch_frame_gives_no_event_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session, _ = _session(_caps(3))
    bad_zone = _touch(1, (7, 1, 100))  # this mat has 3 zones
    flipped = bytearray(_touch(2, (0, 1, 200)))
    flipped[9] ^= 0x01
    with caplog.at_level(logging.WARNING):
        events = session.receive(bad_zone + bytes(flipped), 0.2)
    assert [e.to_json()["event"] for e in events] == ["resync"]
    assert session.stats.malformed == 1 and session.decoder.stats.crc_errors == 1
    assert "TOUCH: event 0 names zone 7; the mat has 3 zones" in caplog.text
    assert session.stats.touches == 0


def test_a_lost_touch_frame_is_counted_and_a_repeat_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    session, _ = _session(_caps(3))
    session.receive(_touch(1, (0, 1, 100)), 0.2)
    with caplog.at_level(logging.WARNING):
        events = session.receive(_touch(4, (0, 0, 400)) + _touch(4, (0, 0, 400)), 0.3)
    assert [e.to_json()["event"] for e in events] == ["release"]
    assert session.stats.touch_gaps == 2
    assert "2 touch frame(s) lost" in caplog.text


def test_a_mat_without_the_extension_or_the_pads_has_no_touch_zones() -> None:
    for caps in (None, _caps(0)):
        session, events = _session(caps)
        (up,) = events
        assert isinstance(up, LinkEvent) and up.to_json()["touch_zones"] == 0
        assert session.touch_zones == 0


# ---- touch extension v2: sides (src/tabletop/firmware/vectors/touch-v2.json) -----------------------------


def test_touch_v2_vectors_decode_to_their_fields_and_the_host_asks_with_their_bytes() -> None:
    vectors = json.loads(SIDES_VECTORS.read_text())
    checked = 0
    for vector in vectors["messages"]:
        fields = vector["fields"]
        if vector["kind"] == "hello_request":
            sides = hello_request(EXT_TOUCH | EXT_TOUCH_SIDES)
            assert encode_frame(*sides).hex() == vector["frame_hex"]
        elif vector["kind"] == "capabilities":
            assert _decode(vector["frame_hex"]) == Capabilities(
                fields["extensions"],
                2,
                fields["touch_zones"],
                fields["sample_ms"],
                fields["debounce"],
                frozenset(fields["split_zones"]),
            )
        else:
            message = _decode(vector["frame_hex"])
            assert message == Touch(
                fields["boot_id"],
                fields["seq"],
                tuple(
                    TouchReading(z, s == 1, t, PadSide(side)) for z, s, t, side in fields["events"]
                ),
                sides=True,
            )
            check_touch_zones(message, 37)
        checked += 1
    assert checked == 7
    for vector in vectors["malformed"]:
        with pytest.raises(FrameError) as caught:
            message = _decode(vector["frame_hex"])
            if isinstance(message, Touch):
                check_touch_zones(message, 37)
        assert vector["error_contains"] in str(caught.value), vector["name"]
    for stream in vectors["streams"]:
        frames = FrameDecoder().feed(bytes.fromhex(stream["stream_hex"]))
        assert [[f.msg_type, f.payload.hex()] for f in frames] == stream["frames"]


def _caps_v2(zones: int, split: set[int]) -> bytes:
    bitmap = bytearray((zones + 7) // 8)
    for zone in split:
        bitmap[zone // 8] |= 1 << (zone % 8)
    head = bytes([EXT_TOUCH | EXT_TOUCH_SIDES, 2, zones, 1, 2])
    return encode_frame(MessageType.CAPABILITIES, head + bytes(bitmap))


def _touch_sides(seq: int, *events: tuple[int, int, int, int]) -> bytes:
    payload = BOOT.to_bytes(4, "little") + seq.to_bytes(2, "little") + bytes([len(events)])
    for zone, state, t_ms, side in events:
        payload += bytes([zone, state, side]) + t_ms.to_bytes(4, "little")
    return encode_frame(MessageType.TOUCH_SIDES, payload)


def test_touches_from_split_pads_carry_their_side_and_whole_pads_none() -> None:
    session, _ = _session(_caps_v2(3, {1, 2}))
    assert session.capabilities is not None and session.capabilities.sides
    events = session.receive(
        _touch_sides(1, (1, 1, 5000, 2), (1, 1, 5009, 1), (0, 1, 5010, 0), (2, 1, 5011, 0))
        + _touch_sides(2, (1, 0, 5200, 0)),
        0.2,
    )
    assert [e.to_json() for e in events] == [
        {"event": "touch", "zone": "s1.2", "t_ms": 5000, "boot_id": "b76298f5", "side": "far"},
        {"event": "touch", "zone": "s1.2", "t_ms": 5009, "boot_id": "b76298f5", "side": "near"},
        # s1.1 is a whole pad: no side at all; s1.3 split, both halves at once: unknown
        {"event": "touch", "zone": "s1.1", "t_ms": 5010, "boot_id": "b76298f5"},
        {"event": "touch", "zone": "s1.3", "t_ms": 5011, "boot_id": "b76298f5", "side": "unknown"},
        {"event": "release", "zone": "s1.2", "t_ms": 5200, "boot_id": "b76298f5"},
    ]
    assert describe_event(events[0]) == "s1.2: touched at 5000 ms (far half first)"
    # A mat of touch version 1 answers the same request with TOUCH frames: no sides.
    session, _ = _session(_caps(3))
    assert session.capabilities is not None and not session.capabilities.sides
    (event,) = session.receive(_touch(1, (1, 1, 100)), 0.2)
    assert isinstance(event, TouchEvent) and event.side is None


def test_the_session_tells_the_mat_its_split_seats_at_every_hello() -> None:
    def configure_sent(split_seats: int | None) -> bytes:
        session = MatSession("test", simulated_deck(), split_seats=split_seats)
        session.opened(0.0)
        session.take_outgoing()
        session.receive(_hello(), 0.1)
        (configure_frame,) = session.take_outgoing()
        (frame,) = FrameDecoder().feed(configure_frame)
        assert frame.msg_type == MessageType.CONFIGURE
        return frame.payload

    calibration = configure_sent(None)  # the deck's calibration alone
    split = configure_sent(0b11)
    assert split[0] == calibration[0] + 1 and split[1:-3] == calibration[1:]
    assert split[-3:] == bytes([int(ScanSetting.SPLIT_SEATS), 0b11, 0])


# ---- the simulated mat through a real pty ------------------------------------------------


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[SimulatedMat, MatDriver]]:
    mat = SimulatedMat(MatLayout(2, 3, True), link_dir=str(tmp_path), miss_rate=0.0)
    path = mat.start()
    driver = MatDriver(path)
    driver.start()
    try:
        up = _wait_for(driver, lambda e: isinstance(e, LinkEvent))
        assert isinstance(up, LinkEvent) and up.kind is EventKind.LINK_UP
        assert up.touch_zones == 7
        yield mat, driver
    finally:
        driver.close()
        mat.stop()


def _wait_for(driver: MatDriver, match: Any, timeout: float = 5.0) -> MatEvent:
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = driver.get_event(0.05)
        if event is None:
            continue
        if match(event):
            return event
        seen.append(event.to_json())
    raise AssertionError(f"no matching event in {timeout} s; saw {seen}")


def _touch_event(driver: MatDriver) -> TouchEvent:
    event = _wait_for(driver, lambda e: isinstance(e, TouchEvent))
    assert isinstance(event, TouchEvent)
    return event


def test_a_touch_on_the_simulated_mat_reaches_the_driver_with_the_mats_time(
    rig: tuple[SimulatedMat, MatDriver],
) -> None:
    mat, driver = rig
    before = mat.touch_ms()
    mat.touch("s2.3")
    touched = _touch_event(driver)
    assert (touched.kind, touched.zone) == (EventKind.TOUCH, "s2.3")
    # The chip's 4 ms filter, then the first poll: the time lies after the finger landed.
    assert before + 4 <= touched.t_ms <= mat.touch_ms()
    mat.release("s2.3")
    released = _touch_event(driver)
    assert (released.kind, released.zone) == (EventKind.RELEASE, "s2.3")
    assert released.t_ms > touched.t_ms
    # Two fingers in turn are told apart in that order, each dated when it was felt: on a
    # held clock, stepped 200 ms between them, exactly 200 ms apart.
    mat.clock.hold()
    before = mat.touch_ms()
    mat.touch("s1.1")
    mat.clock.advance(RESPONSE_MS)
    first = _touch_event(driver)
    mat.clock.advance(200)
    mat.touch("pad")
    mat.clock.advance(RESPONSE_MS)
    second = _touch_event(driver)
    mat.clock.resume()
    assert (first.zone, second.zone) == ("s1.1", "pad")
    assert (first.t_ms, second.t_ms) == (before + RESPONSE_MS, before + 2 * RESPONSE_MS + 200)


def test_the_sim_commands_touch_and_release(rig: tuple[SimulatedMat, MatDriver]) -> None:
    mat, driver = rig
    assert sim_command(mat, ["touch", "s1.2"]).startswith("ok touch s1.2 at=")
    assert _touch_event(driver).zone == "s1.2"
    assert sim_command(mat, ["release", "s1.2"]).startswith("ok release s1.2 at=")
    assert _touch_event(driver).kind is EventKind.RELEASE
    with pytest.raises(MatError, match="no zone 's9.9'"):
        sim_command(mat, ["touch", "s9.9"])
    with pytest.raises(MatError, match="usage: touch ZONE"):
        sim_command(mat, ["touch"])


def test_an_old_host_gets_no_touch_frames_and_a_padless_mat_says_so(tmp_path: Path) -> None:
    mat = SimulatedMat(MatLayout(2, 3, False), link_dir=str(tmp_path), miss_rate=0.0)
    driver = MatDriver(mat.start())
    driver.session.ask_touch = False  # a host of before the touch extension
    driver.start()
    try:
        assert isinstance(_wait_for(driver, lambda e: isinstance(e, LinkEvent)), LinkEvent)
        mat.clock.hold()
        mat.touch("s1.1")
        mat.clock.advance(RESPONSE_MS)
        mat.wait_polled()  # the firmware has felt it (and would have sent it by now)
        mat.clock.resume()
        # A PING's PONG as a barrier: whatever the mat sent before it is queued by then.
        nonce = driver.ping()
        while driver.pongs.get(timeout=30).nonce != nonce:
            pass
        events = []
        while (event := driver.get_event(0)) is not None:
            events.append(event)
        assert not [e for e in events if isinstance(e, TouchEvent)]
        assert driver.stats.malformed == 0 and driver.decoder.stats.damaged == 0
    finally:
        driver.close()
        mat.stop()
    bare = SimulatedMat(MatLayout(2, 3, False), link_dir=str(tmp_path), touch_pads=False)
    driver = MatDriver(bare.start())
    driver.start()
    try:
        up = _wait_for(driver, lambda e: isinstance(e, LinkEvent))
        assert isinstance(up, LinkEvent) and up.touch_zones == 0
        with pytest.raises(MatError, match="no touch pads"):
            bare.touch("s1.1")
    finally:
        driver.close()
        bare.stop()


def test_the_monitor_shows_touches_and_their_frames(touch_vectors: dict[str, Any]) -> None:
    by_name = {v["name"]: v["frame_hex"] for v in touch_vectors["messages"]}
    assert describe(_decode(by_name["release_s2_4_and_touch_s3_4"])) == (
        "TOUCH boot=b76298f5 seq=2 [9:release@123789 15:touch@123790]"
    )
    assert describe(_decode(by_name["capabilities_no_touch_pads"])) == (
        "CAPABILITIES extensions=0x00 touch=v1 touch_zones=0 sample=0ms debounce=0"
    )
    event = TouchEvent(EventKind.TOUCH, "s2.4", 123456, BOOT)
    assert describe_event(event) == "s2.4: touched at 123456 ms"
    up = LinkEvent(EventKind.LINK_UP, "/dev/ttyACM0", "tabletop-mat 1.0.0", BOOT, 37)
    assert describe_event(up).endswith("(tabletop-mat 1.0.0, touch pads on 37 zones)")


def test_the_simulated_mats_split_pads_feel_the_side_a_hand_comes_from(tmp_path: Path) -> None:
    mat = SimulatedMat(MatLayout(2, 3, True), link_dir=str(tmp_path), miss_rate=0.0, split_seats=2)
    driver = MatDriver(mat.start())
    driver.start()
    try:
        _wait_for(driver, lambda e: isinstance(e, LinkEvent))
        caps = driver.session.capabilities
        assert caps is not None and caps.sides and caps.split_zones == {3, 4, 5}
        # The mat's clock held and stepped: each half is felt when the clock steps past it,
        # however late the host lets the firmware poll.
        mat.clock.hold()
        landed = mat.touch_ms()
        mat.touch("s2.1", hand=0)  # seat 1's hand on seat 2's slot: from across the table
        mat.clock.advance(RESPONSE_MS)  # the far half, through the chip's filter
        far = _touch_event(driver)
        mat.clock.advance(FINGER_LEAD_MS)  # the fingertip spreading to the near half
        near = _touch_event(driver)
        assert (far.zone, far.side, near.zone, near.side) == (
            "s2.1",
            PadSide.FAR,
            "s2.1",
            PadSide.NEAR,
        )
        assert far.t_ms == landed + RESPONSE_MS
        assert near.t_ms - far.t_ms == FINGER_LEAD_MS  # the fingertip spreading, not a second hand
        mat.clock.resume()
        mat.release("s2.1")
        released = _touch_event(driver)
        assert released.kind is EventKind.RELEASE and released.side is None
        # the owner's own hand, on the held clock too: on the running one a host that lets the
        # firmware poll late finds both halves touched at once, and no side to tell (a stress
        # run's red one, seed 1836181316)
        mat.clock.hold()
        mat.touch("s2.2")
        mat.clock.advance(RESPONSE_MS)
        assert _touch_event(driver).side is PadSide.NEAR
        mat.clock.resume()
        mat.touch("s1.1", hand=1)  # seat 1's pads are whole: no side to tell
        # (the fingertip spreading to s2.2's far half may be told too, before it)
        whole = _wait_for(driver, lambda e: isinstance(e, TouchEvent) and e.zone == "s1.1")
        assert isinstance(whole, TouchEvent)
        assert (whole.zone, whole.kind, whole.side) == ("s1.1", EventKind.TOUCH, None)
    finally:
        driver.close()
        mat.stop()


def test_a_sim_url_names_its_split_seats_and_refuses_a_seat_it_lacks() -> None:
    assert SimulatedMat.from_url("sim:?seats=3&split=1,3").split_seats == 0b101
    assert SimulatedMat.from_url("sim:?seats=4&split=all").split_seats == 0b1111
    assert SimulatedMat.from_url("sim:?seats=2").split_seats == 0
    with pytest.raises(MatError, match="split must be seat numbers 1-2 or all, not '3'"):
        SimulatedMat.from_url("sim:?seats=2&split=3")

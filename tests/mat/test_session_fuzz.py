"""Fuzzing the host's decoder and session: damaged, dropped, duplicated and random bytes.

Properties: nothing raises; a snapshot is adopted only if the mat really sent it; every card
event is explained by two genuine snapshots, so replaying the events rebuilds exactly the
mat the host believes in; and the last genuine snapshot, when it arrives intact, wins.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.hardware.mat.cardmap import simulated_deck
from tabletop.hardware.mat.events import CardEvent, EventKind, MatEvent
from tabletop.hardware.mat.framing import encode_frame
from tabletop.hardware.mat.protocol import (
    Face,
    MessageType,
    Snapshot,
    SnapshotReason,
    ZoneReading,
    encode_snapshot,
)
from tabletop.hardware.mat.session import MatSession

DECK = simulated_deck()
UIDS = [bytes.fromhex(uid) for uid in sorted(DECK.cards)[:6]] + [bytes.fromhex("04AABBCCDDEEFF")]
ZONES = 3  # one seat of two slots, and the pad
BOOT = 0x1234
HELLO = encode_frame(
    MessageType.HELLO, bytes([1]) + BOOT.to_bytes(4, "little") + bytes([1, 2, 1, 3]) + b"sim"
)

zone_state = st.one_of(
    st.none(), st.tuples(st.sampled_from(UIDS), st.sampled_from([Face.UP, Face.DOWN]))
)
mat_states = st.lists(st.lists(zone_state, min_size=ZONES, max_size=ZONES), min_size=1, max_size=8)


def genuine_snapshots(states: list[list[tuple[bytes, Face] | None]]) -> list[Snapshot]:
    """Snapshots a mat would send for these successive states (generations kept honestly)."""
    generations = [0] * ZONES
    previous: list[tuple[bytes, Face] | None] = [None] * ZONES
    snapshots = []
    for seq, state in enumerate(states, start=1):
        zones = []
        for index, held in enumerate(state):
            if held != previous[index]:
                generations[index] = (generations[index] + 1) & 0xFF
            if held is None:
                zones.append(ZoneReading(False, Face.UNKNOWN, False, generations[index]))
            else:
                uid, face = held
                zones.append(ZoneReading(True, face, False, generations[index], 100, 11000, uid))
        previous = list(state)
        snapshots.append(Snapshot(BOOT, seq, seq * 100, SnapshotReason.CHANGE, tuple(zones)))
    return snapshots


def frame_of(snapshot: Snapshot) -> bytes:
    return encode_frame(MessageType.SNAPSHOT, encode_snapshot(snapshot))


def opened_session() -> MatSession:
    session = MatSession("fuzz", DECK)
    session.opened(0.0)
    return session


def replay(events: list[MatEvent], board: dict[str, str]) -> None:
    """Applies card events to a board of zone -> UID, failing on any event that cannot be."""
    for event in events:
        if not isinstance(event, CardEvent):
            continue
        if event.kind in (EventKind.PLACED, EventKind.UNKNOWN_CARD):
            assert event.zone not in board, f"{event} on an occupied zone"
            board[event.zone] = event.uid
        elif event.kind is EventKind.REMOVED:
            assert board.pop(event.zone, None) == event.uid, f"{event} of a card not there"
        else:
            assert board.get(event.zone) == event.uid, f"{event} of a card not there"


def believed(session: MatSession) -> dict[str, str]:
    assert session.snapshot is not None and session.layout is not None
    return {
        session.layout.name(i): z.uid.hex().upper()
        for i, z in enumerate(session.snapshot.zones)
        if z.present
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(noise=st.binary(min_size=0, max_size=3000), states=mat_states)
def test_random_bytes_never_move_a_card(
    noise: bytes, states: list[list[tuple[bytes, Face] | None]]
) -> None:
    session = opened_session()
    first = genuine_snapshots(states)[0]
    session.receive(HELLO + frame_of(first), 0.01)
    before = session.snapshot
    assert before == first
    events = session.receive(noise, 0.02) + session.tick(5.0)
    assert not [e for e in events if isinstance(e, CardEvent)]
    assert session.snapshot == before


mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10_000), st.integers(0, 7)),
    st.tuples(st.just("drop"), st.integers(0, 100), st.just(0)),
    st.tuples(st.just("duplicate"), st.integers(0, 100), st.integers(0, 100)),
    st.tuples(st.just("truncate"), st.integers(0, 100), st.integers(1, 60)),
    st.tuples(st.just("garbage"), st.integers(0, 100), st.integers(1, 255)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    states=mat_states,
    mutations=st.lists(mutation, max_size=6),
    chunk=st.integers(1, 200),
)
def test_damaged_streams_only_ever_give_true_events(
    states: list[list[tuple[bytes, Face] | None]],
    mutations: list[tuple[str, int, int]],
    chunk: int,
) -> None:
    snapshots = genuine_snapshots(states)
    frames = [bytearray(frame_of(s)) for s in snapshots]
    last_intact = True
    for kind, where, amount in mutations:
        if not frames:
            break
        index = where % len(frames)
        last = index == len(frames) - 1
        if kind == "flip":
            frame = frames[index]
            frame[(where // len(frames)) % len(frame)] ^= 1 << amount
            last_intact &= not last
        elif kind == "drop":
            del frames[index]
            last_intact &= not last
        elif kind == "duplicate":
            frames.insert(amount % (len(frames) + 1), bytearray(frames[index]))
            last_intact = False  # an old copy may now come last
        elif kind == "truncate":
            frames[index] = frames[index][: max(1, len(frames[index]) - amount)]
            last_intact &= not last
        else:
            frames.insert(index, bytearray([0xA5, 1, 2, amount]) + bytes(amount % 7))
    stream = HELLO + b"".join(bytes(f) for f in frames)

    session = opened_session()
    board: dict[str, str] = {}
    now = 0.0
    for at in range(0, len(stream), chunk):
        now += 0.001
        replay(session.receive(stream[at : at + chunk], now), board)
        assert session.snapshot is None or session.snapshot in snapshots
    replay(session.tick(now + 1.0), board)
    if session.snapshot is not None:
        assert board == believed(session)
        # Snapshot requests went out for damage; none for a clean stream.
    if last_intact and frames and session.snapshot is not None:
        assert session.snapshot == snapshots[-1]
    if not mutations:
        assert session.snapshot == snapshots[-1]
        assert session.stats.requests == 0


def test_a_damaged_frame_makes_the_host_ask_for_a_snapshot() -> None:
    states: list[list[tuple[bytes, Face] | None]] = [
        [None, None, None],
        [(UIDS[0], Face.UP), None, None],
    ]
    first, second = genuine_snapshots(states)
    damaged = bytearray(frame_of(second))
    damaged[12] ^= 0x04
    session = opened_session()
    session.receive(HELLO + frame_of(first), 0.0)
    session.take_outgoing()
    events = session.receive(bytes(damaged), 0.5)
    assert [e.to_json() for e in events] == [
        {"event": "resync", "reason": "1 damaged frame (1 CRC error)"}
    ]
    assert session.take_outgoing() == [encode_frame(MessageType.SNAPSHOT_REQUEST)]
    events = session.receive(frame_of(second), 0.6)
    assert [e.to_json() for e in events if isinstance(e, CardEvent)] == [
        {
            "event": "placed",
            "zone": "s1.1",
            "card": DECK.cards[UIDS[0].hex().upper()].code,
            "face": "up",
        }
    ]


def test_a_gap_in_the_sequence_is_reported_and_a_missed_lift_shows_as_replaced() -> None:
    held = (UIDS[1], Face.DOWN)
    states: list[list[tuple[bytes, Face] | None]] = [
        [held, None, None],
        [None, None, None],  # lost on the line
        [held, None, None],
    ]
    first, _, third = genuine_snapshots(states)
    session = opened_session()
    session.receive(HELLO + frame_of(first), 0.0)
    events = session.receive(frame_of(third), 0.5)
    kinds = [e.to_json()["event"] for e in events]
    assert kinds == ["resync", "replaced"]
    assert session.stats.gaps == 1


def test_a_restarted_mat_with_the_same_cards_gives_no_card_events() -> None:
    held = (UIDS[2], Face.UP)
    (first,) = genuine_snapshots([[held, None, None]])
    session = opened_session()
    session.receive(HELLO + frame_of(first), 0.0)
    rebooted = Snapshot(0x9999, 1, 5, SnapshotReason.BOOT, first.zones)
    events = session.receive(frame_of(rebooted), 0.5)
    assert [e.to_json() for e in events] == [
        {"event": "resync", "reason": "mat restarted (boot 00009999)"}
    ]


def test_a_silent_mat_is_reported_down_once() -> None:
    (first,) = genuine_snapshots([[None, None, None]])
    session = opened_session()
    events = session.receive(HELLO + frame_of(first), 0.0)
    assert [e.to_json()["event"] for e in events] == ["link_up"]
    events = session.tick(3.5) + session.tick(4.0)
    assert [e.to_json() for e in events] == [
        {"event": "link_down", "port": "fuzz", "reason": "no snapshot for 3 s"}
    ]


def test_a_mat_speaking_another_version_is_named() -> None:
    import zlib

    body = bytes([2, 0x01, 0, 0])
    frame = bytes([0xA5]) + body + zlib.crc32(body).to_bytes(4, "little")
    session = opened_session()
    events = session.receive(frame + frame, 0.0)
    assert len(events) == 1
    assert "the mat speaks protocol v2; this host speaks v1" in events[0].to_json()["reason"]

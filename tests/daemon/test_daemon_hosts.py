"""Several daemon hosts on one PostgreSQL log share a room's tables evenly by their leases.

Each daemon runs on a thread of the test with its own MQTT link and its own database
connection; a host's death is its connection ended by the server (pg_terminate_backend), which
ends its leases as a power cut would.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import psycopg
from daemon_helpers import ROSTER, Mosquitto, client, wait_until

from tabletop.daemon.service import RoomDaemon
from tabletop.servers import PostgreSQL


class Host:
    """One daemon host: a RoomDaemon serving on its own thread."""

    def __init__(self, broker: Mosquitto, tables: list[str], db: str, name: str) -> None:
        self.daemon = RoomDaemon(broker.url, tables, db, name=name)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.daemon.run, args=(self.stop_event,))

    def start(self) -> None:
        self.daemon.start(timeout=10)
        self.thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        if self.thread.is_alive():
            self.thread.join(10)
        self.daemon.close()

    def die(self, db: str) -> None:
        """Stops serving at once and loses the database, leases and all, without a word."""
        self.stop_event.set()
        self.thread.join(10)
        own, _ = self.daemon.database.room_loads(None)
        with psycopg.connect(db, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (own,))


@contextlib.contextmanager
def hosts() -> Iterator[list[Host]]:
    started: list[Host] = []
    try:
        yield started
    finally:
        for host in started:
            with contextlib.suppress(Exception):
                host.stop()


def test_hosts_share_tables_evenly_take_a_dying_host_s_share_never_serve_one_twice(
    mosquitto: Mosquitto, table: str, postgresql: PostgreSQL
) -> None:
    db = postgresql.new_database()
    tables = [f"{table}-{n}" for n in range(9)]
    with hosts() as started:

        def counts() -> list[int]:
            while True:
                try:  # read while the daemons' threads change them
                    served = [
                        set(host.daemon.servers) for host in started if host.thread.is_alive()
                    ]
                    break
                except RuntimeError:
                    continue
            # never served twice: no table in two daemons at once
            assert sum(map(len, served)) == len(set().union(*served))
            return sorted(map(len, served))

        first = Host(mosquitto, tables, db, f"{table}-a")
        started.append(first)
        first.start()
        assert counts() == [9]  # alone, a host serves the whole room
        with client(mosquitto.url, tables[0]) as gm:
            assert gm.send({**ROSTER, "id": "before"})["ok"]
        for name in "bc":
            host = Host(mosquitto, tables, db, f"{table}-{name}")
            started.append(host)
            host.start()
        # those that join take a share: three by three
        wait_until(lambda: counts() == [3, 3, 3], 30, "an even share")
        holder = next(host for host in started if tables[0] in host.daemon.servers)
        holder.die(db)
        # the dying host's three go to the two others; each table served, by one of them
        wait_until(lambda: counts() == [4, 5], 30, "the dead host's tables taken over")
        with client(mosquitto.url, tables[0]) as gm:
            assert gm.send({**ROSTER, "id": "before"})["duplicate"]  # the log moved with it
            after = gm.send({"cmd": "reveal", "player": "Ana", "slot": 2, "id": "after"})
            assert after["ok"] and after["seq"] == 2

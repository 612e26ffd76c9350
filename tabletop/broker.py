"""The embedded MQTT broker (amqtt, MQTT 3.1.1) and `tabletop broker`, which runs it on its own.

A fresh machine needs nothing installed to run a table: with no broker URL configured the
rules daemon starts this broker in-process (see `broker_for`). In deployment a real broker
(Mosquitto) takes its place, named by an mqtt:// or mqtts:// URL.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import signal
import threading
from concurrent.futures import Future
from typing import Any

from .mqtt import BROKER_ENV, DEFAULT_BROKER_URL, BrokerUrl, MqttError, parse_broker_url

log = logging.getLogger(__name__)


class BrokerStartError(MqttError):
    """The embedded broker could not listen where it was asked to."""

    def __init__(self, message: str, address_in_use: bool = False) -> None:
        super().__init__(message)
        self.address_in_use = address_in_use


class EmbeddedBroker:
    """An amqtt broker on its own thread and event loop, started and stopped from plain code."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None
        self._stopped: asyncio.Event | None = None

    @property
    def url(self) -> BrokerUrl:
        """How clients reach this broker."""
        return BrokerUrl("mqtt", self.host, self.port)

    def start(self, timeout: float = 10.0) -> None:
        """Listens on host:port; raises BrokerStartError if it cannot (address_in_use says why)."""
        # amqtt and its state machine library log every connection at INFO; keep them to
        # warnings so `tabletop -v` shows the table's own log.
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))
        started: Future[None] = Future()
        self._thread = threading.Thread(
            target=self._run, args=(started,), name=f"amqtt:{self.port}", daemon=True
        )
        self._thread.start()
        try:
            started.result(timeout)
        except OSError as error:
            self._thread.join(timeout)
            in_use = error.errno == errno.EADDRINUSE
            reason = "the address is in use" if in_use else (error.strerror or str(error))
            raise BrokerStartError(
                f"the embedded broker cannot listen on {self.host}:{self.port}: {reason}",
                address_in_use=in_use,
            ) from error

    def stop(self, timeout: float = 10.0) -> None:
        """Disconnects every client and closes the listener."""
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None

    def _config(self) -> dict[str, Any]:
        return {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            # Only anonymous login: the default plugin set also logs every packet and
            # publishes $SYS topics every 20 s, which a table does not need.
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}
            },
        }

    def _run(self, started: Future[None]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve(started))
        except Exception as error:  # the start error is reported through `started`
            if not started.done():
                started.set_exception(error)
            else:
                log.exception("the embedded broker stopped on an error")
        finally:
            loop.close()

    async def _serve(self, started: Future[None]) -> None:
        from amqtt.broker import Broker

        self._stopped = asyncio.Event()
        # amqtt binds lazily inside start() and wraps OSError; probe the port first so a
        # busy port is reported as such.
        probe = await asyncio.start_server(lambda r, w: None, self.host, self.port)
        probe.close()
        await probe.wait_closed()
        writers: list[asyncio.StreamWriter] = []

        class _Broker(Broker):  # type: ignore[misc]
            async def stream_connected(
                self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, listener_name: str
            ) -> None:
                writers[:] = [w for w in writers if not w.is_closing()]
                writers.append(writer)
                try:
                    await super().stream_connected(reader, writer, listener_name)
                finally:
                    # amqtt does not always close the socket when a session ends
                    if not writer.is_closing():
                        writer.close()

        broker = _Broker(self._config())
        self._broker = broker
        await broker.start()
        started.set_result(None)
        await self._stopped.wait()
        # amqtt's shutdown() can hang while a client is still connected (its reader task does
        # not take the cancellation), so drop every connection first, then shut down.
        for writer in writers:
            writer.close()
        await asyncio.sleep(0.05)
        try:
            await asyncio.wait_for(broker.shutdown(), timeout=5)
        except TimeoutError:
            log.warning("the embedded broker did not shut down in 5 s; stopping it anyway")
        # End what amqtt leaves running, so its sockets close while the loop still runs.
        current = asyncio.current_task()
        leftover = [task for task in asyncio.all_tasks() if task is not current]
        for task in leftover:
            task.cancel()
        await asyncio.gather(*leftover, return_exceptions=True)


def broker_for(url_text: str | None) -> tuple[BrokerUrl, EmbeddedBroker | None]:
    """Where to connect for a configured URL (or $TABLETOP_BROKER, or the embedded default).

    For an embedded:// URL it starts the embedded broker and returns it, unless something
    already listens there (then it assumes that is a broker, such as `tabletop broker`).
    """
    url = parse_broker_url(url_text or os.environ.get(BROKER_ENV) or DEFAULT_BROKER_URL)
    if not url.embedded:
        return url, None
    broker = EmbeddedBroker(url.host, url.port)
    try:
        broker.start()
    except BrokerStartError as error:
        if not error.address_in_use:
            raise
        log.info("something already listens on %s:%d: using it as the broker", url.host, url.port)
        return BrokerUrl("mqtt", url.host, url.port), None
    log.info("embedded MQTT broker listening on %s:%d", url.host, url.port)
    return broker.url, broker


def client_url(url_text: str | None) -> BrokerUrl:
    """The URL a client (not hosting a broker) connects to: embedded:// becomes mqtt://."""
    url = parse_broker_url(url_text or os.environ.get(BROKER_ENV) or DEFAULT_BROKER_URL)
    return BrokerUrl("mqtt", url.host, url.port) if url.embedded else url


def register(subparsers: Any) -> None:
    """Adds the `broker` subcommand."""
    parser = subparsers.add_parser(
        "broker",
        help="run the embedded MQTT broker (amqtt) on its own",
        description="Runs the embedded MQTT 3.1.1 broker until Ctrl-C. Needs no installation; "
        "for deployment prefer Mosquitto.",
    )
    parser.add_argument(
        "--bind",
        default="127.0.0.1:1883",
        metavar="HOST:PORT",
        help="address to listen on (default 127.0.0.1:1883; 0.0.0.0:1883 for the whole network)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Runs the broker in the foreground until interrupted or terminated."""
    from .cli import UserError

    host, _, port_text = str(args.bind).rpartition(":")
    if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UserError(f"--bind {args.bind!r}: expected HOST:PORT, e.g. 127.0.0.1:1883")
    broker = EmbeddedBroker(host, int(port_text))
    try:
        broker.start()
    except BrokerStartError as error:
        raise UserError(str(error)) from error
    print(f"MQTT broker listening on {host}:{port_text} (Ctrl-C stops it)", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        broker.stop()
    return 0

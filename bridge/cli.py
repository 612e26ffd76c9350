"""`tabletop bridge --config table.toml`: runs the table's devices against MQTT."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from errors import UserError
from wire.broker_option import BrokerOption


def register(subparsers: Any) -> None:
    """Adds the `bridge` subcommand."""
    parser = subparsers.add_parser(
        "bridge",
        help="run the Pi's bridge: sensor mat, dice camera and seat LEDs over MQTT",
        description="Reads the sensor mat and the dice camera and publishes what happens; shows "
        "the rules daemon's LED frames on the seat LEDs (docs/mqtt.md).",
    )
    parser.add_argument("--config", required=True, metavar="TABLE.toml", help="the table's file")
    parser.add_argument(
        "--broker",
        metavar="URL",
        action=BrokerOption,
        help="overrides [broker] url (default: the file's, else the embedded broker's "
        "address); repeat it, or give a comma-separated list, for a broker cluster's nodes",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Runs the bridge until SIGINT or SIGTERM."""
    from bridge.bridge import Bridge
    from bridge.config import ConfigError, load_config
    from hardware.leds import LedError, open_leds
    from hardware.mat import MatError, open_mat
    from wire.broker import client_url
    from wire.mqtt import MqttError, NotConnected

    try:
        config = load_config(args.config)
        # The bridge logs in as its own user ([broker.bridge]), never as the rules daemon.
        url = config.broker.url_for("bridge", client_url(args.broker or config.broker.url))
    except (ConfigError, MqttError) as error:
        raise UserError(str(error)) from error
    cards = None
    if config.mat.cards is not None:
        from hardware.mat import CardMap

        try:
            cards = CardMap.load(config.mat.cards)
        except (OSError, MatError) as error:
            raise UserError(f"mat.cards: {error}") from error
    from bridge.dice import AwaitedThrow, camera_throws

    # The camera's watcher expects the throw the table's prompt awaits.
    awaited = AwaitedThrow()
    dice = camera_throws(
        config.camera.source, config.camera.calibration, awaited, config.camera.dice_model
    )
    bridge = Bridge(
        url,
        config.table,
        open_mat(config.mat.port, cards),
        open_leds(config.leds),
        dice=dice,
        expect=awaited.set,
    )
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        bridge.start(timeout=None)
    except (LedError, MatError, NotConnected) as error:
        raise UserError(str(error)) from error
    print(f"bridge: table {config.table!r}, mat {config.mat.port}, broker {url}", file=sys.stderr)
    try:
        bridge.run(stop)
    finally:
        bridge.close()
    return 0

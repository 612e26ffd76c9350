"""`tabletop bridge --config table.toml`: runs the table's devices against MQTT."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from typing import Any

from tabletop.errors import UserError
from tabletop.hardware import CAMERA_ENV, LEDS_ENV, MAT_ENV
from tabletop.wire.broker_option import BrokerOption

log = logging.getLogger("tabletop.bridge.bridge")
# The environment swaps the devices the table file names (a dry run of the Pi's file on a
# laptop; the tests of the shipped examples): the file is never edited for it
# (tabletop.hardware: MAT_ENV, CAMERA_ENV, LEDS_ENV).


def register(subparsers: Any) -> None:
    """Adds the `bridge` subcommand."""
    parser = subparsers.add_parser(
        "bridge",
        help="run the Pi's bridge: sensor mat, dice camera and seat LEDs over MQTT",
        description="Reads the sensor mat and the dice camera and publishes what happens; shows "
        "the rules daemon's LED frames on the seat LEDs (docs/mqtt.md).",
        epilog="The environment swaps the devices the file names, without editing it:\n"
        f"${MAT_ENV} (a mat port, or sim:), ${CAMERA_ENV} (a camera source, or sim),\n"
        f"${LEDS_ENV} (sim or gpio). A part that fails is one log line saying what to do\n"
        "(docs/troubleshooting.md); the bridge keeps trying it.\n\n"
        "`tabletop bridge enrol --config TABLE.toml` asks the table's running bridge to enrol\n"
        "the camera from the game master's corrections, and prints how it goes: it keeps the\n"
        "new dice model only where its check finds it better (docs/vision.md).\n\n"
        "examples:\n"
        "  tabletop bridge --config /etc/tabletop/table.toml\n"
        "  TABLETOP_MAT=sim: TABLETOP_CAMERA=sim tabletop bridge --config table.toml    "
        "a dry run\n"
        "  tabletop bridge enrol --config /etc/tabletop/table.toml    enrol from the corrections",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "action",
        nargs="?",
        choices=["enrol"],
        metavar="enrol",
        help="ask the running bridge to enrol the camera from the game master's corrections",
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
    """Runs the bridge until SIGINT or SIGTERM (`enrol`: asks the running one to enrol)."""
    if getattr(args, "action", None) == "enrol":
        return run_enrol(args)
    from tabletop.bridge.bridge import Bridge
    from tabletop.bridge.health import CameraStatus
    from tabletop.config.table import ConfigError, load_config
    from tabletop.hardware.camera import SOURCE_FORMS, BadSourceURL, parse_source
    from tabletop.hardware.leds import LedError, SimulatedLeds, open_leds
    from tabletop.hardware.mat import MatError, open_mat
    from tabletop.hardware.mat.transport import is_simulated
    from tabletop.wire.mqtt import MqttError, NotConnected

    try:
        config = load_config(args.config)
        # The bridge logs in as its own user ([broker.bridge]), never as the rules daemon.
        url, broker_setting = _broker(args, config)
    except (ConfigError, MqttError) as error:
        raise UserError(str(error)) from error
    # The devices the file names, unless the environment swaps them (a dry run on a laptop of
    # the Pi's file: TABLETOP_MAT=sim: TABLETOP_CAMERA=sim TABLETOP_LEDS=sim).
    port, port_setting = _chosen(MAT_ENV, config.mat.port, "mat.port")
    source, source_setting = _chosen(CAMERA_ENV, config.camera.source, "camera.source")
    for setting in (port_setting, source_setting):
        if setting.startswith("$"):
            log.warning("bridge: %s of %s", setting, args.config)
    try:
        spec = parse_source(source)
    except BadSourceURL as error:
        raise UserError(f"{source_setting}: {error}") from error
    if spec.kind == "path" and not os.path.exists(spec.target):
        raise UserError(
            f"{source_setting}: no file or folder {spec.target} (a relative path is relative "
            f"to {args.config}); the forms are {SOURCE_FORMS}"
        )
    cards = None
    if config.mat.cards is not None:
        from tabletop.hardware.mat import CardMap

        try:
            cards = CardMap.load(config.mat.cards)
        except (OSError, MatError) as error:
            raise UserError(f"mat.cards: {error}") from error
    from tabletop.bridge.dice import AwaitedThrow, camera_throws

    # The camera's watcher expects the throw the table's prompt awaits.
    awaited = AwaitedThrow()
    camera = CameraStatus()
    enrolment = _enrolment(config)
    dice = camera_throws(
        source,
        config.camera.calibration,
        awaited,
        status=camera,
        setting=source_setting,
        values=enrolment.values,
    )
    leds = open_leds(config.leds)
    _, leds_setting = _chosen(LEDS_ENV, config.leds.backend, "leds.backend")
    # Never silent: a simulated device stands in for nothing on a real table.
    simulated = [
        name
        for name, is_sim in (
            (f"the mat ({port_setting})", is_simulated(port)),
            (f"the camera ({source_setting})", spec.kind == "sim"),
            (f"the seat LEDs ({leds_setting})", isinstance(leds, SimulatedLeds)),
        )
        if is_sim
    ]
    if simulated:
        log.warning(
            "bridge: simulated: %s; on the table's Pi name the real devices in %s",
            ", ".join(simulated),
            args.config,
        )
    bridge = Bridge(
        url,
        config.table,
        open_mat(port, cards),
        leds,
        dice=dice,
        expect=awaited.set,
        camera=camera,
        settings={"mat": port_setting, "camera": source_setting, "broker": broker_setting},
        enrolment=enrolment,
    )
    try:
        try:
            bridge.start(timeout=None)
        except Exception:
            bridge.close()  # the LEDs' test pattern, a simulated mat: nothing is left running
            raise
    except LedError as error:
        raise UserError(f"leds: {error}") from error
    except MatError as error:
        raise UserError(f"{port_setting}: {error}") from error
    except NotConnected as error:
        raise UserError(f"{broker_setting}: {error}") from error
    print(
        f"bridge: table {config.table!r}, mat {port}, camera {source}, broker {url}",
        file=sys.stderr,
    )
    stop = threading.Event()
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    for signum in before:
        signal.signal(signum, lambda *_: stop.set())
    try:
        bridge.run(stop)
    finally:
        bridge.close()
        for signum, handler in before.items():
            signal.signal(signum, handler)
    return 0


def _chosen(variable: str, value: str, key: str) -> tuple[str, str]:
    """The device the environment names instead of the file's, else the file's; and how
    messages name the setting (`mat.port = "..."`, or `$TABLETOP_MAT=...`)."""
    swapped = os.environ.get(variable, "").strip()
    if swapped:
        return swapped, f'${variable}={swapped}, instead of {key} = "{value}"'
    return value, f'{key} = "{value}"'


def _broker(args: argparse.Namespace, config: Any) -> tuple[Any, str]:
    """The broker URL the bridge logs in to, and how messages name where it came from."""
    from tabletop.wire.broker import client_url
    from tabletop.wire.mqtt import BROKER_ENV

    if args.broker:
        setting = "--broker"
    elif config.broker.url:
        setting = f"[broker] url = {config.broker.url!r}"
    elif os.environ.get(BROKER_ENV):
        setting = f"${BROKER_ENV}"
    else:
        setting = "the embedded broker's address (the file names no [broker] url)"
    url = config.broker.url_for("bridge", client_url(args.broker or config.broker.url))
    return url, f"{setting}: {url}"


def _enrolment(config: Any) -> Any:
    """What the camera reads with, and the re-enrolment from the corrections that may change
    it: a kept model is written to [camera] dice_model, or with none named to `dice-model/` in
    the corrections folder, which the bridge then reads at its start (said in the log)."""
    from tabletop.bridge.dice import TableValues, table_values
    from tabletop.bridge.reenrol import Reenrolment, model_folder
    from tabletop.config.places import corrections_folder
    from tabletop.vision.enrol import ENROLMENT_FILE

    corrections = corrections_folder(config.table, config.camera.corrections)
    model, configured = model_folder(config.camera.dice_model, corrections)
    assert model is not None  # a corrections folder is always named
    dice_model = config.camera.dice_model
    if dice_model is None and (model / ENROLMENT_FILE).is_file():
        dice_model = str(model)
        log.warning(
            "bridge: reading the dice with the model enrolled from the game master's "
            "corrections, %s (the table file names no [camera] dice_model; name it there to "
            "keep it, or remove the folder to read with the shipped model)",
            model,
        )
    calibration = None
    if config.camera.calibration:
        from tabletop.vision.calibration import Calibration
        from tabletop.vision.errors import CalibrationError

        try:
            calibration = Calibration.load(config.camera.calibration)
        except CalibrationError:
            calibration = None  # the camera's thread says why, and reads uncalibrated
    return Reenrolment(
        corrections,
        model,
        TableValues(table_values(dice_model)),
        configured=configured,
        calibration=calibration,
    )


# How long `tabletop bridge enrol` waits for the bridge to answer, then between its words.
ANSWER_S = 15.0
QUIET_S = 300.0
FINAL = ("kept", "not kept", "refused", "failed")


def run_enrol(args: argparse.Namespace) -> int:
    """Asks the table's running bridge to enrol the camera from the corrections; prints how
    it goes, and how it went (0: it finished, kept or not; 1: refused, failed or no answer)."""
    import json
    import secrets
    import time

    from tabletop.config.table import ConfigError, load_config
    from tabletop.wire.mqtt import Connected, Message, MqttError, MqttLink, NotConnected
    from tabletop.wire.topics import TableTopics

    try:
        config = load_config(args.config)
        url, broker_setting = _broker(args, config)
    except (ConfigError, MqttError) as error:
        raise UserError(str(error)) from error
    topics = TableTopics(config.table)
    request = secrets.token_hex(6)
    link = MqttLink(
        url,
        client_id=f"tabletop-bridge-enrol-{config.table}-{request}",
        subscriptions=[(topics.bridge_enrol_status, 1), (topics.bridge_availability, 1)],
    )
    try:
        link.start(timeout=10)
    except NotConnected as error:
        raise UserError(f"{broker_setting}: {error}") from error
    try:
        while not isinstance(link.get(timeout=5), Connected):
            pass  # subscribed once connected: the answer cannot be missed
        link.publish(topics.bridge_enrol, json.dumps({"v": 1, "id": request}).encode())
        print(
            f"asked the bridge of table {config.table!r} to enrol the camera from the "
            "game master's corrections",
            file=sys.stderr,
        )
        waited, quiet = time.monotonic(), ANSWER_S
        while True:
            item = link.get(timeout=0.5)
            if time.monotonic() - waited > quiet:
                raise UserError(
                    f"no answer from the bridge of table {config.table!r} in {quiet:.0f} s "
                    f"({broker_setting}): is `tabletop bridge --config {args.config}` running?"
                    if quiet == ANSWER_S
                    else f"the bridge of table {config.table!r} stopped saying how the "
                    f"enrolment goes ({quiet:.0f} s): look at its log"
                )
            if (
                isinstance(item, Message)
                and item.topic == topics.bridge_availability
                and item.payload.startswith(b"offline")
            ):
                raise UserError(
                    f"the bridge of table {config.table!r} is offline (bridge/availability): "
                    f"start it (tabletop bridge --config {args.config}), then ask again"
                )
            if not isinstance(item, Message) or item.topic != topics.bridge_enrol_status:
                continue
            try:
                status = json.loads(item.payload)
            except ValueError:
                continue
            if not isinstance(status, dict) or status.get("id") != request:
                continue  # an earlier enrolment's, or another person's
            waited, quiet = time.monotonic(), QUIET_S
            state, message = status.get("state"), str(status.get("message"))
            print(f"{state}: {message}" if state in FINAL else message, flush=True)
            if state in FINAL:
                return 0 if state in ("kept", "not kept") else 1
    finally:
        link.stop()

"""`tabletop mat sim`, `monitor`, `decode`, `flash`; `tabletop cards enrol` and `cards check`."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tabletop.errors import UserError

from .cardmap import CardMap, default_card_map
from .errors import CardMapError, MatError
from .events import describe_event
from .framing import Frame, FrameDecoder
from .zones import MatLayout

SIM_COMMANDS = """\
  place ZONE CARD [up|down]   lay a card (QS, 10H, JK1, cowboy/draw-1, or #UID); face up by default
  remove ZONE                 take the card away
  flip ZONE                   turn the card over
  noise RATE                  corrupt this fraction of the bytes on the line (0 to 1)
  hang ZONE                   make the zone's reader stop answering (the firmware resets it)
  touch ZONE / release ZONE   a finger lands on / leaves the zone's touch pad
  leds                        show the guidance LEDs that are lit
  unplug                      pull the USB cable (the device path disappears)
  replug                      plug it back in (the mat reboots)
  help                        this list
  quit                        stop the simulated mat
zones: s<seat>.<slot> (s1.1 to s6.6) and pad"""
SIM_HELP = (
    "commands, one per line:\n" + SIM_COMMANDS + "\n\nexamples:\n"
    "  tabletop mat sim                            prints its device path, e.g. /tmp/.../mat\n"
    "  tabletop mat sim --seats 3 --no-pad --miss-rate 0.05"
)
SIM_HINT = (
    "simulated mat ready: type a command and Enter, e.g. `place s1.1 QS`; `help` lists them, "
    "`quit` stops. Watch it with: tabletop mat monitor {path}"
)


def register(subparsers: Any) -> None:
    """Adds `mat` (sim, monitor, decode) and `cards` (enrol)."""
    mat = subparsers.add_parser(
        "mat",
        help="the sensor mat: simulate it, watch it",
        epilog="examples:\n"
        "  tabletop mat monitor /dev/tabletop-mat         what the mat sees, until Ctrl-C\n"
        "  tabletop mat flash                              the firmware onto a Pico\n"
        "  tabletop mat sim                                a simulated mat on a pty",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mat_commands = mat.add_subparsers(dest="mat_command", metavar="COMMAND", required=True)

    sim = mat_commands.add_parser(
        "sim",
        help="run a simulated mat on a pty",
        description="Starts a simulated mat, prints its device path on the first line of "
        "standard output (and a hint on standard error); then reads commands on standard input "
        "and answers each with one line, 'ok ...' (with the monotonic time the change "
        "happened) or 'error: ...'; `help` answers with the list of commands, then 'ok help'.",
        epilog=SIM_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument("--seats", type=int, default=6, help="seats (1-6, default 6)")
    sim.add_argument("--slots", type=int, default=6, help="slots per seat (1-6, default 6)")
    sim.add_argument("--no-pad", action="store_true", help="a mat without a draw pad")
    sim.add_argument(
        "--no-touch", action="store_true", help="a mat built without the touch pads (MPR121s)"
    )
    sim.add_argument(
        "--profile",
        choices=("tuned", "plain"),
        default="tuned",
        help="reader timing: this firmware (tuned) or a common Arduino sketch (plain) "
        "(default tuned)",
    )
    sim.add_argument(
        "--miss-rate",
        type=float,
        default=0.002,
        help="fraction of reads that miss a card (default 0.002)",
    )
    sim.add_argument(
        "--seed", type=int, default=1, help="seed for the simulated faults (default 1)"
    )
    sim.add_argument("--dir", help="folder for the device symlink (default: a new temp folder)")
    sim.set_defaults(handler=run_sim)

    monitor = mat_commands.add_parser(
        "monitor",
        help="print the events of a mat",
        description="Opens the mat at PORT (a device such as /dev/ttyACM0, a pyserial URL, or "
        "sim: for a simulated mat) and prints every event it derives, until interrupted.",
        epilog="examples:\n"
        "  tabletop mat monitor /dev/tabletop-mat\n"
        "  tabletop mat monitor /dev/tabletop-mat --json --cards /etc/tabletop/cards.json\n"
        "  tabletop mat monitor /dev/ttyACM0 --frames --seconds 10",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    monitor.add_argument("port", help="device path or URL")
    monitor.add_argument("--json", action="store_true", help="one JSON object per line")
    monitor.add_argument("--frames", action="store_true", help="also print every frame received")
    monitor.add_argument(
        "--cards",
        help="UID -> card map file (default: $TABLETOP_CARDS or the bundled simulated deck)",
    )
    monitor.add_argument("--count", type=int, help="stop after this many events")
    monitor.add_argument("--seconds", type=float, help="stop after this many seconds")
    monitor.add_argument(
        "--wait", action="store_true", help="wait for a device that is not there yet"
    )
    monitor.set_defaults(handler=run_monitor)

    flash = mat_commands.add_parser(
        "flash",
        help="put the firmware on the mat's Pico (MicroPython) and check it",
        description="Copies the firmware to a Pico running MicroPython over its REPL (mpremote's "
        "library, in the project's venv), checks every file by SHA-256 computed on the Pico, "
        "writes main.py so it starts at power-up, resets the Pico and waits for the firmware's "
        "HELLO. A new Pico needs MicroPython first (docs/mat.md, Firmware); a mat already running "
        "the firmware needs its maintenance jumper fitted (GP1 to GND) to be flashed again.",
        epilog="examples:\n  tabletop mat flash\n  tabletop mat flash --port /dev/ttyACM0\n"
        "  tabletop mat flash --source ~/my-firmware   (a copy with your board.py pin map)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    flash.add_argument(
        "--port", help="the Pico's serial port (default: the one Pico on USB, vendor 2e8a)"
    )
    flash.add_argument(
        "--source",
        metavar="DIR",
        help="the firmware folder to flash (default: this project's src/tabletop/firmware/)",
    )
    flash.add_argument(
        "--hello-timeout",
        type=float,
        default=20.0,
        help="seconds to wait for HELLO after the reset (default 20)",
    )
    flash.set_defaults(handler=run_flash)

    decode = mat_commands.add_parser(
        "decode",
        help="print the frames in a capture of the serial line",
        description="Reads raw bytes captured from the mat (e.g. cat /dev/ttyACM0 > capture.bin) "
        "and prints each frame a person can read, with what was damaged.",
        epilog="examples:\n"
        "  tabletop mat decode capture.bin\n"
        "  tabletop mat decode - < capture.bin",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    decode.add_argument("file", help="capture file, or - for standard input")
    decode.set_defaults(handler=run_decode)

    template = mat_commands.add_parser(
        "template",
        help="draw the mat at 1:1 (SVG) to print and build on",
        description="Writes the mat's template as an SVG at 1:1 (900 x 600 mm): each zone's "
        "63 x 88 mm outline, the reader's antenna centre, the face sensor's and the LED's holes, "
        "the touch electrode (whole or split), seat labels and a 100 mm scale bar to check the "
        "print. The zones are the firmware's layout (docs/circuit.md).",
        epilog="examples:\n"
        "  tabletop mat template --out mat.svg\n"
        "  tabletop mat template --out mat.svg --seats 4 --split-seats 0x3F",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    template.add_argument("--out", required=True, help="the SVG file to write")
    template.add_argument("--seats", type=int, default=6, help="seats (1-6, default 6)")
    template.add_argument("--slots", type=int, default=6, help="slots per seat (1-6, default 6)")
    template.add_argument("--no-pad", action="store_true", help="a mat without a draw pad")
    template.add_argument(
        "--split-seats",
        default="0",
        help="the seats with split touch pads, a bit per seat as board.SPLIT_SEATS "
        "(0x3F: all six; default 0, whole pads)",
    )
    template.set_defaults(handler=run_template)

    cards = subparsers.add_parser(
        "cards",
        help="card tags: enrol a deck, check a map",
        epilog="examples:\n"
        "  tabletop cards enrol --port /dev/tabletop-mat --out /etc/tabletop/cards.json\n"
        "  tabletop cards check /etc/tabletop/cards.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    card_commands = cards.add_subparsers(dest="cards_command", metavar="COMMAND", required=True)
    enrol = card_commands.add_parser(
        "enrol",
        help="tag a deck: lay each card on the draw pad",
        description="Walks you through laying each card of a deck on the mat's draw pad and "
        "writes the UID -> card map (and the deck's face-sensor calibration) to --out. An "
        "existing file is added to: cards already in it are skipped, their tags refused. "
        "The deck is the 52 playing cards (54 with --jokers) or a game deck file (--deck).",
        epilog="examples:\n"
        "  tabletop cards enrol --port /dev/tabletop-mat --out /etc/tabletop/cards.json\n"
        "  tabletop cards enrol --port /dev/tabletop-mat --out cards.json "
        "--deck examples/decks/cowboy.toml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    enrol.add_argument("--port", required=True, help="the mat: device path, URL or sim:")
    enrol.add_argument(
        "--wait", action="store_true", help="wait for a mat that is not plugged in yet"
    )
    enrol.add_argument("--out", default="cards.json", help="map file (default cards.json)")
    enrol.add_argument("--jokers", action="store_true", help="the deck has two jokers")
    enrol.add_argument(
        "--ask", action="store_true", help="lay cards in any order and type each one's code"
    )
    enrol.add_argument("--limit", type=int, help="enrol only this many cards")
    enrol.add_argument(
        "--deck",
        metavar="FILE",
        help="a game's deck file (Six-Gun Showdown's TOML) instead of the playing cards: its "
        "cards are enrolled in the file's order as deck/id (cowboy/draw-1)",
    )
    enrol.set_defaults(handler=run_enrol)
    check = card_commands.add_parser(
        "check",
        help="check a card map against its deck files",
        description="Reads a card map and every deck file it names; prints each deck card "
        "whose deck file does not list it (naming the UID) and exits 1 if there is one.",
        epilog="example:\n  tabletop cards check /etc/tabletop/cards.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("map", help="the card map file (cards.json)")
    check.set_defaults(handler=run_check)


def _user_error(message: str) -> Exception:
    return UserError(message)


# ---- tabletop mat sim -------------------------------------------------------------------


def run_sim(args: argparse.Namespace) -> int:
    from .sim import SimulatedMat

    try:
        layout = MatLayout(args.seats, args.slots, not args.no_pad)
        mat = SimulatedMat(
            layout,
            profile=args.profile,
            miss_rate=args.miss_rate,
            seed=args.seed,
            link_dir=args.dir,
            touch_pads=not args.no_touch,
        )
        path = mat.start()
    except (MatError, OSError) as error:
        raise _user_error(str(error)) from None
    print(path, flush=True)
    # On stderr: scripts read the path from the first line of stdout.
    print(SIM_HINT.format(path=path), file=sys.stderr, flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] in ("quit", "exit"):
                print("ok quit", flush=True)
                break
            try:
                reply = sim_command(mat, words)
            except MatError as error:
                reply = f"error: {error}"
            print(reply, flush=True)
    finally:
        mat.stop()
    return 0


def sim_command(mat: Any, words: list[str]) -> str:
    """Carries out one `tabletop mat sim` command line; returns the reply."""
    command, rest = words[0].lower(), words[1:]
    usage = {
        "place": (2, 3, "place ZONE CARD [up|down]"),
        "remove": (1, 1, "remove ZONE"),
        "flip": (1, 1, "flip ZONE"),
        "noise": (1, 1, "noise RATE"),
        "hang": (1, 1, "hang ZONE"),
        "touch": (1, 1, "touch ZONE"),
        "release": (1, 1, "release ZONE"),
        "leds": (0, 0, "leds"),
        "unplug": (0, 0, "unplug"),
        "replug": (0, 0, "replug"),
        "help": (0, 0, "help"),
    }
    if command not in usage:
        raise MatError(f"unknown command {command!r}; `help` lists the commands")
    low, high, text = usage[command]
    if not low <= len(rest) <= high:
        raise MatError(f"usage: {text}")
    at = time.monotonic()
    if command == "place":
        at = mat.place(rest[0], rest[1], rest[2].lower() if len(rest) > 2 else "up").at
    elif command == "remove":
        at = mat.remove(rest[0]).at
    elif command == "flip":
        at = mat.flip(rest[0]).at
    elif command == "noise":
        try:
            rate = float(rest[0])
        except ValueError:
            raise MatError(f"noise RATE must be a number, not {rest[0]!r}") from None
        mat.set_noise(rate)
    elif command == "hang":
        mat.hang_reader(rest[0])
    elif command == "touch":
        at = mat.touch(rest[0]).at
    elif command == "release":
        at = mat.release(rest[0]).at
    elif command == "leds":
        lit = [
            f"{mat.layout.name(zone)}={r:02x}{g:02x}{b:02x}{' blink' if mode else ''}"
            for zone, (r, g, b, mode) in enumerate(mat.leds.colours)
            if (r, g, b) != (0, 0, 0)
        ]
        return "ok leds " + (", ".join(lit) if lit else "all off")
    elif command == "unplug":
        mat.unplug()
    elif command == "replug":
        mat.replug()
    else:
        return SIM_COMMANDS + "\nok help"  # the last line answers, as for every command
    return f"ok {' '.join(words)} at={at:.6f}"


# ---- tabletop mat monitor ---------------------------------------------------------------


def _card_map(path: str | None) -> CardMap:
    try:
        return default_card_map(path)
    except CardMapError as error:
        raise _user_error(str(error)) from None


def _check_port(port: str, wait: bool) -> None:
    from .errors import PortBusyError
    from .transport import open_port

    if port.startswith("sim:"):
        return
    try:
        open_port(port).close()
    except PortBusyError as error:  # even with --wait: it is there, someone else reads it
        raise _user_error(str(error)) from None
    except MatError as error:
        if not wait:
            raise _user_error(f"{error} (use --wait to wait for it)") from None


def _reported(record: logging.LogRecord) -> bool:
    """False for a log record whose news the monitor prints as an event line anyway."""
    return not getattr(record, "mat_event", False)


def run_monitor(args: argparse.Namespace) -> int:
    from .driver import MatDriver
    from .protocol import decode_message, describe

    cards = _card_map(args.cards)
    _check_port(args.port, args.wait)
    driver = MatDriver(args.port, cards)
    printing = threading.Lock()

    def emit(line: str) -> None:
        # Frames are printed from the reader thread, events from this one: whole lines only.
        with printing:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def show_frame(frame: Frame) -> None:
        try:
            text = describe(decode_message(frame.msg_type, frame.payload))
        except MatError as error:
            text = f"unreadable frame: {error}"
        if args.json:
            emit(json.dumps({"frame": text, "type": frame.msg_type}))
        else:
            emit(f"  frame: {text}")

    if args.frames:
        driver.session.on_frame.append(show_frame)
    # Each damaged frame, lost link... is one event line; its log record would say it again.
    session_log = logging.getLogger("tabletop.hardware.mat.session")
    session_log.addFilter(_reported)
    try:
        driver.start()
    except MatError as error:
        session_log.removeFilter(_reported)
        raise _user_error(str(error)) from None
    deadline = time.monotonic() + args.seconds if args.seconds is not None else None
    shown = 0
    try:
        while args.count is None or shown < args.count:
            timeout = 0.2
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0:
                    break
            event = driver.get_event(timeout)
            if event is None:
                continue
            shown += 1
            emit(json.dumps(event.to_json()) if args.json else describe_event(event))
    except KeyboardInterrupt:
        pass
    finally:
        driver.close()
        session_log.removeFilter(_reported)
    return 0


# ---- tabletop mat flash -----------------------------------------------------------------


def run_flash(args: argparse.Namespace) -> int:
    from .flash import FlashError, MatFlasher, find_pico, firmware_files

    try:
        port = args.port or find_pico()
        files = firmware_files(Path(args.source)) if args.source else None
        flasher = MatFlasher(
            port,
            files=files,
            report=lambda line: print(line, flush=True),
            hello_timeout_s=args.hello_timeout,
        )
        result = flasher.run()
    except (FlashError, OSError) as error:
        raise _user_error(f"mat flash: {error}") from None
    hello = result.hello
    print(
        f"HELLO from {hello.firmware} (boot {hello.boot_id:08x}): {hello.seats} seats x "
        f"{hello.slots} slots{' and the pad' if hello.pad else ''}; {len(result.files)} files, "
        f"{result.size:,} bytes on {result.port}, MicroPython {result.micropython}"
    )
    return 0


def run_template(args: argparse.Namespace) -> int:
    from tabletop.hardware.circuit.template import write_template

    try:
        split = int(args.split_seats, 0)
    except ValueError:
        raise _user_error(
            f"--split-seats {args.split_seats!r} is not a number: a bit per seat, "
            "bit 0 for seat 1 (0x3F for all six)"
        ) from None
    try:
        out = Path(args.out)
        count = write_template(out, args.seats, args.slots, not args.no_pad, split)
    except ValueError as error:
        raise _user_error(f"template: {error}") from None
    except OSError as error:
        raise _user_error(
            f"template: cannot write {args.out}: {error.strerror}; "
            "give --out a file in a folder that exists"
        ) from None
    print(f"wrote {out}: {count} zones at 1:1 on 900 x 600 mm")
    return 0


def run_decode(args: argparse.Namespace) -> int:
    from .protocol import decode_message, describe

    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as error:
        raise _user_error(f"cannot read {args.file}: {error.strerror}") from None
    decoder = FrameDecoder()
    frames = decoder.feed(data)
    while decoder.pending:
        frames += decoder.drop_stale()
    for frame in frames:
        try:
            print(describe(decode_message(frame.msg_type, frame.payload)))
        except MatError as error:
            print(f"unreadable frame (type 0x{frame.msg_type:02x}): {error}")
    stats = decoder.stats
    print(
        f"{stats.frames} frame(s) in {len(data)} bytes; skipped {stats.skipped_bytes} byte(s); "
        f"damaged: {stats.crc_errors} CRC, {stats.oversized} oversized, "
        f"{stats.bad_versions} bad version, {stats.truncated} truncated"
    )
    return 0


# ---- tabletop cards enrol ---------------------------------------------------------------


def _read_deck(path: Path) -> tuple[str, tuple[str, ...]]:
    """A game's deck file: (its deck's name, its cards' codes in order), read by the game whose
    deck format it is (`GameRules.deck_format`); errors name the file and the key."""
    import tomllib

    from tabletop.rules import games
    from tabletop.rules.games.errors import RulesError

    try:
        text = path.read_text(encoding="utf-8")
        raw = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except OSError as error:
        raise CardMapError(f"cannot read deck {path}: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:  # TOMLDecodeError is a ValueError
        raise CardMapError(f"{path.name}: not a valid deck file: {error}") from None
    kind = raw.get("format") if isinstance(raw, dict) else None
    known = {}
    for name in games.names():
        rules = games.get(name)
        if rules.deck_format is not None:
            known[rules.deck_format] = rules
    if kind not in known:
        formats = ", ".join(f'"{f}" ({r.name})' for f, r in sorted(known.items()))
        raise CardMapError(
            f"{path.name}: format {kind!r} is no game's deck file; games read {formats or 'none'}"
        )
    try:
        return known[kind].deck_codes(raw, path.name)
    except RulesError as error:
        raise CardMapError(str(error)) from None


def _deck_ids(base: Path) -> Any:
    """Reads a deck file named in a map (relative to the map's folder) for its card ids."""

    def ids(path: str) -> set[str]:
        _name, codes = _read_deck(base / path)
        return {code.partition("/")[2] for code in codes}

    return ids


def _map_path(deck: Path, out: Path) -> str:
    """How the map names a deck file: relative to the map's folder, so the two move together."""
    try:
        return str(deck.resolve().relative_to(out.resolve().parent))
    except ValueError:
        return str(deck.resolve())


def run_check(args: argparse.Namespace) -> int:
    path = Path(args.map)
    try:
        cards = CardMap.load(path)
        problems = cards.check_decks(_deck_ids(path.parent))
    except CardMapError as error:
        raise _user_error(str(error)) from None
    for line in problems:
        print(line)
    decks = sum(1 for _ in cards.decks)
    print(f"{path}: {len(cards.cards)} card(s), {decks} deck file(s), {len(problems)} problem(s)")
    return 1 if problems else 0


def run_enrol(args: argparse.Namespace) -> int:
    from tabletop.rules.games.cards import TaggedCard, parse_tagged, standard_deck

    from .driver import MatDriver
    from .enrol import Enrolment

    out = Path(args.out)
    cards = CardMap(deck="standard+jokers" if args.jokers else "standard", source=str(out))
    if out.exists():
        try:
            cards = CardMap.load(out)
        except CardMapError as error:
            raise _user_error(str(error)) from None
    deck: list[TaggedCard] = list(standard_deck(jokers=args.jokers))
    if args.deck is not None:
        try:
            deck_name, codes = _read_deck(Path(args.deck))
        except CardMapError as error:
            raise _user_error(str(error)) from None
        known = cards.decks.get(deck_name)
        named = _map_path(Path(args.deck), out)
        if known is not None and known != named:
            raise _user_error(
                f"{out} already has a {deck_name} deck, from {known}; a deck's name must "
                f"be unique in a map (rename the deck in {args.deck})"
            )
        deck = [parse_tagged(code, f"{args.deck}") for code in codes]
        cards.decks[deck_name] = named
        if not out.exists():
            cards.deck = deck_name
    enrolment = Enrolment(deck, cards, ask=args.ask)
    if args.limit is not None:
        enrolment.todo = enrolment.todo[: max(0, args.limit)]
    if not enrolment.todo:
        print(f"Every card of the deck is already in {out}.")
        return 0
    _check_port(args.port, args.wait)
    driver = MatDriver(args.port, cards)
    try:
        driver.start()
    except MatError as error:
        raise _user_error(str(error)) from None
    print(f"Enrolling into {out}. Waiting for the mat on {driver.path} ...", flush=True)
    try:
        while not enrolment.done:
            event = driver.get_event(0.2)
            if event is None:
                continue
            layout = driver.layout
            if layout is not None and not layout.pad:
                raise _user_error("this mat has no draw pad to enrol cards on")
            for line in enrolment.handle(event):
                print(line, flush=True)
            while enrolment.wants_code:
                answer = sys.stdin.readline()
                if not answer:
                    raise _user_error("standard input closed while a card code was asked for")
                for line in enrolment.answer(answer):
                    print(line, flush=True)
            if enrolment.enrolled:
                cards.save(out)  # after every card, so an interruption loses nothing
    except KeyboardInterrupt:
        print(f"\nStopped; {len(enrolment.enrolled)} card(s) saved in {out}.")
        return 130
    finally:
        driver.close()
    calibration, verdict = enrolment.calibration()
    if calibration is not None:
        cards.calibration = calibration
    cards.save(out)
    print(verdict)
    print(
        f"Wrote {len(cards.cards)} card(s) to {out}. Use it with --cards {out} or "
        f"TABLETOP_CARDS={out}."
    )
    return 0

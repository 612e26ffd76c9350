"""`tabletop dice read | watch | calibrate | board | enrol`: the dice camera from a shell."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tabletop.errors import UserError


def default_calibration_path() -> Path:
    """Where `calibrate` stores the tray and `read`/`watch` look for it by default."""
    base = os.environ.get("TABLETOP_CONFIG_DIR") or os.path.join(
        os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config"), "tabletop"
    )
    return Path(base) / "dice-calibration.json"


def register(subparsers: Any) -> None:
    """Adds the `dice` subcommand with read, watch and calibrate."""
    dice = subparsers.add_parser(
        "dice",
        help="read dice from pictures or a camera",
        description="The dice camera.",
        epilog="examples:\n"
        "  tabletop dice calibrate --source usb:0     learn the empty tray first\n"
        "  tabletop dice watch --source usb:0         then print each throw\n"
        "  tabletop dice read throw.jpg",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = dice.add_subparsers(dest="dice_command", metavar="COMMAND", required=True)

    read = actions.add_parser(
        "read",
        help="find and read every die in pictures",
        description="Prints the dice found in each picture: value (null when a die is cocked "
        "or not readable for sure), confidence and box in pixels. A folder stands for the "
        "pictures in it.",
        epilog="examples:\n"
        "  tabletop dice read throw.jpg\n"
        "  tabletop dice read shots/ --json --annotate annotated/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    read.add_argument(
        "images", nargs="+", metavar="IMAGE", help="a picture, or a folder of pictures"
    )
    read.add_argument("--json", action="store_true", help="one JSON object per picture")
    read.add_argument("--calibration", type=Path, help="a calibration file (optional)")
    read.add_argument("--annotate", type=Path, metavar="DIR", help="write annotated pictures")
    read.add_argument(
        "--model", type=Path, metavar="DIR", help="a table's enrolled dice (tabletop dice enrol)"
    )
    read.set_defaults(handler=run_read)

    watch = actions.add_parser(
        "watch",
        help="print throws from a camera, video, folder or the simulator",
        description="Prints one JSON line per event: rolling, rolled (with values), cocked, "
        "unreadable, hand, cleared.",
        epilog="examples:\n"
        "  tabletop dice watch                                   the simulated camera\n"
        "  tabletop dice watch --source usb:0 --preview         a webcam, with a window\n"
        "  tabletop dice watch --source picamera --calibration /etc/tabletop/tray.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    watch.add_argument("--source", default="sim:", help="frame source URL (default: sim:)")
    watch.add_argument(
        "--calibration", type=Path, help="calibration file (default: the stored one)"
    )
    watch.add_argument("--no-calibration", action="store_true", help="ignore a stored calibration")
    watch.add_argument("--annotate", type=Path, metavar="DIR", help="write annotated frames")
    watch.add_argument("--preview", action="store_true", help="show an annotated window")
    watch.add_argument("--states", action="store_true", help="also print every state change")
    watch.add_argument(
        "--frames", type=int, default=0, help="stop after N frames (default 0: never)"
    )
    watch.add_argument(
        "--model", type=Path, metavar="DIR", help="a table's enrolled dice (tabletop dice enrol)"
    )
    watch.set_defaults(handler=run_watch)

    enrol = actions.add_parser(
        "enrol",
        help="adapt the dice reader to this table's own dice, light and camera",
        description="Reads photos of this table's tray, each die given by its centre and "
        "value in a CSV (image,cx,cy,value; pixels; image paths relative to the CSV's "
        "folder; value 1-6, or cocked for a die leaning on something), and writes the "
        "table's dice model to DIR: `dice read --model DIR`, `dice watch --model DIR` and the "
        "bridge ([camera] dice_model in the table file) use it.",
        epilog="example:\n"
        "  tabletop dice enrol --labels photos/labels.csv --out /etc/tabletop/dice-model",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    enrol.add_argument(
        "--labels",
        type=Path,
        required=True,
        metavar="FILE.csv",
        help="the dice of the table's photos: image,cx,cy,value, value 1-6 or cocked (required)",
    )
    enrol.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help="the folder to write the table's dice model to (required)",
    )
    enrol.add_argument(
        "--calibration",
        type=Path,
        help="the table's calibration; its camera view, when it has one (calibrate --board), "
        "is used to cut the dice (default: the stored one)",
    )
    enrol.add_argument("--no-calibration", action="store_true", help="ignore a stored calibration")
    enrol.add_argument(
        "--keep-fit",
        action="store_true",
        help="use the table's model even where its check finds it no better than the shipped "
        "one (a trade you accept); by default the better one is kept",
    )
    enrol.set_defaults(handler=run_enrol)

    calibrate = actions.add_parser(
        "calibrate",
        help="learn the empty tray from a camera",
        description="Takes frames of the empty tray, finds its floor and stores the background "
        "in the table's configuration.",
        epilog="examples (the tray empty):\n"
        "  tabletop dice calibrate --source usb:0\n"
        "  tabletop dice calibrate --source picamera --out /etc/tabletop/tray.json\n"
        "  tabletop dice calibrate --source usb:0 --board 9x6    a slanted or wide-angle camera",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    calibrate.add_argument("--source", default="usb:0", help="frame source URL (default: usb:0)")
    calibrate.add_argument(
        "--frames", type=int, default=15, help="frames to learn from (default 15)"
    )
    calibrate.add_argument("--die-size", type=float, help="side of a die in pixels, if known")
    calibrate.add_argument("--out", type=Path, help="file to write (default: the table's config)")
    calibrate.add_argument(
        "--board",
        metavar="COLSxROWS",
        help="first learn the camera's slant and lens from a printed chessboard lying flat in "
        "the empty tray, COLSxROWS inner corners (`tabletop dice board` draws one: 9x6); then "
        "take it out of the tray and the empty tray is learnt",
    )
    calibrate.add_argument(
        "--board-pictures",
        type=int,
        default=1,
        help="pictures of the board to learn from, the board moved about the tray between "
        "them (default 1)",
    )
    calibrate.add_argument(
        "--board-wait",
        type=int,
        default=300,
        help="frames to look at for the board before giving up (default 300)",
    )
    calibrate.set_defaults(handler=run_calibrate)

    board = actions.add_parser(
        "board",
        help="draw the chessboard `calibrate --board` learns a camera from",
        description="Writes a chessboard picture to print and lay flat in the tray, for a "
        "camera that is not straight above it or has a wide lens.",
        epilog="example:\n  tabletop dice board --out board.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    board.add_argument("--out", type=Path, required=True, help="picture to write (.png)")
    board.add_argument(
        "--board", default="9x6", metavar="COLSxROWS", help="inner corners (default 9x6)"
    )
    board.add_argument(
        "--square", type=int, default=100, help="a square's side in pixels (default 100)"
    )
    board.set_defaults(handler=run_board)


def _values(model: Path | None) -> Any:
    """The value reader: a table's enrolled one (`--model DIR`) or the shipped one."""
    from tabletop.vision.classify import ValueClassifier
    from tabletop.vision.enrol import EnrolError, table_model

    if model is None:
        return ValueClassifier()
    try:
        return ValueClassifier(table_model(model))
    except EnrolError as error:
        raise UserError(str(error)) from error


def run_enrol(args: argparse.Namespace) -> int:
    """Enrols the table's dice from its labelled photos, with progress, and says how it went."""
    from tabletop.vision.enrol import EnrolError, enrol, read_labels
    from tabletop.vision.progress import progress

    cv2.setNumThreads(1)
    calibration = None if args.no_calibration else _load_calibration(args.calibration, False)
    view = calibration.view if calibration is not None else None
    try:
        photos = {die.image for die in read_labels(args.labels)}
        # Each photo twice: enrolled, then read by a model fitted without it (the check,
        # which needs two photos or more).
        steps = 2 * len(photos) if len(photos) > 1 else 1
        with progress(steps, "photos enrolled, then checked") as step:
            report = enrol(
                args.labels,
                args.out,
                step=step,
                calibration_of=lambda photo: calibration,
                checking=step,
                keep_fit=args.keep_fit,
            )
    except EnrolError as error:
        raise UserError(str(error)) from error
    right = report.to_json()["looks_read_right"]
    through = " through the calibration's camera view," if view is not None else ""
    print(
        f"enrolled {report.dice} dice of {report.photos} photos{through} into {args.out} "
        f"({report.dice_sized_by_the_reader} sized by the reader's own box); of their "
        f"{report.looks} looks the shipped reader read {right['shipped']} right, the table's "
        f"{right['enrolled']}."
    )
    check = report.held_out
    use = (
        f"tabletop dice read --model {args.out} ..., or "
        f'[camera] dice_model = "{args.out}" in the table file'
    )
    if report.cocked == 0:
        print(
            "No die in these photos is labelled cocked: the table's model has not seen a die "
            "leaning on something through this camera, and may give one a value the shipped "
            "reader would not. Lean a few dice on the rim or on each other in some photos, "
            "label them cocked (value column), and enrol again."
        )
    kept_shipped = report.kept == "shipped"
    if check is None:
        if kept_shipped:
            print(
                f"One photo: nothing to check the table's model on, so {args.out} keeps the "
                "shipped reader. Enrol two photos or more, or add --keep-fit to use it unchecked."
            )
        else:
            print(f"One photo: nothing to check it on. Use it: {use}")
        return 0
    shipped, enrolled = check.shipped, check.enrolled
    print(
        f"On photos it did not learn from ({check.folds} fits, each without a share of the "
        f"photos): the shipped reader read {shipped.right} dice right, {shipped.wrong} "
        f"wrong and was unsure of {shipped.unsure}; the table's {enrolled.right} right, "
        f"{enrolled.wrong} wrong and unsure of {enrolled.unsure} (an unsure die is asked for, "
        "never guessed)."
        + (
            f" Of their {shipped.cocked} dice labelled cocked, the shipped reader gave "
            f"{shipped.cocked_given} a value, the table's {enrolled.cocked_given}."
            if shipped.cocked
            else ""
        )
    )
    kept = (
        f"so {args.out} keeps the shipped reader ({args.out}/fitted_dice_values.onnx is the "
        "table's model; enrol again with --keep-fit to use it)"
        if kept_shipped
        else f"but {args.out} uses the table's model, as --keep-fit asked"
    )
    if check.verdict == "better":
        print(f"It reads this table better, so {args.out} uses it: {use}")
    elif check.verdict == "no better":
        print(
            "It does not help this table: on photos it had not seen it read no more dice right "
            "and gave no fewer wrong values (a cocked die given a value counts as one), "
            f"{kept}. Enrol more photos and check again. {args.out} reads: {use}"
        )
    else:
        gained = enrolled.right - shipped.right
        more_wrong = enrolled.wrong_or_cocked - shipped.wrong_or_cocked
        print(
            f"A trade: it read {abs(gained)} {'more' if gained > 0 else 'fewer'} dice right "
            f"and gave {abs(more_wrong)} {'more' if more_wrong > 0 else 'fewer'} wrong values "
            "(a cocked die given a value counts as one). A wrong value scores a throw wrongly; "
            f"a die not read is only asked for again. It is not better on both counts, {kept}. "
            f"{args.out} reads: {use}"
        )
    return 0


def _load_calibration(path: Path | None, required: bool) -> Any:
    from tabletop.vision.calibration import Calibration
    from tabletop.vision.errors import CalibrationError

    target = path or default_calibration_path()
    if path is None and not target.exists():
        return None
    try:
        return Calibration.load(target)
    except CalibrationError as error:
        if required or path is not None:
            raise UserError(str(error)) from error
        return None


def run_read(args: argparse.Namespace) -> int:
    """Reads each picture; a picture that cannot be read is reported and the rest go on."""
    from tabletop.vision.annotate import annotate
    from tabletop.vision.errors import VisionError
    from tabletop.vision.reader import DiceReader
    from tabletop.vision.watch import dice_word

    cv2.setNumThreads(1)
    calibration = _load_calibration(args.calibration, required=True) if args.calibration else None
    reader = DiceReader(calibration=calibration, values=_values(args.model))
    try:
        reader.load()
    except VisionError as error:
        raise UserError(str(error)) from error
    status = 0
    for name, loaded, problem in pictures(args.images):
        if loaded is None:
            status = 1
            if args.json:
                print(json.dumps({"image": name, "error": f"cannot read {name}: {problem}"}))
            else:
                print(f"{name}: {problem}", file=sys.stderr)
            continue
        image = np.asarray(loaded, np.uint8)
        started = time.perf_counter()
        try:
            reading = reader.read(image)
        except VisionError as error:
            raise UserError(str(error)) from error
        ms = (time.perf_counter() - started) * 1000.0
        if args.annotate:
            args.annotate.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(args.annotate / (Path(name).stem + ".png")), annotate(image, reading))
        if args.json:
            dice = [
                {
                    "value": d.value,
                    "confidence": round(d.confidence, 3),
                    "box": list(d.box),
                    "status": d.status.value,
                }
                for d in reading.dice
            ]
            print(json.dumps({"image": name, "dice": dice, "ms": round(ms, 1)}))
        else:
            shown = ", ".join(
                f"{d.value} ({d.confidence:.2f})" if d.value is not None else d.status.value
                for d in reading.dice
            )
            print(f"{name}: {dice_word(len(reading.dice))}: {shown or 'none'}  [{ms:.1f} ms]")
    return status


PICTURE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def pictures(names: list[str]) -> Iterator[tuple[str, np.ndarray | None, str]]:
    """Each picture named (a folder: the pictures in it, in name order) as (name, image,
    problem): the image is None when it cannot be read, and the problem says why in a line.
    Files are read by Python and decoded by OpenCV, which then has no path to warn about."""
    for name in names:
        path = Path(name)
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.suffix.lower() in PICTURE_SUFFIXES)
            if not inside:
                yield name, None, "no pictures in this folder"
            for picture in inside:
                yield _picture(str(picture))
        else:
            yield _picture(name)


def _picture(name: str) -> tuple[str, np.ndarray | None, str]:
    try:
        data = Path(name).read_bytes()
    except FileNotFoundError:
        return name, None, "no such file"
    except OSError as error:
        return name, None, f"cannot read it ({error.strerror})"
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        return name, None, "not a picture (JPEG, PNG and the like)"
    return name, np.asarray(image, np.uint8), ""


def run_watch(args: argparse.Namespace) -> int:
    """Watches a source until it ends (or Ctrl-C), printing events as JSON lines."""
    from tabletop.hardware.camera import CameraError, open_source
    from tabletop.vision.annotate import annotate
    from tabletop.vision.watch import table_watcher

    cv2.setNumThreads(1)
    calibration = None if args.no_calibration else _load_calibration(args.calibration, False)
    watcher = table_watcher(calibration, _values(args.model))
    if args.preview and not _has_gui():
        raise UserError(
            "--preview needs an OpenCV with windows; this one is headless "
            "(use --annotate DIR to write annotated frames instead)"
        )
    try:
        source = open_source(args.source)
        source.open()
    except CameraError as error:
        raise UserError(str(error)) from error
    try:
        last_state = None
        for frame in source:
            if calibration is not None and (frame.image.shape[1], frame.image.shape[0]) != (
                calibration.width,
                calibration.height,
            ):
                raise UserError(
                    f"the calibration is for {calibration.width}x{calibration.height} frames; "
                    f"{args.source} gives {frame.image.shape[1]}x{frame.image.shape[0]} "
                    "(calibrate again, or pass --no-calibration)"
                )
            events = watcher.feed(frame.image, frame.timestamp)
            if args.states and watcher.state is not last_state:
                print(json.dumps({"v": 1, "state": watcher.state.value, "frame": frame.index}))
            last_state = watcher.state
            for event in events:
                print(json.dumps(event.to_json()), flush=True)
            if args.annotate or args.preview:
                caption = f"{frame.index} {watcher.state.value}"
                reading = watcher.last_reading if watcher.state.value == "still" else None
                picture = annotate(frame.image, reading, caption)
                if args.annotate:
                    args.annotate.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(args.annotate / f"frame-{frame.index:06d}.jpg"), picture)
                if args.preview:
                    cv2.imshow("tabletop dice", picture)
                    if cv2.waitKey(1) & 0xFF in (27, ord("q")):
                        break
            if args.frames and frame.index + 1 >= args.frames:
                break
    except CameraError as error:
        raise UserError(str(error)) from error
    finally:
        source.close()
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    """Learns the empty tray (and, with --board, the camera's view first) and writes the
    calibration file."""
    from tabletop.hardware.camera import CameraError, open_source
    from tabletop.vision.calibration import calibrate
    from tabletop.vision.errors import CalibrationError
    from tabletop.vision.view import parse_board

    if args.board_pictures < 1 or args.board_wait < 1:
        raise UserError("--board-pictures and --board-wait must each be at least 1")
    frames = []
    view = None
    try:
        board = parse_board(args.board) if args.board else None
        with open_source(args.source) as source:
            pictures = iter(source)
            if board is not None:
                view, first_empty = _learn_view(
                    pictures, board, args.board_pictures, args.board_wait
                )
                frames += [first_empty] if first_empty is not None else []
            for frame in pictures:
                frames.append(frame.image)
                if len(frames) >= args.frames:
                    break
    except CameraError as error:
        raise UserError(str(error)) from error
    except CalibrationError as error:
        raise UserError(str(error)) from error
    if not frames:
        raise UserError(f"{args.source} gave no frames of the empty tray")
    try:
        result = calibrate(frames, args.die_size, view)
    except CalibrationError as error:
        raise UserError(str(error)) from error
    out = args.out or default_calibration_path()
    result.save(out)
    x0, y0, x1, y1 = result.tray
    seen = ""
    if result.view is not None:
        fw, fh = result.view.flat_size
        standpoint = result.view.standpoint
        slant = "straight above" if standpoint is None else "slanted"
        seen = f"; camera {slant}, lens k1 {result.view.distortion[0]:+.3f}, read as {fw}x{fh}"
    print(
        f"calibrated from {len(frames)} frames of {result.width}x{result.height}: "
        f"tray floor at ({x0},{y0})-({x1},{y1}){seen}; written to {out}"
    )
    return 0


def _learn_view(pictures: Any, board: tuple[int, int], wanted: int, wait: int) -> tuple[Any, Any]:
    """The camera's view from the first `wanted` frames that show the board (within `wait`
    frames); then frames are skipped until the board has left the picture, and the first
    frame without it is returned too (the empty tray's first)."""
    from tabletop.vision.view import find_board, find_view

    columns, rows = board
    print(
        f"Lay the {columns}x{rows} board flat in the empty tray, whole in view"
        + (", and move it about the tray" if wanted > 1 else "")
        + "...",
        file=sys.stderr,
    )
    shown: list[Any] = []
    places: list[Any] = []
    for looked, frame in enumerate(pictures, start=1):
        corners = find_board(frame.image, board)
        # Each picture of the board counts once it lies somewhere else: its corners a
        # twentieth of the picture's width away from where they were in every picture before.
        moved = 0.05 * frame.image.shape[1]
        if corners is not None and all(
            float(np.linalg.norm(corners - before, axis=1).mean()) > moved for before in places
        ):
            shown.append(frame.image)
            places.append(corners)
            more = ": now move it elsewhere in the tray" if len(shown) < wanted else ""
            print(f"board seen ({len(shown)} of {wanted}){more}", file=sys.stderr)
            if len(shown) >= wanted:
                break
        if looked >= wait:
            break
    if len(shown) < wanted:
        raise UserError(
            f"saw the {columns}x{rows} board in {len(shown)} of {wanted} pictures within "
            f"{wait} frames: lay it flat, whole in view and well lit; its inner corners are "
            "one fewer than its squares each way (a 10x7-square board is 9x6)"
        )
    view = find_view(shown, board)
    print("Now take the board out of the tray...", file=sys.stderr)
    for frame in pictures:
        if find_board(frame.image, board) is None:
            return view, frame.image
    return view, None


def run_board(args: argparse.Namespace) -> int:
    """Writes the chessboard picture to print."""
    from tabletop.vision.errors import CalibrationError
    from tabletop.vision.view import board_image, parse_board

    try:
        columns, rows = parse_board(args.board)
        image = board_image(columns, rows, args.square)
    except CalibrationError as error:
        raise UserError(str(error)) from error
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(args.out), image):
        raise UserError(f"cannot write {args.out} (a .png name?)")
    print(
        f"a {columns + 1}x{rows + 1}-square board ({columns}x{rows} inner corners) written to "
        f"{args.out}: print it flat, any size that lies whole in the tray"
    )
    return 0


def _has_gui() -> bool:
    info = cv2.getBuildInformation()
    gui = next((line for line in info.splitlines() if line.strip().startswith("GUI:")), "")
    return bool(gui) and "NONE" not in gui.upper()

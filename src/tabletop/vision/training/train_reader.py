"""Trains the value reader (a die already found -> 1-6 or cocked); writes dice_values.onnx.

    PYTHONPATH=. /tmp/torchenv/bin/python -m tabletop.vision.training.train_reader --folds 5

Same data as the detector (src/tabletop/vision/training/train_classifier.py): the real photos, each
fold's held out of its model, and rendered trays. Each known die is cut several times with jitter in
place, size and turn, the way the reader cuts a die the detector kept: squared up by
`tabletop.vision.classify.squared_crop`, so the network sees pips in their grid, not at any angle.
Rendered trays of cocked dice only (`cocked_looks`) teach it that a tilted top face or a side
face is "cocked", not a flat die. Unlike the detector it sees no grey crops (`--grey 0`): red
pips on a dark grey die are about as bright as the die, so grey hides the dice it finds hardest.
For the same dice, a real die whose pips stand out from its body by under 50 grey levels
(`tabletop.vision.training.harvest.pip_contrast`: dark dice with dim pips, and every 1) is cut three
times as often as the others (`--faint-copies`).
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from tabletop.hardware.camera.render import DIE_STYLES, TRAINING_DIE_STYLES, random_scene, render
from tabletop.vision.classify import COCKED, VALUE_CLASSES, VALUE_CROP, VALUE_SCALE, squared_crop
from tabletop.vision.evaluate import LabelledDie, fold_of, load_labels
from tabletop.vision.training.harvest import (
    TruthDie,
    add_other_tables_options,
    from_labels,
    other_tables,
    pip_contrast,
    rendered_examples,
)
from tabletop.vision.training.imitate import CAMERA_FAULTS
from tabletop.vision.training.train_classifier import (
    PHOTOS,
    ROOT,
    add_device_option,
    export,
    read_photo,
    to_tensor,
    train_model,
)

MODEL = ROOT / "src" / "tabletop" / "vision" / "model" / "dice_values.onnx"
# train_reader's options that `training_crops` reads (the rest say how to train on them).
CROP_OPTIONS = (
    "copies",
    "faint_copies",
    "faint_below",
    "rendered",
    "cocked",
    "packed",
    "plain_looks",
    "kinds",
    "hold_out",
    "seed",
)


def network() -> nn.Sequential:
    """About 126k weights: five 3x3 conv layers in three stages, global average pooling.

    Pooling over the whole map (not a dense layer over positions) keeps the head small and
    makes the answer depend on what pips there are more than on exactly where the crop fell.
    """

    def conv(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]

    return nn.Sequential(
        *conv(3, 16),
        nn.MaxPool2d(2),
        *conv(16, 32),
        *conv(32, 32),
        nn.MaxPool2d(2),
        *conv(32, 64),
        *conv(64, 64),
        nn.MaxPool2d(2),
        *conv(64, 96),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(96, VALUE_CLASSES),
    )


def looks(
    image: np.ndarray,
    truth: list[TruthDie],
    rng: np.random.Generator,
    copies: int,
    *,
    close: int = 0,
    faint_copies: int | None = None,
    faint_below: float = 0.0,
) -> tuple[list[np.ndarray], list[int]]:
    """`copies` jittered cuts of each known die at the sizes the detector's boxes come in,
    and `close` more cut close around its face (0.6-0.9 of its extent, all pips still in),
    so that a die filling its crop is not read as a cocked die's side face. A die whose pips
    differ from its body by less than `faint_below` grey levels (`pip_contrast`) is cut
    `faint_copies` times instead of `copies`: those are the dice the reader finds hardest."""
    crops: list[np.ndarray] = []
    classes: list[int] = []
    for t in truth:
        cuts = copies
        if faint_copies is not None and pip_contrast(image, t) < faint_below:
            cuts = faint_copies
        for copy in range(cuts + close):
            extent = t.extent
            dx, dy = rng.uniform(-0.1, 0.1, 2) * extent
            scale = rng.uniform(0.8, 1.25) if copy < cuts else rng.uniform(0.6, 0.9)
            crops.append(
                squared_crop(
                    image, t.x + dx, t.y + dy, extent * float(scale), jitter=float(rng.normal(0, 4))
                )
            )
            classes.append(t.label - 1)  # 1-6 -> 0-5, cocked (7) -> 6
    return crops, classes


def side_face_shown(tilt: float, along: float, scale: float) -> float:
    """How much of a cocked die's side face (0-1) a cut shows whose centre lies `along` the
    way from the top face's centre to the side face's and whose size is `scale` times the
    die's extent; the reader's crop reaches VALUE_SCALE / 2 sides each way from its centre."""
    t = math.radians(tilt)
    centre = along * (math.cos(t) + math.sin(t))  # in half sides, along the die's own y
    reach = centre + VALUE_SCALE * scale  # the crop's edge, in half sides
    return float(np.clip((reach - math.cos(t)) / (2.0 * math.sin(t)), 0.0, 1.0))


def cocked_looks(trays: int, seed: int, copies: int) -> tuple[list[np.ndarray], list[int]]:
    """Rendered trays in which every die is cocked, each cut where the detector may centre on
    it: on its tilted top face, at the sizes flat dice are cut at, or on the side face it
    shows, at that face's smaller size. A tilted top face alone still shows its pips, so
    without these the reader reads it as a flat die, and a side face found as a die of its
    own, as one more die.

    Only cuts that show at least half the side face are labelled cocked: a cut of the top
    face alone looks like a flat die, and labelling it cocked taught the network to call
    flat dice cocked. For the same reason the tilt starts at 25 degrees, where the side face
    is already twice as tall as the sliver a flat die seen a little from the side shows.
    """
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    classes: list[int] = []
    for index in range(trays):
        count = int(rng.integers(1, 6))
        scene = random_scene(rng, count, die_size=float(rng.uniform(18, 64)), cocked=count)
        dice = tuple(replace(d, tilt=float(rng.uniform(25, 55))) for d in scene.dice)
        image = render(replace(scene, dice=dice), seed * 100003 + index)
        for d in dice:
            side_x, side_y = d.side_face_centre
            extent = TruthDie(d.x, d.y, d.size, COCKED, d.angle).extent
            for copy in range(copies):
                on_side = copy % 2 == 1
                while True:
                    # A share of the way from the top face's centre to the side face's.
                    along = float(rng.uniform(0.8, 1.1) if on_side else rng.uniform(0, 0.5))
                    scale = float(rng.uniform(0.5, 0.9) if on_side else rng.uniform(0.8, 1.25))
                    if side_face_shown(d.tilt, along, scale) >= 0.5:
                        break
                dx, dy = rng.uniform(-0.1, 0.1, 2) * extent
                x = d.x + (side_x - d.x) * along + dx
                y = d.y + (side_y - d.y) * along + dy
                crops.append(
                    squared_crop(image, x, y, extent * scale, jitter=float(rng.normal(0, 4)))
                )
                classes.append(COCKED - 1)
    return crops, classes


def training_crops(
    args: argparse.Namespace, labels: dict[str, list[LabelledDie]]
) -> tuple[dict[str, tuple[list[np.ndarray], list[int]]], np.ndarray, np.ndarray]:
    """Every photo's cuts (by photo, so a fold leaves its own out) and the rendered cuts,
    as the options say; the same options and seed give the same crops."""
    rng = np.random.default_rng(args.seed)
    names = sorted(labels)
    real: dict[str, tuple[list[np.ndarray], list[int]]] = {}
    for name in names:
        real[name] = looks(
            read_photo(name),
            from_labels(labels[name]),
            rng,
            args.copies,
            faint_copies=args.faint_copies,
            faint_below=args.faint_below,
        )
    rendered_x: list[np.ndarray] = []
    rendered_y: list[int] = []
    styles = DIE_STYLES if args.plain_looks else TRAINING_DIE_STYLES
    for image, truth in rendered_examples(
        args.rendered, args.seed + 1000, styles=styles, packed=args.packed
    ):
        c, k = looks(image, truth, rng, 2, close=1)
        rendered_x += c
        rendered_y += k
    # Other tables' pictures (issue 34), whole kinds held out to measure a setup unseen.
    for image, truth in other_tables(args.kinds, args.seed + 3000, args.hold_out):
        c, k = looks(image, truth, rng, 2, close=1)
        rendered_x += c
        rendered_y += k
    c, k = cocked_looks(args.cocked, args.seed + 2000, 4)
    rendered_x += c
    rendered_y += k
    print(
        f"{sum(len(v[1]) for v in real.values())} real and {len(rendered_y)} rendered cuts"
        f" ({len(k)} of cocked dice, top or side face)",
        file=sys.stderr,
        flush=True,
    )
    rx = np.array(rendered_x, np.uint8)
    ry = np.array(rendered_y, np.int64)
    return real, rx, ry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--copies", type=int, default=12, help="jittered cuts per real die")
    parser.add_argument(
        "--faint-copies",
        type=int,
        default=36,
        help="jittered cuts per real die whose pips hardly differ from its body (12: as before)",
    )
    parser.add_argument(
        "--faint-below",
        type=float,
        default=50.0,
        help="grey levels between pips and body under which a die is faint (pip_contrast)",
    )
    parser.add_argument("--rendered", type=int, default=500)
    parser.add_argument(
        "--cocked", type=int, default=300, help="rendered trays of cocked dice only"
    )
    parser.add_argument(
        "--packed", type=float, default=0.4, help="share of rendered trays with dice touching"
    )
    parser.add_argument(
        "--neighbours",
        type=float,
        default=0.25,
        help="share of training crops given a piece of another die at an edge",
    )
    parser.add_argument(
        "--plain-looks",
        action="store_true",
        help="render only the simulated table's die looks (not the harder dark ones as well)",
    )
    parser.add_argument(
        "--cameras",
        type=float,
        default=0.0,
        help="share of training crops seen as other cameras see them (imitate_cameras)",
    )
    parser.add_argument(
        "--cameras-on",
        choices=("all", "rendered"),
        default="all",
        help="which crops --cameras may imitate: all, or the rendered ones only (the real"
        " photos' crops kept as their camera gave them)",
    )
    parser.add_argument(
        "--camera-faults",
        nargs="+",
        choices=tuple(CAMERA_FAULTS),
        default=[],
        metavar="FAULT",
        help=f"the faults --cameras chooses from (default all: {', '.join(CAMERA_FAULTS)})",
    )
    add_other_tables_options(parser)
    add_device_option(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--fold-models", type=Path, default=ROOT / "out" / "folds")
    parser.add_argument("--no-final", action="store_true")
    parser.add_argument(
        "--grey", type=float, default=0.0, help="share of training batches turned grey"
    )
    parser.add_argument(
        "--only-folds",
        type=int,
        nargs="*",
        help="train just these folds (to spread the folds over several processes)",
    )
    parser.add_argument(
        "--crops-cache",
        type=Path,
        help="keep the training crops in this file and take them from it when it exists"
        " (so the processes of one recipe's folds make them once)",
    )
    parser.add_argument(
        "--prepare-only", action="store_true", help="make the --crops-cache file, train nothing"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    labels = load_labels(PHOTOS / "labels.csv")
    names = sorted(labels)
    # The options that shape the crops: a cache made with others is refused, not used.
    shaped_by = {k: vars(args)[k] for k in CROP_OPTIONS}
    if args.crops_cache is not None and args.crops_cache.exists():
        with args.crops_cache.open("rb") as f:
            made_by, real, rx, ry = pickle.load(f)  # our own file, written below by this script
        if made_by != shaped_by:
            parser.error(
                f"--crops-cache {args.crops_cache} was made with {made_by}, not {shaped_by}:"
                " remove it or name another file"
            )
    else:
        real, rx, ry = training_crops(args, labels)
        if args.crops_cache is not None:
            args.crops_cache.parent.mkdir(parents=True, exist_ok=True)
            partial = args.crops_cache.with_suffix(".partial")
            with partial.open("wb") as f:
                pickle.dump((shaped_by, real, rx, ry), f, protocol=pickle.HIGHEST_PROTOCOL)
            partial.replace(args.crops_cache)  # whole or absent, for processes that wait on it
    if args.prepare_only:
        return 0
    args.fold_models.mkdir(parents=True, exist_ok=True)

    def stack(chosen: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
        """The chosen photos' cuts, then the rendered ones, and where --cameras may start."""
        xs = [np.array(real[n][0], np.uint8) for n in chosen]
        ys = [np.array(real[n][1], np.int64) for n in chosen]
        real_count = sum(len(c) for c in ys)
        imitate_from = real_count if args.cameras_on == "rendered" else 0
        return np.concatenate([*xs, rx]), np.concatenate([*ys, ry]), imitate_from

    results = []
    for fold in range(args.folds):
        if args.only_folds is not None and fold not in args.only_folds:
            continue
        train_names = [n for n in names if fold_of(n, args.folds) != fold]
        test_names = [n for n in names if fold_of(n, args.folds) == fold]
        x, y, imitate_from = stack(train_names)
        model = train_model(
            network(),
            x,
            y,
            epochs=args.epochs,
            seed=args.seed + fold,
            log=f"values fold {fold}",
            per_crop_light=True,
            grey=args.grey,
            neighbours=args.neighbours,
            cameras=args.cameras,
            camera_faults=args.camera_faults,
            imitate_from=imitate_from,
            device=args.device,
        )
        export(model, args.fold_models / f"values-fold{fold}-of-{args.folds}.onnx", VALUE_CROP)
        # Held-out check on cuts at the labelled place, four quarter turns pooled.
        right = total = 0
        with torch.no_grad():
            for name in test_names:
                image = read_photo(name)
                for t in from_labels(labels[name]):
                    squared = squared_crop(image, t.x, t.y, t.extent)
                    cuts = [np.rot90(squared, k) for k in range(4)]
                    p = torch.softmax(model(to_tensor(np.array(cuts))), 1).mean(0)
                    right += int(int(p.argmax()) + 1 == t.label)
                    total += 1
        results.append(right / total)
        print(
            f"values fold {fold}: {right}/{total} = {right / total:.4f}",
            file=sys.stderr,
            flush=True,
        )
    if results:
        print(json.dumps({"folds": args.folds, "held_out_value_accuracy": results}))
    if not args.no_final:
        x, y, imitate_from = stack(names)
        final = train_model(
            network(),
            x,
            y,
            epochs=args.epochs,
            seed=args.seed,
            log="values final",
            per_crop_light=True,
            grey=args.grey,
            neighbours=args.neighbours,
            cameras=args.cameras,
            camera_faults=args.camera_faults,
            imitate_from=imitate_from,
            device=args.device,
        )
        export(final, args.out, VALUE_CROP)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

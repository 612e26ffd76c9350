"""Trains the die detector and writes vision/model/dice_cnn.onnx; cross-validates first.

    /tmp/torchenv/bin/python -m tabletop.vision.training.train_classifier --folds 5

PyTorch (CPU) is needed here only; the reader runs the ONNX file through OpenCV. Data: the
real photos in tests/data/dice-tray (each fold's photos are held out of its model) and trays
rendered by tabletop.hardware.camera.render with a fixed seed, so a run is repeatable.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from tabletop.hardware.camera.render import BGR, DIE_STYLES, TRAINING_DIE_STYLES
from tabletop.vision.classify import CLASS_COUNT, CROP, DieClassifier
from tabletop.vision.evaluate import Score, fold_of, load_labels, score_photos
from tabletop.vision.progress import progress
from tabletop.vision.reader import DiceReader
from tabletop.vision.training.harvest import (
    add_other_tables_options,
    from_labels,
    harvest,
    other_tables,
    rendered_examples,
)
from tabletop.vision.training.imitate import imitate_cameras

ROOT = Path(__file__).resolve().parents[4]
PHOTOS = ROOT / "tests" / "data" / "dice-tray"
MODEL = ROOT / "src" / "tabletop" / "vision" / "model" / "dice_cnn.onnx"


def read_photo(name: str) -> npt.NDArray[np.uint8]:
    """One of the labelled photos in tests/data/dice-tray/images, as BGR pixels."""
    path = PHOTOS / "images" / name
    image = cv2.imread(str(path))
    if image is None:
        raise FileNotFoundError(f"cannot read photo {path}")
    return np.asarray(image, np.uint8)


def network() -> nn.Sequential:
    """About 140k weights: three conv blocks and a small head."""

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [
            nn.Conv2d(cin, cout, 3, padding=1),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]

    return nn.Sequential(
        *block(3, 8),
        *block(8, 16),
        *block(16, 32),
        nn.Flatten(),
        nn.Linear(32 * (CROP // 8) ** 2, 64),
        nn.ReLU(),
        nn.Linear(64, CLASS_COUNT),
    )


def to_tensor(batch: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(batch.astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - 0.5)


def augment(batch: np.ndarray, rng: np.random.Generator, grey: float = 0.2) -> np.ndarray:
    """Quarter turns and mirrors leave a face's value alone; so do colour and light changes.
    `grey` is the share of batches turned grey."""
    batch = np.rot90(batch, int(rng.integers(4)), axes=(1, 2))
    if rng.random() < 0.5:
        batch = batch[:, :, ::-1]
    if rng.random() < 0.5:
        batch = batch[..., rng.permutation(3)]
    if rng.random() < grey:  # grey: colour is a hint, not the answer
        level = batch.mean(axis=3, keepdims=True)
        batch = np.repeat(level, 3, axis=3)
    if rng.random() < 0.2:  # inverted: light pips on dark dice and dark on light look alike
        batch = 255 - batch
    return np.ascontiguousarray(batch)


def vary_light(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per crop: colour cast, contrast, sensor noise and focus blur, as other cameras and lamps
    give them (the 200 photos are one camera under one light)."""
    n = len(batch)
    out = batch.astype(np.float32) * rng.uniform(0.75, 1.25, (n, 1, 1, 3)).astype(np.float32)
    mean: npt.NDArray[np.float32] = out.mean(axis=(1, 2, 3), keepdims=True)
    out = (out - mean) * rng.uniform(0.6, 1.4, (n, 1, 1, 1)).astype(np.float32) + mean
    noisy = rng.random(n) < 0.3
    if noisy.any():
        sigma = float(rng.uniform(2, 10))
        out[noisy] += rng.normal(0, sigma, out[noisy].shape).astype(np.float32)
    for i in np.nonzero(rng.random(n) < 0.25)[0]:
        out[i] = cv2.GaussianBlur(out[i], (0, 0), float(rng.uniform(0.5, 1.3)))
    return np.clip(out, 0, 255)


def neighbour_strips(batch: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """A share of the crops get a strip along one edge from the inside of another crop of the
    batch: a neighbour's body and pips in view, as a die touching others in a heap shows them
    (the real photos' wrong values were mostly such dice)."""
    n, side = len(batch), batch.shape[1]
    chosen = np.nonzero(rng.random(n) < share)[0]
    if not len(chosen):
        return batch
    out = batch.copy()
    for i in chosen:
        width = int(rng.integers(2, max(3, side // 8) + 1))  # the margin, not the pips
        start = int(rng.integers(side // 10, side // 2 - width + 1))
        other = batch[int(rng.integers(n))]
        turns = int(rng.integers(4))
        turned = np.rot90(out[i], turns)  # a view: the strip lands on a random edge
        turned[:, :width] = other[:, start : start + width]
    return out


def train(
    x: np.ndarray, y: np.ndarray, epochs: int, seed: int, log: str, *, device: str = "cpu"
) -> nn.Sequential:
    torch.manual_seed(seed)
    return train_model(
        network(), x, y, epochs=epochs, seed=seed, log=log, per_crop_light=True, device=device
    )


def train_model(
    model: nn.Sequential,
    x: np.ndarray,
    y: np.ndarray,
    *,
    epochs: int,
    seed: int,
    log: str,
    per_crop_light: bool = False,
    grey: float = 0.2,
    neighbours: float = 0.0,
    cameras: float = 0.0,
    camera_faults: Sequence[str] = (),
    imitate_from: int = 0,
    device: str = "cpu",
) -> nn.Sequential:
    """Adam with a one-cycle schedule, batches of 128, augmented as `augment` says; light
    varies per batch, or per crop (`vary_light`) when `per_crop_light`; a share `neighbours`
    of the crops shows a piece of another die at an edge (`neighbour_strips`), and a share
    `cameras` of the crops from index `imitate_from` on is seen as other cameras see
    (`imitate_cameras`, choosing from `camera_faults`). The crops are made ready on the CPU;
    `device` ("cuda") runs the network elsewhere, and the model comes back on the CPU."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model.to(device)
    steps = epochs * ((len(x) + 127) // 128)
    optimiser = torch.optim.Adam(model.parameters(), 1e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 1e-2, total_steps=steps)
    with progress(epochs, f"{log}: training") as step:
        for epoch in range(epochs):
            model.train()
            order = rng.permutation(len(x))
            total = torch.zeros((), device=device)  # summed there: no wait for the GPU each step
            for start in range(0, len(x), 128):
                pick = order[start : start + 128]
                raw = neighbour_strips(x[pick], rng, neighbours) if neighbours else x[pick]
                turned = augment(raw, rng, grey)
                if cameras:
                    imitable = pick >= imitate_from
                    turned[imitable] = imitate_cameras(
                        turned[imitable], rng, cameras, camera_faults
                    )
                if per_crop_light:
                    batch = to_tensor(vary_light(turned, rng))
                else:
                    batch = to_tensor(turned)
                    gain = float(rng.uniform(0.7, 1.3))
                    batch = batch * gain + float(rng.uniform(-0.15, 0.15))
                target = torch.from_numpy(y[pick]).long().to(device)
                loss = nn.functional.cross_entropy(model(batch.to(device)), target)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                schedule.step()
                total += loss.detach() * len(pick)
            step(f"epoch {epoch + 1}: loss {float(total) / len(x):.4f}")
    model.to("cpu")
    model.eval()
    return model


def add_device_option(parser: argparse.ArgumentParser) -> None:
    """`--device`: where the network trains; the crops are always made on the CPU."""
    parser.add_argument(
        "--device",
        default="cpu",
        help="torch device for the network: cpu (the recipe as documented) or cuda (a GPU;"
        " the same recipe, numerically another network)",
    )


def export(model: nn.Sequential, path: Path, side: int = CROP) -> None:
    """Writes the network as ONNX (opset 13) taking any number of side x side crops."""
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, side, side),),
        str(path),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=13,
        dynamo=False,
    )


def harvest_all(
    rendered: int,
    seed: int,
    *,
    styles: tuple[tuple[BGR, BGR], ...] = DIE_STYLES,
    packed: float = 0.0,
    kinds: int = 0,
    hold_out: Collection[str] = (),
) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = load_labels(PHOTOS / "labels.csv")
    real: dict[str, Any] = {}
    for name, dice in sorted(labels.items()):
        real[name] = harvest(read_photo(name), from_labels(dice), rng)
    crops: list[np.ndarray] = []
    classes: list[int] = []
    for image, truth in rendered_examples(rendered, seed, styles=styles, packed=packed):
        c, k = harvest(image, truth, rng, copies=1)
        crops += c
        classes += k
    # Other tables' pictures (issue 34): their coins, pencils and noise teach "no die" too.
    for image, truth in other_tables(kinds, seed + 3000, hold_out):
        c, k = harvest(image, truth, rng, copies=1)
        crops += c
        classes += k
    print(
        f"harvested {sum(len(v[0]) for v in real.values())} real crops from {len(real)} photos, "
        f"{len(crops)} rendered crops from {rendered} trays",
        file=sys.stderr,
    )
    return real, np.array(crops, np.uint8), np.array(classes, np.int64)


def stack(real: dict[str, Any], names: list[str], extra_x: np.ndarray, extra_y: np.ndarray):  # type: ignore[no-untyped-def]
    xs = [np.array(real[n][0], np.uint8) for n in names if real[n][0]]
    ys = [np.array(real[n][1], np.int64) for n in names if real[n][1]]
    return np.concatenate([*xs, extra_x]), np.concatenate([*ys, extra_y])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (0: none)")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--rendered", type=int, default=300, help="rendered trays to add")
    parser.add_argument(
        "--packed", type=float, default=0.4, help="share of rendered trays with dice touching"
    )
    parser.add_argument(
        "--plain-looks",
        action="store_true",
        help="render only the simulated table's die looks (not the harder dark ones as well)",
    )
    add_other_tables_options(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=MODEL)
    # The whole reader's cross-validation (detector and value reader together) is
    # tabletop.vision.training.cross_validate, which writes src/tabletop/vision/training/cv.json;
    # this report is the detector with the reader's other parts as they were when it ran.
    parser.add_argument("--report", type=Path, default=ROOT / "out" / "detector-cv.json")
    parser.add_argument("--no-final", action="store_true", help="only cross-validate")
    parser.add_argument(
        "--only-folds",
        type=int,
        nargs="*",
        help="train just these folds (to spread the folds over several processes)",
    )
    parser.add_argument(
        "--fold-models",
        type=Path,
        default=ROOT / "out" / "folds",
        help="where each fold's model is kept (so the reader's rules can be re-scored)",
    )
    parser.add_argument(
        "--rescore", action="store_true", help="score the kept fold models again, no training"
    )
    add_device_option(parser)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    labels = load_labels(PHOTOS / "labels.csv")
    names = sorted(labels)
    if not args.rescore:
        styles = DIE_STYLES if args.plain_looks else TRAINING_DIE_STYLES
        real, rx, ry = harvest_all(
            args.rendered,
            args.seed,
            styles=styles,
            packed=args.packed,
            kinds=args.kinds,
            hold_out=args.hold_out,
        )
    args.fold_models.mkdir(parents=True, exist_ok=True)
    if args.folds:
        total = Score()
        for fold in range(args.folds):
            if args.only_folds is not None and fold not in args.only_folds:
                continue
            train_names = [n for n in names if fold_of(n, args.folds) != fold]
            test_names = [n for n in names if fold_of(n, args.folds) == fold]
            path = args.fold_models / f"fold{fold}-of-{args.folds}.onnx"
            if not args.rescore:
                x, y = stack(real, train_names, rx, ry)
                model = train(
                    x, y, args.epochs, args.seed + fold, f"fold {fold}", device=args.device
                )
                export(model, path)
            reader = DiceReader(DieClassifier(path))
            score = score_photos(PHOTOS / "images", labels, reader.read, test_names)
            print(f"fold {fold}: {json.dumps(score.summary())}", file=sys.stderr, flush=True)
            total.merge(score)
        report = {
            "folds": args.folds,
            "epochs": args.epochs,
            "rendered": args.rendered,
            **total.summary(),
            "misses": [[n, d.value] for n, d in total.misses],
            "wrong": [[n, d.value, v] for n, d, v in total.wrong],
        }
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(total.summary()), flush=True)
    if not args.no_final and not args.rescore:
        x, y = stack(real, names, rx, ry)
        model = train(x, y, args.epochs, args.seed, "final", device=args.device)
        export(model, args.out)
        print(f"wrote {args.out} ({args.out.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

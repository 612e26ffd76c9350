"""Trains the one-pass dice reader (`tabletop.vision.onepass`); writes one ONNX network per fold.

    PYTHONPATH=. /tmp/torchenv/bin/python -m tabletop.vision.training.train_onepass --out
    out/onepass # on a lent GPU (16 cores): the five folds and the final network at once, five
    minutes each for k in 0 1 2 3 4; do PYTHONPATH=. python3 -m
    tabletop.vision.training.train_onepass --device cuda \
        --only-folds $k --no-final --rendered 1200 --minutes 5 --out out/onepass & done
    PYTHONPATH=. python3 -m tabletop.vision.training.train_onepass --device cuda --only-folds \
        --rendered 1200 --minutes 5 --out out/onepass; wait

One fully convolutional network finds and reads every die of a picture at once (issue 34, item
2): on a grid of 4x4-pixel cells, a die centre's presence (a Gaussian peak per die, CenterNet's
focal loss), the value there (1-6 or cocked) and the box's extent. It learns from the same
pictures as the staged reader: the real photos (each fold's held out of its network, as
`tabletop.vision.training.cross_validate` holds them out) and rendered trays
(`src/tabletop/hardware/camera/render.py`, the training die looks, 40 % heaped, a third with one or
two cocked dice), every picture cut into 320x320 pieces turned, scaled (0.55-1.6) and seen as other
cameras see it (colour cast, hue, gamma, blur, shake, noise, a small sensor, JPEG:
`tabletop.vision.training.onepass_data`). The staged reader's networks were trained without other
tables' kinds of picture, and so is this one, so that both meet those kinds unseen
(`bench/vision_onepass.py`).

Writes `onepass-foldK-of-N.onnx` for each fold and `onepass.onnx` (every photo) to `--out`,
each with a `.log` of its losses and a `.json` of the options it was trained with. `--minutes`
trains for a time rather than a number of batches (the learning rate follows the clock), so a
lease ends with trained networks however fast its machine is. On this project's 2-core host a
batch of 32 takes about a second: the GPU recipe's 2,800 batches, about 50 minutes a network.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from tabletop.vision.evaluate import fold_of, load_labels
from tabletop.vision.onepass import CHANNELS, MULTIPLE, VALUE_CLASSES
from tabletop.vision.training.onepass_data import (
    PHOTOS,
    Image,
    Truth,
    photo_truths,
    piece,
    rendered_pool,
    seen_by_another_camera,
    targets,
)

ROOT = Path(__file__).resolve().parents[4]


def network() -> nn.Module:
    """About 55k weights: a depthwise-separable backbone down to 1/16, a small feature
    pyramid back up to 1/4, and a 1x1 head of CHANNELS maps."""

    def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()
        )

    def separable(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
            nn.BatchNorm2d(cin),
            nn.ReLU(),
            nn.Conv2d(cin, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        )

    class OnePass(nn.Module):  # type: ignore[misc]  # torch is untyped here
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(conv(3, 16, 2), separable(16, 24))  # 1/2
            self.down4 = nn.Sequential(separable(24, 32, 2), separable(32, 32))  # 1/4
            self.down8 = nn.Sequential(separable(32, 64, 2), separable(64, 64))  # 1/8
            self.down16 = nn.Sequential(
                separable(64, 96, 2), separable(96, 96), separable(96, 96)
            )  # 1/16
            self.lateral16 = nn.Conv2d(96, 48, 1)
            self.lateral8 = nn.Conv2d(64, 48, 1)
            self.lateral4 = nn.Conv2d(32, 48, 1)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.head = nn.Sequential(
                separable(48, 48), separable(48, 48), nn.Conv2d(48, CHANNELS, 1)
            )
            # Presence starts near 1 %: most cells hold no die (CenterNet's prior).
            last = self.head[-1]
            assert isinstance(last, nn.Conv2d) and last.bias is not None
            with torch.no_grad():
                last.bias[0] = -4.6

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            f4 = self.down4(self.stem(x))
            f8 = self.down8(f4)
            f16 = self.down16(f8)
            p8 = self.up(self.lateral16(f16)) + self.lateral8(f8)
            p4 = self.up(p8) + self.lateral4(f4)
            return self.head(p4)

    return OnePass()


class Pieces(torch.utils.data.IterableDataset):  # type: ignore[misc]
    """An endless stream of training pieces: half from the photos, half from the renders."""

    def __init__(
        self,
        photos: list[tuple[Image, list[Truth]]],
        renders: list[tuple[Image, list[Truth]]],
        seed: int,
    ) -> None:
        self.photos = photos
        self.renders = renders
        self.seed = seed

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            source = self.photos if (rng.random() < 0.5 or not self.renders) else self.renders
            image, truths = source[int(rng.integers(len(source)))]
            cut, moved = piece(image, truths, rng)
            cut = seen_by_another_camera(cut, rng)
            heat, cls, size = targets(moved)
            blob = cut.astype(np.float32).transpose(2, 0, 1) / 255.0 - 0.5
            yield (
                torch.from_numpy(np.ascontiguousarray(blob)),
                torch.from_numpy(heat),
                torch.from_numpy(cls),
                torch.from_numpy(size),
            )


def loss_of(
    out: torch.Tensor, heat: torch.Tensor, cls: torch.Tensor, size: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """CenterNet's focal loss on presence (per die), cross-entropy on the value and L1 on
    the log extent where taught. Masks multiply rather than select: selecting by a mask
    makes the CPU wait for the GPU at every step."""
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    centre = (heat >= 1.0).float()
    positive = -(torch.log(p) * (1 - p) ** 2 * centre).sum()
    negative = -(torch.log(1 - p) * p**2 * (1 - heat) ** 4 * (1 - centre)).sum()
    focal = (positive + negative) / centre.sum().clamp(min=1)
    logits = out[:, 1 : 1 + VALUE_CLASSES].permute(0, 2, 3, 1).reshape(-1, VALUE_CLASSES)
    taught = (cls >= 0).float()
    per_cell = nn.functional.cross_entropy(logits, cls.reshape(-1).clamp(min=0), reduction="none")
    value = (per_cell * taught.reshape(-1)).sum() / taught.sum().clamp(min=1)
    sized = (~torch.isnan(size)).float()
    off = (out[:, CHANNELS - 1] - torch.nan_to_num(size)).abs() * sized
    extent = off.sum() / sized.sum().clamp(min=1)
    return focal, value, extent


PEAK_RATE = 4e-3


def rate_at(done: float) -> float:
    """The learning rate when a share `done` of the training is behind: up to PEAK_RATE over
    the first tenth, then down along a half cosine to nearly nothing (a one-cycle schedule)."""
    if done < 0.1:
        return PEAK_RATE * (0.1 + 0.9 * done / 0.1)
    return PEAK_RATE * (
        0.002 + 0.998 * 0.5 * (1 + math.cos(math.pi * min(1.0, (done - 0.1) / 0.9)))
    )


def train(
    photos: list[tuple[Image, list[Truth]]],
    renders: list[tuple[Image, list[Truth]]],
    *,
    steps: int,
    batch: int,
    seed: int,
    workers: int,
    device: str,
    log: Path,
    minutes: float | None = None,
) -> nn.Module:
    """AdamW with a one-cycle schedule over `steps` batches of pieces, or, given `minutes`,
    over that long (the schedule follows the clock, so a lease's minutes end with a trained
    network however fast the machine cuts pieces); the model comes back on the CPU, ready to
    export. Writes each 100 steps' mean losses to `log`."""
    torch.manual_seed(seed)
    model = network().to(device)
    optimiser = torch.optim.AdamW(model.parameters(), rate_at(0.0), weight_decay=1e-4)
    loader = torch.utils.data.DataLoader(
        Pieces(photos, renders, seed),
        batch_size=batch,
        num_workers=workers,
        persistent_workers=workers > 0,
        prefetch_factor=4 if workers else None,
    )
    started = time.monotonic()
    sums = torch.zeros(3, device=device)
    with log.open("w", encoding="utf-8") as out:
        model.train()
        for step, (x, heat, cls, size) in enumerate(loader):
            done = (time.monotonic() - started) / (60 * minutes) if minutes else step / steps
            if done >= 1.0:
                out.write(f"trained {step} steps of {batch} pieces\n")
                break
            for group in optimiser.param_groups:
                group["lr"] = rate_at(done)
            parts = loss_of(
                model(x.to(device, non_blocking=True)),
                heat.to(device),
                cls.to(device),
                size.to(device),
            )
            loss = parts[0] + parts[1] + 0.5 * parts[2]
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            sums += torch.stack([p.detach() for p in parts])
            if (step + 1) % 100 == 0:
                focal, value, extent = (float(v) / 100 for v in sums)
                sums.zero_()
                line = (
                    f"step {step + 1} ({100 * done:.0f} %): presence {focal:.3f},"
                    f" value {value:.3f}, extent {extent:.3f} ({time.monotonic() - started:.0f} s)"
                )
                print(f"{log.stem}: {line}", flush=True)
                out.write(line + "\n")
    model.to("cpu")
    model.eval()
    return model


def export(model: nn.Module, path: Path) -> None:
    """Writes the network as ONNX (opset 13) taking a picture of any size that divides by 16."""
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, 6 * MULTIPLE, 8 * MULTIPLE),),
        str(path),
        input_names=["picture"],
        output_names=["maps"],
        dynamic_axes={"picture": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}},
        opset_version=13,
        dynamo=False,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--only-folds", type=int, nargs="*", help="train these folds alone")
    parser.add_argument("--no-final", action="store_true", help="no network on every photo")
    parser.add_argument("--steps", type=int, default=4000, help="batches to train on")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rendered", type=int, default=2000, help="rendered trays in the pool")
    parser.add_argument("--workers", type=int, default=2, help="processes cutting pieces")
    parser.add_argument("--jobs", type=int, default=2, help="processes rendering the pool")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="torch device: cpu or cuda")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "onepass")
    parser.add_argument(
        "--minutes",
        type=float,
        help="train each network this long, its schedule following the clock, in place of --steps",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1 if args.device != "cpu" else max(1, torch.get_num_threads()))
    cv2.setNumThreads(1)
    names = sorted(load_labels(PHOTOS / "labels.csv"))
    folds = args.only_folds if args.only_folds is not None else list(range(args.folds))
    runs: list[tuple[str, list[str]]] = [
        (f"onepass-fold{k}-of-{args.folds}", [n for n in names if fold_of(n, args.folds) != k])
        for k in folds
    ]
    if not args.no_final:
        runs.append(("onepass", names))
    started = time.monotonic()
    renders = rendered_pool(args.rendered, args.seed + 1, args.jobs)
    print(f"{len(renders)} rendered trays in {time.monotonic() - started:.0f} s", flush=True)
    for index, (name, training) in enumerate(runs):
        model = train(
            photo_truths(training),
            renders,
            steps=args.steps,
            batch=args.batch,
            seed=args.seed * 100 + index,
            workers=args.workers,
            device=args.device,
            log=args.out / f"{name}.log",
            minutes=args.minutes,
        )
        export(model, args.out / f"{name}.onnx")
        recipe = vars(args) | {"photos": len(training)}
        (args.out / f"{name}.json").write_text(json.dumps(recipe, default=str, indent=1) + "\n")
        print(f"{name}: {len(training)} photos, written ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

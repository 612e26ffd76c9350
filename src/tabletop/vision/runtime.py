"""Runs a committed ONNX network on the CPU, through ONNX Runtime or OpenCV's dnn module.

ONNX Runtime is about twice as fast on these small networks (docs/benchmarks.md, "Vision"), so it
is used when installed; OpenCV's dnn module, always present, is the fallback (ONNX Runtime
has no wheel for 32-bit Raspberry Pi OS). `TABLETOP_DNN=onnxruntime|opencv` chooses one;
both run on one thread, so reading dice never competes with the rest of the table for cores.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

from .errors import ModelError

Blob = npt.NDArray[np.float32]
RUNTIMES = ("onnxruntime", "opencv")
ENVIRONMENT = "TABLETOP_DNN"


def chosen_runtime() -> str:
    """The runtime `TABLETOP_DNN` asks for, or the fastest one installed."""
    asked = os.environ.get(ENVIRONMENT, "").strip().lower()
    if asked:
        if asked not in RUNTIMES:
            raise ModelError(
                f"{ENVIRONMENT}={asked!r} is not a runtime; use one of {', '.join(RUNTIMES)}"
            )
        return asked
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return "opencv"
    return "onnxruntime"


def open_network(data: bytes, name: str, runtime: str | None = None) -> Callable[[Blob], Blob]:
    """A function from an input batch to the network's output, for the ONNX file's bytes.

    Raises ModelError, naming the file, when the runtime is missing or the file is not a
    network it can run.
    """
    which = runtime if runtime is not None else chosen_runtime()
    if which == "onnxruntime":
        try:
            import onnxruntime as ort
        except ImportError as error:
            raise ModelError(
                f"{ENVIRONMENT}=onnxruntime but ONNX Runtime is not installed ({error})"
            ) from error
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings about unused initialisers are not ours
        try:
            session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        except Exception as error:  # ONNX Runtime raises its own unexported error types
            raise ModelError(f"cannot load the dice model {name}: {error}") from error
        input_name = session.get_inputs()[0].name

        def run_session(blob: Blob) -> Blob:
            return np.asarray(session.run(None, {input_name: blob})[0], np.float32)

        return run_session
    if which != "opencv":
        raise ModelError(f"unknown runtime {which!r}; use one of {', '.join(RUNTIMES)}")
    try:
        net = cv2.dnn.readNetFromONNX(np.frombuffer(data, np.uint8))
    except cv2.error as error:
        raise ModelError(f"cannot load the dice model {name}: {error}") from error

    def run_net(blob: Blob) -> Blob:
        net.setInput(blob)
        return np.asarray(net.forward(), np.float32)

    return run_net

"""SKiDL, imported so that it writes no files and prints nothing.

On import SKiDL opens `<script>.log` and `<script>.erc` in the working directory and logs to
standard error (that no KiCad library folder is set: the circuit names its one library itself).
The build collects the ERC's findings with its own handler (`erc.run_erc`), so both go.
It also records where each part was made more cheaply (`_creation_trace`).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import tempfile
from types import FrameType

# In a folder of its own: two processes importing SKiDL in one folder (pytest's workers) would
# each remove the other's log file and the second would fail. The files go before we leave.
with (
    tempfile.TemporaryDirectory(prefix="skidl-") as _private,
    contextlib.chdir(_private),
    contextlib.redirect_stderr(io.StringIO()),
):
    import skidl
    from skidl.logger import stop_log_file_output

    stop_log_file_output()

from skidl import circuit as skidl_circuit
from skidl import logger as skidl_logger
from skidl import node as skidl_node

for _name in ("skidl", "ERC_Logger"):
    _logger = logging.getLogger(_name)
    for _handler in list(_logger.handlers):
        if not isinstance(_handler, logging.FileHandler):
            _logger.removeHandler(_handler)
    # Without a handler Python's last resort would print the warnings after all.
    _logger.addHandler(logging.NullHandler())

__all__ = ["skidl"]


def _creation_trace() -> list[tuple[str, str]]:
    """Where a part or net was made: the same (file, line) list as SKiDL's own
    `get_skidl_trace`, read from the frames without `inspect.stack()`, which reads every
    frame's source lines and took 22 of the build's 32 s under a profiler."""
    trace = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_SKIDL_DIR):
            trace.append((os.path.abspath(filename), str(frame.f_lineno)))
        frame = frame.f_back
    trace.reverse()
    return trace


_SKIDL_DIR = os.path.dirname(skidl.__file__)
for _module in (skidl_circuit, skidl_logger, skidl_node):
    _module.get_skidl_trace = _creation_trace

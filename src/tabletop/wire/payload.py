"""Untrusted JSON payloads read within limits: size, nesting, numbers and text all checked.

Every message that arrives over MQTT (a command, a mat or dice event from the bridge, an LED
frame) comes from a client the daemon does not control. `read_json` turns its bytes into plain
Python values or raises `PayloadError` naming what is wrong and where (`players[0].name`), so
no caller ever meets a value it cannot publish or store again: no lone surrogate (which UTF-8
cannot encode), no NaN or infinity (which JSON cannot carry), no duplicate key (which two
readers may resolve differently), nothing nested deeper than a table's messages need.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

# How much of a bad value an error quotes: enough to recognise it, never a flood.
QUOTE_CHARS: Final = 40


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """`repr(value)` cut to `limit` characters with an ellipsis, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


MAX_PAYLOAD_BYTES: Final = 64 * 1024
MAX_DEPTH: Final = 16
# The most digits a whole number may have: far more than any count, die, stake or seed needs
# (a 128-bit seed has 39), far fewer than Python's own limit of 4,300, whose words are not ours.
MAX_DIGITS: Final = 100


class PayloadError(ValueError):
    """A payload that cannot be read; `kind` is `too_large` or `invalid`, `field` where."""

    def __init__(self, message: str, *, kind: str = "invalid", field: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.field = field


def read_json(payload: bytes, *, max_bytes: int = MAX_PAYLOAD_BYTES) -> Any:
    """Decodes one payload: UTF-8 JSON within the limits, or PayloadError saying why."""
    if len(payload) > max_bytes:
        raise PayloadError(
            f"payload of {len(payload)} bytes is over the {max_bytes}-byte limit", kind="too_large"
        )
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PayloadError(f"payload is not UTF-8 text (byte {error.start})") from None
    try:
        value = json.loads(
            text,
            object_pairs_hook=_object_without_duplicates,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            parse_int=whole_number,
        )
    except PayloadError:
        raise
    except json.JSONDecodeError as error:
        raise PayloadError(f"not valid JSON: {error.msg} at column {error.colno}") from None
    except RecursionError:
        raise PayloadError("not valid JSON: nested too deeply") from None
    except ValueError as error:  # anything else the parser refuses
        raise PayloadError(f"not valid JSON: {error}") from None
    check_value(value)
    return value


def read_command(payload: bytes) -> Any:
    """What `read_json` makes of `payload`, or the PayloadError it raised, as a value: the daemon
    reads a command once, and words its refusal where the command is decided."""
    try:
        return read_json(payload)
    except PayloadError as error:
        return error


def check_value(value: Any, where: str = "") -> None:
    """Raises PayloadError if `value` nests too deeply or holds text UTF-8 cannot encode.

    Also used on values that did not come from `read_json` (configuration and roster files)."""
    stack: list[tuple[Any, str, int]] = [(value, where, 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise PayloadError(
                f"{path or 'payload'}: nested deeper than {MAX_DEPTH} levels", field=path or None
            )
        if isinstance(item, str):
            _check_text(item, path)
        elif isinstance(item, dict):
            for key, inner in item.items():
                inner_path = f"{path}.{key}" if path else str(key)
                if isinstance(key, str):
                    _check_text(key, f"{path or 'payload'} key {quote(key)}")
                stack.append((inner, inner_path, depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((inner, f"{path}[{i}]", depth + 1) for i, inner in enumerate(item))


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise PayloadError(
            f"{where or 'payload'}: text with a character UTF-8 cannot encode "
            f"(a lone surrogate, U+{ord(text[error.start]):04X}, at character {error.start})",
            field=where or None,
        ) from None


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise PayloadError(f"{quote(key)}: the key appears twice in one object", field=key)
        out[key] = value
    return out


def _refuse_constant(name: str) -> float:
    raise PayloadError(f"not valid JSON: {name} is not a number JSON can carry")


def whole_number(text: str, max_digits: int = MAX_DIGITS) -> int:
    """A JSON integer within `max_digits` digits, or PayloadError saying how long it was."""
    digits = len(text.lstrip("-"))
    if digits > max_digits:
        raise PayloadError(
            f"a number of {digits} digits ({text[:12]}…) is longer than any field takes "
            f"(at most {max_digits} digits)"
        )
    return int(text)


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise PayloadError(f"not valid JSON: the number {quote(text)} is too large")
    return number


def encode(payload: dict[str, Any]) -> bytes:
    """The wire form of every JSON payload a table publishes: compact UTF-8.

    Never raises: a lone surrogate that reached a payload despite the checks (from a log
    written by an older version, say) is sent as U+FFFD rather than taking the sender down.
    """
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return replace_surrogates(text).encode("utf-8")


def replace_surrogates(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, so that UTF-8 can encode it."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")

"""A game's state as bytes, for the daemon's snapshots: a restart folds only what follows one.

Any game's state is a value of its own classes (dataclasses, enums, tuples), so it is written
with pickle, the one serialiser that takes any such value without a schema per game; a
snapshot is a cache of the fold, never the record (the log's events are). Two guards keep a
snapshot from ever standing for a state it is not:

- the daemon stamps each snapshot with the code that wrote it (`tabletop.daemon.fingerprint`:
  the game's name and version, `FORMAT`, the Python version, a digest of the game's source),
  and reads none that another code wrote: it folds the whole log, as a daemon without
  snapshots did, and writes a new one.
- `load_state` builds only what a game's state is made of: classes of the game's own package
  and of the game interface (`tabletop.rules.games`), and the plain containers; anything else (a
  snapshot someone wrote by hand into the log) is refused as unreadable, never run.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, Final

from .errors import RulesError
from .game import GameRules

# The snapshot's own format: raised when what a snapshot holds changes meaning.
FORMAT: Final = 1
_PROTOCOL: Final = 5
# What a state may be made of besides the classes of `tabletop.rules.games` and of the game's
# package.
_PLAIN: Final = {
    "builtins": frozenset(
        {"frozenset", "set", "tuple", "list", "dict", "int", "float", "str", "bytes", "bool"}
    ),
    "copyreg": frozenset({"_reconstructor"}),
    "collections": frozenset({"OrderedDict", "deque", "defaultdict"}),
    "random": frozenset({"Random"}),
    "fractions": frozenset({"Fraction"}),
    "decimal": frozenset({"Decimal"}),
}


class SnapshotError(RulesError):
    """A snapshot cannot be read as this game's state (the daemon folds the log instead)."""


def dump_state(state: Any) -> bytes:
    """The state as a snapshot holds it."""
    try:
        return pickle.dumps(state, protocol=_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        raise SnapshotError(f"the state cannot be written as a snapshot: {error}") from error


def load_state(data: bytes, rules: GameRules) -> Any:
    """The state a snapshot of `rules`' game holds; SnapshotError if it is not one."""
    own = package(rules)

    class _StateUnpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            if module in _PLAIN:
                if name in _PLAIN[module]:
                    return super().find_class(module, name)
            elif module == own or module.startswith((own + ".", "tabletop.rules.games.")):
                found = super().find_class(module, name)
                if isinstance(found, type):  # a class of the game's, never a function to call
                    return found
            raise pickle.UnpicklingError(f"{module}.{name} is no part of a game's state")

    try:
        return _StateUnpickler(io.BytesIO(data)).load()
    except Exception as error:  # whatever bytes the log holds, the table still starts
        raise SnapshotError(f"the snapshot is not a {rules.info.title} state: {error}") from None


def package(rules: GameRules) -> str:
    """The package a game's classes live in (its module, for a game in one module)."""
    module = type(rules).__module__
    return module.rpartition(".")[0] or module

"""The mat package's exceptions: one root, with a branch for each thing that can go wrong."""

from __future__ import annotations


class MatError(Exception):
    """Root of every error the mat package raises on purpose."""


class FrameError(MatError):
    """A frame that passed its CRC but whose payload does not read as its message type says."""

    def __init__(self, message: str, msg_type: int | None = None) -> None:
        super().__init__(message)
        self.msg_type = msg_type


class ProtocolVersionError(MatError):
    """The mat speaks a protocol version this host does not."""


class LinkError(MatError):
    """The serial link cannot be opened or was lost."""


class PortBusyError(LinkError):
    """Another program (a second monitor, the bridge) already has the mat's port open."""


class ZoneError(MatError, ValueError):
    """A zone name that is not on this mat, such as "s7.1" on a 6-seat mat."""


class CardMapError(MatError):
    """A UID -> card map file that cannot be read, or an enrolment that would break it."""


class DuplicateUidError(CardMapError):
    """A tag already enrolled as another card."""

    def __init__(self, uid: str, existing: str) -> None:
        super().__init__(f"tag {uid} is already enrolled as {existing}")
        self.uid = uid
        self.existing = existing

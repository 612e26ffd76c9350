"""The checklist: one finding per thing checked, each naming its part and what to do."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final, TextIO

# The exit status: every check passed; one failed; none failed but some were skipped (a
# step needing a person, with --yes or no terminal). 2 is a file or argument to fix.
ALL_PASSED: Final = 0
SOME_FAILED: Final = 1
SOME_SKIPPED: Final = 3


class Status(Enum):
    """How one check went."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the checklist: the part, what was checked, how it went, what to do."""

    part: str
    name: str
    status: Status
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "part": self.part,
            "check": self.name,
            "status": self.status.value,
            "detail": self.detail,
        }
        if self.fix:
            out["fix"] = self.fix
        return out


@dataclass(slots=True)
class Checklist:
    """Every finding of one `tabletop check`, in the order the checks ran."""

    findings: list[Finding] = field(default_factory=list)
    # Where each finding is said as it is found (the person sees progress); None: quiet.
    echo: TextIO | None = None

    def add(self, finding: Finding) -> Finding:
        self.findings.append(finding)
        if self.echo is not None:
            print(render_line(finding), file=self.echo, flush=True)
        return finding

    def passed(self, part: str, name: str, detail: str) -> Finding:
        return self.add(Finding(part, name, Status.PASS, detail))

    def failed(self, part: str, name: str, detail: str, fix: str) -> Finding:
        return self.add(Finding(part, name, Status.FAIL, detail, fix))

    def skipped(self, part: str, name: str, detail: str, fix: str = "") -> Finding:
        return self.add(Finding(part, name, Status.SKIP, detail, fix))

    def count(self, status: Status) -> int:
        return sum(1 for finding in self.findings if finding.status is status)

    @property
    def exit_status(self) -> int:
        if self.count(Status.FAIL):
            return SOME_FAILED
        if self.count(Status.SKIP):
            return SOME_SKIPPED
        return ALL_PASSED

    def summary(self) -> str:
        passed, failed, skipped = (self.count(s) for s in Status)
        verdict = (
            "the table is ready"
            if self.exit_status == ALL_PASSED
            else "fix each FAIL line, then run the check again"
            if failed
            else "nothing failed, but the skipped steps need a person at the table"
        )
        return f"{passed} passed, {failed} failed, {skipped} skipped: {verdict}"

    def render(self) -> str:
        """The checklist as text: a line per finding, its fix under a failed or skipped one."""
        return "\n".join([*(render_line(f) for f in self.findings), self.summary()])

    def to_json(self, table: str, config: str) -> dict[str, Any]:
        return {
            "v": 1,
            "table": table,
            "config": config,
            "ok": self.exit_status == ALL_PASSED,
            "passed": self.count(Status.PASS),
            "failed": self.count(Status.FAIL),
            "skipped": self.count(Status.SKIP),
            "checks": [finding.to_json() for finding in self.findings],
        }

    def dumps(self, table: str, config: str) -> str:
        return json.dumps(self.to_json(table, config), indent=1)


def render_line(finding: Finding) -> str:
    """One finding as the checklist shows it: `FAIL  mat     s1.3 reader: ...` and its fix."""
    line = f"{finding.status.name:<4}  {finding.part:<6}  {finding.name}: {finding.detail}"
    if finding.fix:
        line += f"\n{'':14}fix: {finding.fix}"
    return line

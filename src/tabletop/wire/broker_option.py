"""The `--broker` option every command shares: one URL, a comma list, or the option repeated."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


class BrokerOption(argparse.Action):
    """Collects `--broker` given more than once into one comma-separated list of URLs.

    `--broker mqtt://a --broker mqtt://b` reads as `--broker mqtt://a,mqtt://b`: the brokers
    a program moves through in turn when the one it uses goes (tabletop.wire.mqtt.parse_broker_url).
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        given = getattr(namespace, self.dest, None)
        text = str(values).strip()
        setattr(namespace, self.dest, f"{given},{text}" if given else text)

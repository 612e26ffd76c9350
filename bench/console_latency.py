"""Benchmark of the web console: MQTT message -> page updated, with 1 and 50 pages open.

    .venv/bin/python bench/console_latency.py [--pages 1 50] [--messages 200] [--rate 10] [--raw]

Starts the embedded broker here and `tabletop console` as its own process (so its memory is
its own), opens N pages of the room view in Debian's Chromium (headless; each page in a
browser context of its own, like a device), then publishes `table/alert` messages as the
daemon does, each naming its number, at a steady rate. Each page notes the wall-clock time at
which it has drawn the snapshot holding that alert (the `table-rendered` event, after the DOM
is updated); latency is that time minus the time just before the publish (same machine, same
clock). With --raw, plain HTTP readers of /events stand in for the browsers: the server's own
share. Prints p50/p99/max per page count, the messages a page skipped (a page that falls
behind gets the newest snapshot only), and the console process's resident memory (VmRSS) with
the pages open, and its peak (VmHWM).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tabletop.figures import percentile  # noqa: E402
from tabletop.wire.broker import EmbeddedBroker, free_port  # noqa: E402

TABLE = "bench"
RECORDER = """
window.benchSeen = [];
document.addEventListener("table-rendered", (event) => {
  const alerts = (event.detail.alert && event.detail.alert.alerts) || [];
  for (const alert of alerts) window.benchSeen.push([alert.key, Date.now()]);
});
"""


def memory_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields


class RawStream:
    """A page without a browser: reads /events and notes when each alert arrives."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.connection.request("GET", "/events")
        self.response = self.connection.getresponse()
        self.seen: list[tuple[str, float]] = []
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError, http.client.HTTPException):
            for line in self.response:
                if line.startswith(b"data: {"):
                    at = time.time() * 1000
                    body = json.loads(line[6:])
                    for alert in (body.get("alert") or {}).get("alerts", []):
                        self.seen.append((alert["key"], at))

    def close(self) -> None:
        self.connection.close()


def run(pages: int, messages: int, rate: float, broker_port: int, raw: bool) -> dict[str, float]:
    console = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tabletop",
            "console",
            "--table",
            TABLE,
            "--broker",
            f"mqtt://127.0.0.1:{broker_port}",
            "--bind",
            "127.0.0.1:0",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert console.stdout is not None
        line = console.stdout.readline()
        url = line.split("room view ")[1].split(",")[0]
        publisher = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-publisher")
        publisher.connect("127.0.0.1", broker_port)
        publisher.loop_start()
        if raw:
            streams = [RawStream(url) for _ in range(pages)]
            time.sleep(1.0)
            sent = publish(publisher, messages, rate)
            time.sleep(1.0)
            memory = memory_kib(console.pid)
            latencies, missed = latencies_of(sent, [dict(stream.seen) for stream in streams])
            for stream in streams:
                stream.close()
        else:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    headless=True,
                    args=["--renderer-process-limit=8"],
                )
                opened = []
                for index in range(pages):
                    # A context per page, as 50 viewers are 50 devices: one browser profile keeps
                    # at most 6 HTTP/1.1 connections per server, each page's stream holding one.
                    context = browser.new_context(viewport={"width": 800, "height": 600})
                    context.add_init_script(RECORDER)
                    page = context.new_page()
                    page.goto(url)
                    opened.append(page)
                    print(
                        f"\r  {index + 1}/{pages} pages open", end="", file=sys.stderr, flush=True
                    )
                print(file=sys.stderr)
                for page in opened:
                    page.wait_for_function("document.body.dataset.version !== undefined")
                sent = publish(publisher, messages, rate)
                time.sleep(1.0)
                memory = memory_kib(console.pid)
                seen = [dict(page.evaluate("window.benchSeen")) for page in opened]
                latencies, missed = latencies_of(sent, seen)
                browser.close()
        publisher.loop_stop()
        publisher.disconnect()
    finally:
        console.terminate()
        console.wait(10)
    return {
        "pages": pages,
        "updates": len(latencies),
        "missed": missed,
        "p50": statistics.median(latencies),
        "p99": percentile(latencies, 0.99),
        "max": max(latencies),
        "rss_mib": memory["VmRSS"] / 1024,
        "peak_mib": memory["VmHWM"] / 1024,
    }


def publish(publisher: paho.Client, messages: int, rate: float) -> dict[str, float]:
    """Publishes the alerts at a steady rate; returns each one's wall-clock send time (ms)."""
    sent: dict[str, float] = {}
    topic = f"tabletop/v1/{TABLE}/table/alert"
    start = time.monotonic()
    for number in range(messages):
        key = f"bench-{number}"
        body = {"v": 1, "alerts": [{"key": key, "message": key}], "instructions": []}
        data = json.dumps(body).encode()
        sent[key] = time.time() * 1000
        publisher.publish(topic, data, qos=1, retain=True)
        time.sleep(max(0.0, start + (number + 1) / rate - time.monotonic()))
    return sent


def latencies_of(sent: dict[str, float], seen: list[dict[str, float]]) -> tuple[list[float], int]:
    """Each page's delay for each message it drew, and how many it skipped."""
    latencies: list[float] = []
    missed = 0
    for page in seen:
        for key, at in sent.items():
            if key in page:
                latencies.append(page[key] - at)
            else:
                missed += 1
    return latencies, missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[1, 50])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0, help="messages per second")
    parser.add_argument(
        "--raw", action="store_true", help="read the streams over plain HTTP, no browser"
    )
    args = parser.parse_args()
    broker = EmbeddedBroker("127.0.0.1", free_port())
    broker.start()
    try:
        print("pages  updates  missed  p50 ms  p99 ms  max ms  console RSS MiB (peak)")
        for pages in args.pages:
            result = run(pages, args.messages, args.rate, broker.port, args.raw)
            print(
                f"{result['pages']:5d}  {result['updates']:7d}  {result['missed']:6d}  "
                f"{result['p50']:6.1f}  {result['p99']:6.1f}  {result['max']:6.1f}  "
                f"{result['rss_mib']:.0f} ({result['peak_mib']:.0f})",
                flush=True,
            )
    finally:
        broker.stop()


if __name__ == "__main__":
    main()

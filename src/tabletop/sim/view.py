"""The live view of `tabletop sim`: the whole terminal, drawn with rich's Live layout.

A header says which table is running with what (game, broker, mat, camera, speed, web
console), the board is drawn by the game itself (`GameRules.render_view`), and beside it the
seat LEDs, a legend for the symbols, the alerts (each naming its seat and slot, kept in a short
history of when it was raised and when it cleared) and the last events; the prompt runs along
the bottom. At the end `summary_words` says in words how the evening went.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, Group
from rich.layout import Layout
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from tabletop.rules.games.game import GameRules

HISTORY = 12  # alert changes and events kept on screen, the newest first
SIDE_WIDTH = 44  # the column beside the board, at most a third of the terminal

# What the boards and the LEDs draw, in words. Card marks are Six Shooter's and any card
# game's drawn by `tabletop.rules.games.*.view`; the LED marks are `SimulatedLeds.render`'s.
CARD_LEGEND = (
    ("[ 7H]", "face up (7 of hearts)"),
    ("[ ##]", "face down"),
    ("[ --]", "an empty slot"),
)
LED_LEGEND = (("●", "LED on"), ("○", "LED off"), ("◐", "LED blinking"))


@dataclass(frozen=True, slots=True)
class Header:
    """What runs this simulated table (the header's fields)."""

    table: str
    game: str
    broker: str
    mat: str
    camera: str
    speed: float
    console_url: str | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """One moment of the table as the view draws it: a state and a prompt that belong
    together (the runner takes them in one snapshot), the alerts, the LEDs and the events."""

    state: Mapping[str, Any] | None
    prompt: Mapping[str, Any] | None
    alerts: Mapping[str, Any]
    leds: str
    led_meaning: str | None
    events: Sequence[str]
    mat_status: str | None = None  # the mat's connection now, in a word or two


@dataclass
class LiveView:
    """Draws frames of the simulated table on `console`, filling its whole height."""

    console: Console
    header: Header
    rules: GameRules
    names: Sequence[str]
    clock: Callable[[], float] = time.monotonic
    cards: bool = True  # whether the game lays cards (the legend explains slots only then)
    alert_history: list[str] = field(default_factory=list)
    notice: str | None = None  # said in the prompt's place once the games are over
    _alerts: dict[str, dict[str, Any]] = field(default_factory=dict)
    _started: float | None = None
    _live: Live | None = None
    _frame: Frame | None = None
    _changed_at: float | None = None  # when the table last showed something new

    def start(self) -> None:
        self._started = self.clock()
        self._changed_at = None
        self._live = Live(
            self.render(),
            console=self.console,
            auto_refresh=False,
            screen=False,
            transient=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def show(self, frame: Frame) -> None:
        """Draws `frame`, noting each alert raised or cleared since the last one."""
        self._note_alerts(frame.alerts)
        self._frame = frame
        self._changed_at = None  # stamped when it is drawn (below), with the clock read there
        if self._live is not None:
            self._live.update(self.render(), refresh=True)

    def tick(self) -> None:
        """Draws the same frame again with the clocks moved on: a table where nothing moves
        still shows a running clock, and for how long nothing has moved."""
        if self._live is not None:
            self._live.update(self.render(), refresh=True)

    def refresh(self) -> None:
        """Draws the last frame again (after the notice changed)."""
        if self._live is not None:
            self._live.update(self.render(), refresh=True)

    def stop(self) -> None:
        """Leaves the last frame on the terminal."""
        if self._live is not None:
            self._live.update(self.render(), refresh=True)
            self._live.stop()
            self._live = None

    # -- drawing ----------------------------------------------------------------------------

    def render(self) -> Layout:
        """The whole screen as a rich Layout (it takes the console's full height)."""
        frame = self._frame
        layout = Layout(name="screen")
        layout.split_column(
            Layout(self._header(frame), name="header", size=6),
            Layout(name="body"),
            Layout(self._prompt(frame), name="prompt", size=3),
        )
        layout["body"].split_row(
            Layout(name="main"),
            Layout(name="side", size=min(SIDE_WIDTH, self.console.width // 3)),
        )
        layout["main"].split_column(
            Layout(self._board(frame), name="board", ratio=3),
            Layout(self._alert_panel(frame), name="alerts", ratio=2),
        )
        rows = len(LED_LEGEND) + (len(CARD_LEGEND) if self.cards else 0)
        layout["side"].split_column(
            Layout(self._leds(frame), name="leds", size=len(self.names) + 4),
            Layout(self._legend(), name="legend", size=rows + 2),
            Layout(self._events(frame), name="events"),
        )
        return layout

    def _header(self, frame: Frame | None) -> Panel:
        h = self.header
        grid = Table.grid(expand=True, padding=(0, 2))
        grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        mat = h.mat if frame is None or frame.mat_status is None else f"{h.mat}, {frame.mat_status}"
        console = h.console_url or "not served"
        if h.console_url:
            console += f" (game master: {h.console_url}gm)"
        grid.add_row(f"[b]table[/b] {h.table}   [b]game[/b] {h.game}", f"[b]broker[/b] {h.broker}")
        grid.add_row(f"[b]camera[/b] {h.camera}", f"[b]speed[/b] {_speed(h.speed)}")
        lines = Group(
            grid,
            _line(f"[b]mat[/b] {mat}"),
            _line(f"[b]web console[/b] {console}"),
        )
        return Panel(
            lines,
            title="tabletop sim: a simulated table",
            subtitle=self._clocks(),
            border_style="cyan",
        )

    def _board(self, frame: Frame | None) -> Panel:
        state = frame.state if frame is not None else None
        if not isinstance(state, Mapping) or state.get("phase") is None:
            body = Text("No game at this table yet.")
        else:
            try:
                body = Text(self.rules.render_view(state))
            except (KeyError, TypeError, ValueError) as error:  # a view half-published
                body = Text(f"(the board cannot be drawn from this state: {error!r})")
        return Panel(body, title=f"the board: {self.header.game}", border_style="green")

    def _leds(self, frame: Frame | None) -> Panel:
        text = frame.leds if frame is not None else ""
        meaning = frame.led_meaning if frame is not None else None
        body = Group(Text(text), Text(f"lit: {meaning}" if meaning else "", style="dim"))
        return Panel(body, title="seat LEDs")

    def _legend(self) -> Panel:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True, overflow="ellipsis")
        if self.cards:
            for mark, words in CARD_LEGEND:
                grid.add_row(mark, words)
        for mark, words in LED_LEGEND:
            grid.add_row(mark, words)
        return Panel(grid, title="legend")

    def _alert_panel(self, frame: Frame | None) -> Panel:
        lines: list[Text] = []
        if frame is not None:
            for alert in frame.alerts.get("alerts", []):
                lines.append(Text(f"NOW {self._where(alert)}: {alert['message']}", style="red"))
            for step in frame.alerts.get("instructions", []):
                lines.append(Text(f"to do: {step}", style="yellow"))
        lines += [Text(entry, style="dim") for entry in self.alert_history[::-1][:HISTORY]]
        if not lines:
            lines.append(Text("none: the table matches the game", style="dim"))
        return Panel(Group(*lines), title="alerts")

    def _events(self, frame: Frame | None) -> Panel:
        events = list(frame.events[::-1][:HISTORY]) if frame is not None else []
        return Panel(Text("\n".join(events)), title="events (newest first)")

    def _prompt(self, frame: Frame | None) -> Panel:
        if self.notice is not None:
            return Panel(
                Text(self.notice, style="bold", overflow="ellipsis", no_wrap=True),
                title="the table",
            )
        prompt = frame.prompt if frame is not None else None
        words = prompt.get("prompt") if isinstance(prompt, Mapping) else None
        who = prompt.get("who") if isinstance(prompt, Mapping) else None
        text = str(words) if words else "(no prompt yet)"
        if who:
            text += f"   (who: {', '.join(map(str, who))})"
        words_text = Text(text, style="bold", overflow="ellipsis", no_wrap=True)
        return Panel(words_text, title="the table waits for")

    # -- alerts -----------------------------------------------------------------------------

    def _where(self, alert: Mapping[str, Any]) -> str:
        """Where an alert is, in words: the seat (with its player) and the slot."""
        seat, slot = alert.get("seat"), alert.get("slot")
        if isinstance(seat, int):
            name = self.names[seat] if 0 <= seat < len(self.names) else "?"
            where = f"seat {seat + 1} ({name})"
            return f"{where}, slot {slot}" if isinstance(slot, int) else where
        key = str(alert.get("key"))
        return {"dice": "the dice tray", "pad": "the draw pad", "bridge": "the bridge"}.get(
            key, key
        )

    def _note_alerts(self, alerts: Mapping[str, Any]) -> None:
        now = {str(a["key"]): dict(a) for a in alerts.get("alerts", []) if "key" in a}
        stamp = f"{self._elapsed():6.1f} s"
        for key, alert in now.items():
            if self._alerts.get(key) != alert:
                self.alert_history.append(
                    f"{stamp} raised  {self._where(alert)}: {alert.get('message')}"
                )
        for key, alert in self._alerts.items():
            if key not in now:
                self.alert_history.append(f"{stamp} cleared {self._where(alert)}")
        self._alerts = now

    def _clocks(self) -> str:
        """The header's clocks: time running, and for how long nothing moved (from 10 s)."""
        now = self.clock()
        if self._changed_at is None:
            self._changed_at = now
        started = self._started if self._started is not None else now
        words = f"running {now - started:.0f} s"
        if (quiet := now - self._changed_at) >= 10:
            words += f" · nothing has moved for {quiet:.0f} s"
        return words

    def _elapsed(self) -> float:
        return 0.0 if self._started is None else self.clock() - self._started


def _line(markup: str) -> Text:
    """One line of the header, cut short rather than wrapped."""
    text = Text.from_markup(markup, overflow="ellipsis")
    text.no_wrap = True
    return text


def _speed(speed: float) -> str:
    if speed == 1:
        return "real time"
    return f"{speed:g}x (the people; devices in real time)"


def summary_words(summary: Mapping[str, Any], title: str) -> str:
    """The closing summary in words, from `Summary.to_json()`."""
    requested, finished = summary["games_requested"], summary["games_finished"]
    games = "game" if requested == 1 else "games"
    lines = [
        f"{finished} of {requested} {title} {games} played to the end in {summary['seconds']:g} s.",
    ]
    refused = summary["commands_refused"]
    lines.append(
        f"The rules daemon applied {summary['commands_applied']} commands and refused "
        + ("none." if refused == 0 else f"{refused}; the first: {summary['refusals'][0]}.")
    )
    made, caught = summary["mistakes_made"], summary["mistakes_caught"]
    raised, resolved = summary["alerts_raised"], summary["alerts_resolved"]
    lines.append(
        f"The people made {_count(made, 'mistake')} on purpose and put right "
        f"{caught} the table caught; {_count(raised, 'alert')} raised, "
        + (
            "all resolved."
            if raised == resolved
            else f"{resolved} resolved, {raised - resolved} still open."
        )
    )
    for stall in summary.get("stalls", []):
        who = ", ".join(stall.get("who") or []) or "nobody"
        lines.append(
            f"The table STALLED in game {stall['game']}: nothing moved for "
            f"{stall['waited_s']:g} s while it waited for {who} ({stall['waiting']}): "
            f"{stall['prompt']}"
        )
    latency = summary.get("latency_ms", {})
    words = {
        "card_laid_to_state": "a card laid to the new state",
        "last_card_of_a_deal_to_state": "the last card of a deal to the new state",
        "die_at_rest_to_state": "a die at rest to the new state",
        "indicators_to_led": "new indicators to the LEDs",
    }
    measured = [
        f"{words[key]} {figures['p50']} ms (99th percentile {figures['p99']} ms, "
        f"{figures['count']} measured)"
        for key, figures in latency.items()
        if key in words and figures.get("count")
    ]
    if measured:
        lines.append("Median latency: " + "; ".join(measured) + ".")
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{'no' if n == 0 else n} {noun}{'' if n == 1 else 's'}"

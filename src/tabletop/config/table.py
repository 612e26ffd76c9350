"""The table's configuration: one TOML file per table, checked at start.

Every error names the key and the problem (`mat.port: expected text, got 3`), so a maker can
fix the file without reading code. `examples/table.toml` is the commented reference.

A relative path in the file (`mat.cards`, `camera.calibration`, `camera.dice_model`,
`camera.corrections`, a `camera.source` that is a file or a folder, a `password_file`) is
relative to the file itself, not to the folder a program was started in (`/` under systemd).

The `[broker]` section also says who may use the broker (`[[broker.users]]`, each with a role
of src/tabletop/wire/roles.py) and how each process that reads this one file logs in:
`[broker.rules]` for `tabletop rules`, `[broker.bridge]` for `tabletop bridge`, `[broker.console]`
for the room view of `tabletop console` (a user with the role viewer; docs/security.md).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from tabletop.hardware.leds import LedConfig

# Against the data flow, on purpose: the table file names its game, and the registry
# checks the name (no game is imported).
from tabletop.rules import games
from tabletop.rules.games.errors import RulesError
from tabletop.wire.leds import LEDS_PER_SEAT
from tabletop.wire.mqtt import BrokerUrl
from tabletop.wire.passwords import PasswordHashError, parse_hash
from tabletop.wire.roles import ALL_TABLES, Role, RoleError, User, check_user_name, parse_role
from tabletop.wire.topics import TableIdError, check_table_id

MAX_SEATS = 6
SLOTS_PER_SEAT = 6


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat at the table: who sits there and the BCM pins of its three LEDs."""

    name: str
    leds: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class MatConfig:
    """The sensor mat: its port URL (a device path, or sim:// for the simulated mat)."""

    port: str = "sim://"
    cards: str | None = None  # the UID -> card map written by `tabletop cards enrol`
    draw_pad: bool = True


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """The dice camera: a source (sim, usb:N, picamera, a video file or a folder of images)."""

    source: str = "sim"
    calibration: str | None = None
    fps: float = 30.0
    # A folder written by `tabletop dice enrol`: this table's own dice (None: the shipped reader).
    dice_model: str | None = None
    # Where `tabletop console` keeps the throws a game master corrected, with their labels.csv
    # for `tabletop dice enrol` (None: the console's default, under the data directory).
    corrections: str | None = None


Process = Literal["rules", "bridge", "console"]
# The role each process's user must have. The console's room view reads the public topics
# only, so its user is a viewer: a game master's login there would be more than it needs.
PROCESS_ROLES: dict[Process, Role] = {
    "rules": Role.DAEMON,
    "bridge": Role.BRIDGE,
    "console": Role.VIEWER,
}
# Processes that a table with users cannot run without a login; a table may have no console.
REQUIRED_LOGINS: tuple[Process, ...] = ("rules", "bridge")


@dataclass(frozen=True, slots=True)
class Login:
    """How one process logs in: a user name and a password, given here or in a file.

    A password file is read only by the process that uses it (`password`), so the rules
    daemon's and the bridge's secrets can be files readable by one service each.
    """

    key: str  # where in the file it was given, for messages: "broker.rules"
    username: str
    password_text: str | None = field(default=None, repr=False)
    password_file: str | None = None

    def password(self) -> str | None:
        """The password: given in the file, or the first line of the password file."""
        if self.password_file is None:
            return self.password_text
        where = f"{self.key}.password_file"
        try:
            raw = Path(self.password_file).read_bytes()
        except OSError as error:
            raise ConfigError(
                f"{where}: cannot read {self.password_file}: {error.strerror} (make it with "
                f"`tabletop broker passwd {self.username} --save {self.password_file}`, "
                "readable by this service's user)"
            ) from error
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConfigError(
                f"{where}: {self.password_file} is not UTF-8 text (byte {error.start})"
            ) from None
        lines = text.splitlines()
        if not lines or not lines[0]:
            raise ConfigError(f"{where}: {self.password_file} is empty; put the password on line 1")
        return lines[0]


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """The MQTT broker: None (or embedded://) for the embedded broker, else mqtt(s)://.

    `users` are who may log in to the embedded broker, and what `tabletop broker acl` writes
    for Mosquitto; `rules` and `bridge` how each process logs in (else `username` and
    `password`, the one login both processes used before roles).
    """

    url: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    users: tuple[User, ...] = ()
    rules: Login | None = None
    bridge: Login | None = None
    console: Login | None = None  # the room view of `tabletop console`: a viewer

    @property
    def embedded(self) -> bool:
        """True when this table runs the embedded broker rather than naming another."""
        return self.url is None or self.url.startswith("embedded://")

    def login(self, process: Process) -> Login | None:
        """How `process` logs in: its own section, else [broker] username (the rules daemon
        and the bridge only: that shared login is not a viewer); None: the URL's."""
        own = {"rules": self.rules, "bridge": self.bridge, "console": self.console}[process]
        if own is not None:
            return own
        if self.username is not None and process != "console":
            return Login("broker", self.username, self.password)
        return None

    def url_for(self, process: Process, url: BrokerUrl) -> BrokerUrl:
        """`url` with the credentials `process` logs in with (reads its password file).

        Credentials written in the URL itself (`--broker mqtt://user:pw@host`) win.
        """
        login = self.login(process)
        if login is None or url.username is not None:
            return url
        return url.with_login(login.username, login.password())


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """How the rules daemon reads the table: house-rule options and the grace for bumps."""

    game: str = games.DEFAULT_GAME
    # The game's house rules as JSON values, checked by the game (`tabletop games` lists them).
    options: dict[str, Any] = field(default_factory=dict)
    grace_seconds: float = 1.5


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Everything one table needs."""

    table: str
    seats: tuple[Seat, ...]
    mat: MatConfig = field(default_factory=MatConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)

    @property
    def seat_names(self) -> list[str]:
        """The players' names, seat 1 first."""
        return [seat.name for seat in self.seats]


def load_config(path: str | Path) -> TableConfig:
    """Reads and checks a table's TOML file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ConfigError(
            f"{path}: line {line} is not UTF-8 text (byte {error.start}); save the file as UTF-8"
        ) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    try:
        return relative_to(parse_config(raw), path.parent)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def relative_to(config: TableConfig, folder: Path) -> TableConfig:
    """`config` with every relative path in it taken relative to `folder` (the file's)."""

    def here(path: str | None) -> str | None:
        if path is None or Path(path).expanduser().is_absolute():
            return None if path is None else str(Path(path).expanduser())
        return str(folder / path)

    def login(found: Login | None) -> Login | None:
        if found is None or found.password_file is None:
            return found
        return replace(found, password_file=here(found.password_file))

    source = config.camera.source
    spec = _camera_source(source)
    if spec.kind in {"file", "folder", "path"}:
        source = spec.with_target(here(spec.target) or spec.target)
    return replace(
        config,
        mat=replace(config.mat, cards=here(config.mat.cards)),
        camera=replace(
            config.camera,
            source=source,
            calibration=here(config.camera.calibration),
            dice_model=here(config.camera.dice_model),
            corrections=here(config.camera.corrections),
        ),
        broker=replace(
            config.broker,
            rules=login(config.broker.rules),
            bridge=login(config.broker.bridge),
            console=login(config.broker.console),
        ),
    )


def _camera_source(text: str) -> Any:
    """The camera source read (`tabletop.hardware.camera.SourceSpec`), or ConfigError with its
    forms.

    Imported here, not at the top: the camera package brings OpenCV, which only a table file
    naming a camera needs."""
    from tabletop.hardware.camera import BadSourceURL, parse_source

    try:
        return parse_source(text)
    except BadSourceURL as error:
        raise ConfigError(f"camera.source: {error}") from None


class _Section:
    """Reads one TOML table, naming `section.key` in every error and refusing unknown keys."""

    def __init__(self, raw: Any, name: str, known: tuple[str, ...]) -> None:
        if not isinstance(raw, dict):
            raise ConfigError(f"{name}: expected a table of keys")
        unknown = sorted(set(raw) - set(known))
        if unknown:
            raise ConfigError(
                f"{name}.{unknown[0]}: unknown key; known keys are {', '.join(known)}"
            )
        self.raw = raw
        self.name = name

    def where(self, key: str) -> str:
        return f"{self.name}.{key}" if self.name else key

    def text(self, key: str, default: str | None) -> str | None:
        value = self.raw.get(key, default)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(f"{self.where(key)}: expected text, got {value!r}")
        return value

    def texts(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self.raw.get(key, list(default))
        if isinstance(value, str):
            value = [value]
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(item, str) and item.strip() for item in value)
        ):
            raise ConfigError(f"{self.where(key)}: expected a list of text, got {value!r}")
        return tuple(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if not isinstance(value, bool):
            raise ConfigError(f"{self.where(key)}: expected true or false, got {value!r}")
        return value

    def number(self, key: str, default: float, low: float, high: float) -> float:
        value = self.raw.get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(f"{self.where(key)}: expected a number, got {value!r}")
        if not low <= value <= high:
            raise ConfigError(f"{self.where(key)}: must be {low} to {high}, got {value}")
        return float(value)


def parse_config(raw: dict[str, Any]) -> TableConfig:
    """Checks an already-parsed TOML document."""
    _check_encodable(raw, "")
    top = _Section(raw, "", ("table", "game", "seats", "mat", "camera", "leds", "broker", "rules"))
    table = _Section(raw.get("table", {}), "table", ("id",))
    table_id = table.text("id", None)
    if table_id is None:
        raise ConfigError('table.id: missing; give the table a short name such as "kitchen"')
    try:
        check_table_id(table_id)  # the one rule for table ids, as the daemon and docs have it
    except TableIdError as error:
        raise ConfigError(f"table.id: {error}") from None
    seats = _seats(top.raw.get("seats"))
    mat = _Section(raw.get("mat", {}), "mat", ("port", "cards", "draw_pad"))
    camera = _Section(
        raw.get("camera", {}),
        "camera",
        ("source", "calibration", "fps", "dice_model", "corrections"),
    )
    leds = _Section(raw.get("leds", {}), "leds", ("backend", "blink_hz", "active_high"))
    broker = _Section(
        raw.get("broker", {}),
        "broker",
        ("url", "username", "password", "users", "rules", "bridge", "console"),
    )
    rules = _Section(raw.get("rules", {}), "rules", ("options", "grace_seconds"))

    backend = leds.text("backend", "sim")
    if backend not in ("sim", "gpio"):
        raise ConfigError(f'leds.backend: {backend!r} is not a backend; use "gpio" or "sim"')
    pins = tuple(seat.leds for seat in seats)
    # Whatever the backend: a file checked with "sim" on a laptop goes to the Pi with "gpio"
    # (or TABLETOP_LEDS=gpio), and two seats on one pin would light each other's LEDs.
    _check_pins(seats, count=backend == "gpio")
    # One URL, or a broker cluster's nodes as a list (or one comma-separated text).
    urls = broker.texts("url", ()) if broker.raw.get("url") is not None else ()
    for text in urls:
        if not re.match(r"^\s*(mqtts?|embedded)://", text):
            raise ConfigError(
                f"broker.url: {text!r} must start with mqtt://, mqtts:// or embedded:// "
                "(or leave it out for the embedded broker on 127.0.0.1:1883)"
            )
    url = ",".join(urls) if urls else None
    game_name = top.text("game", games.DEFAULT_GAME) or games.DEFAULT_GAME
    try:
        game = games.get(game_name, "game")
        options = game.read_options(rules.raw.get("options"), "rules.options")
    except RulesError as error:
        raise ConfigError(str(error)) from None

    return TableConfig(
        table=table_id,
        seats=seats,
        mat=MatConfig(
            port=mat.text("port", "sim://") or "sim://",
            cards=mat.text("cards", None),
            draw_pad=mat.flag("draw_pad", True),
        ),
        camera=CameraConfig(
            source=_camera_source(camera.text("source", "sim") or "sim").url.strip(),
            calibration=camera.text("calibration", None),
            fps=camera.number("fps", 30.0, 1.0, 120.0),
            dice_model=camera.text("dice_model", None),
            corrections=camera.text("corrections", None),
        ),
        leds=LedConfig(
            backend=backend or "sim",
            seats=len(seats),
            pins=pins if backend == "gpio" else (),
            blink_hz=leds.number("blink_hz", 2.0, 0.2, 20.0),
            active_high=leds.flag("active_high", True),
        ),
        broker=_broker(broker, url, table_id),
        rules=RulesConfig(game.name, options, rules.number("grace_seconds", 1.5, 0.0, 30.0)),
    )


def _broker(section: _Section, url: str | None, table_id: str) -> BrokerConfig:
    users = _users(section.raw.get("users", []), table_id)
    config = BrokerConfig(
        url=url,
        username=section.text("username", None),
        password=section.text("password", None),
        users=users,
        rules=_login(section.raw.get("rules"), "broker.rules"),
        bridge=_login(section.raw.get("bridge"), "broker.bridge"),
        console=_login(section.raw.get("console"), "broker.console"),
    )
    if config.password is not None and config.username is None:
        raise ConfigError("broker.password: a password needs broker.username too")
    for process, role in PROCESS_ROLES.items():
        login = config.login(process)
        key = f"broker.{process}" if login is None else f"{login.key}.username"
        user = next((user for user in users if login and user.name == login.username), None)
        if user is not None and user.role is not role:
            raise ConfigError(
                f"{key}: user {user.name!r} has role {user.role.value}; `tabletop {process}` "
                f"needs a user with role {role.value}"
            )
        if not users or not config.embedded:
            continue
        # The embedded broker refuses anonymous clients once it has users.
        if login is None:
            if process not in REQUIRED_LOGINS:
                continue  # said when that process starts (tabletop console)
            raise ConfigError(
                f"{key}: missing; with [[broker.users]] the embedded broker refuses anonymous "
                f"clients: give `tabletop {process}` a username and password_file"
            )
        if user is None:
            raise ConfigError(f"{key}: {login.username!r} is not one of the [[broker.users]]")
    if config.embedded:
        for index, user in enumerate(users, start=1):
            if user.password_hash is None:
                raise ConfigError(
                    f"broker.users[{index}].password_hash: missing; the embedded broker checks "
                    f"passwords against it: make one with `tabletop broker passwd {user.name}`"
                )
    return config


def _users(raw: Any, table_id: str) -> tuple[User, ...]:
    if not isinstance(raw, list):
        raise ConfigError("broker.users: expected [[broker.users]] tables, one per user")
    users: list[User] = []
    for index, entry in enumerate(raw, start=1):
        where = f"broker.users[{index}]"
        section = _Section(entry, where, ("name", "role", "tables", "password_hash"))
        name = section.text("name", None)
        role_name = section.text("role", None)
        if name is None or role_name is None:
            raise ConfigError(f"{where}.{'name' if name is None else 'role'}: missing")
        try:
            check_user_name(name)
        except RoleError as error:
            raise ConfigError(f"{where}.name: {error}") from None
        if any(user.name == name for user in users):
            raise ConfigError(f"{where}.name: {name!r} is listed twice")
        try:
            role = parse_role(role_name)
        except RoleError as error:
            raise ConfigError(f"{where}.role: {error}") from None
        tables = section.texts("tables", (table_id,))
        if ALL_TABLES in tables and len(tables) > 1:
            raise ConfigError(f'{where}.tables: "*" (every table) stands alone')
        for table in tables:
            if table == ALL_TABLES:
                continue
            try:
                check_table_id(table)
            except TableIdError as error:
                raise ConfigError(f"{where}.tables: {error}") from None
        password_hash = section.text("password_hash", None)
        if password_hash is not None:
            try:
                parse_hash(password_hash)
            except PasswordHashError as error:
                raise ConfigError(f"{where}.password_hash: {error}") from None
        users.append(User(name, role, tables, password_hash))
    return tuple(users)


def _login(raw: Any, where: str) -> Login | None:
    if raw is None:
        return None
    section = _Section(raw, where, ("username", "password", "password_file"))
    username = section.text("username", None)
    password = section.text("password", None)
    password_file = section.text("password_file", None)
    if username is None:
        raise ConfigError(f"{where}.username: missing")
    if password is not None and password_file is not None:
        raise ConfigError(f"{where}.password_file: give password or password_file, not both")
    if password is None and password_file is None:
        raise ConfigError(
            f"{where}.password_file: missing; name the file holding the password (or give password)"
        )
    return Login(where, username, password, password_file)


def _check_encodable(value: Any, where: str) -> None:
    """Refuses text UTF-8 cannot carry (a lone surrogate), naming its key."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ConfigError(
                f"{where or 'the file'}: holds {value[error.start]!r}, a lone surrogate that "
                "no text can carry"
            ) from None
    elif isinstance(value, dict):
        for key, inner in value.items():
            _check_encodable(key, f"{where} key" if where else "a key")
            _check_encodable(inner, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, inner in enumerate(value, start=1):
            _check_encodable(inner, f"{where}[{index}]")


def _seats(raw: Any) -> tuple[Seat, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError("seats: missing; add one [[seats]] table per player, seat 1 first")
    if len(raw) > MAX_SEATS:
        raise ConfigError(f"seats: the mat has {MAX_SEATS} seats, the file lists {len(raw)}")
    seats = []
    for index, entry in enumerate(raw, start=1):
        section = _Section(entry, f"seats[{index}]", ("name", "leds"))
        name = section.text("name", None)
        if name is None:
            raise ConfigError(f"seats[{index}].name: missing")
        leds = entry.get("leds", [])
        if not isinstance(leds, list) or not all(
            isinstance(pin, int) and not isinstance(pin, bool) for pin in leds
        ):
            raise ConfigError(f"seats[{index}].leds: expected a list of BCM pin numbers")
        seats.append(Seat(name, tuple(leds)))
    names = [seat.name.casefold() for seat in seats]
    for index, name in enumerate(names, start=1):
        if names.index(name) != index - 1:
            raise ConfigError(f"seats[{index}].name: {seats[index - 1].name!r} sits twice")
    return tuple(seats)


def _check_pins(seats: tuple[Seat, ...], count: bool) -> None:
    """Each pin a GPIO pin, given once in the whole file; with `count`, three per seat."""
    used: dict[int, tuple[int, str]] = {}
    for index, seat in enumerate(seats, start=1):
        if count and len(seat.leds) != LEDS_PER_SEAT:
            raise ConfigError(
                f"seats[{index}].leds: give {LEDS_PER_SEAT} BCM pins (the seat's LEDs 1, 2, 3), "
                f"got {len(seat.leds)}"
            )
        for pin in seat.leds:
            if not 2 <= pin <= 27:
                raise ConfigError(f"seats[{index}].leds: BCM pin {pin} is not a GPIO pin (2-27)")
            if pin in used:
                other, name = used[pin]
                if other == index:
                    raise ConfigError(
                        f"seats[{index}].leds: pin {pin} is given twice to {seat.name}; give "
                        "each of the seat's LEDs its own pin"
                    )
                raise ConfigError(
                    f"seats[{index}].leds: pin {pin} is already used by seats[{other}] "
                    f"({name}): {name} and {seat.name} cannot share BCM pin {pin}; give each "
                    "LED its own pin"
                )
            used[pin] = (index, seat.name)

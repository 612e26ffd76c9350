"""The console's web application: pages, live streams and the game master's actions.

Routes:
    GET  /                 the room view (public data only)
    GET  /events           the room's live stream (server-sent events, one snapshot each)
    GET  /dice.jpg         the last throw as the camera saw it, annotated (JPEG)
    GET  /overlay          the stream overlay: a transparent page of the room's public data
    GET  /gm               the game master's view, or its login form
    POST /gm/login         a broker user of role `gm` logs in (form: username, password;
                           GET, the address opened by hand, goes to /gm: the login page)
    POST /gm/logout
    GET  /gm/events        the referee's live stream (logged in only)
    GET  /gm/session       whether this browser's login is live (200) or not (401)
    GET  /gm/dice.jpg      the last throw's picture, for the game master's page
    GET  /gm/dice/photo.jpg  the last throw as the camera took it (no box drawn)
    POST /gm/dice/correction  a throw's reading corrected on its photo -> kept, and sent as
                           the game's roll entry; with a cocked die, kept only
                           (src/tabletop/console/corrections.py)
    GET  /gm/actions       the game's actions as form descriptions (logged in only)
    POST /gm/actions/VERB  a filled-in form (JSON object) -> the daemon's reply
    POST /gm/seats         new codes for the seats' screens (logged in only; ?phones=N: each
                           code joins N phones, default 1)
    GET  /gm/seats/N/qr.svg  seat N's join address with its code, as a QR code (SVG)
    POST /gm/seats/forget  ends every phone's join and the codes not yet used
    POST /gm/undo          takes the game's last applied command back (`undo`)
    GET  /seat/N           seat N's own screen, or the form asking for its code (?code=...
                           fills it in: the QR code's address)
    POST /seat/N/join      a seat's code (form: code) -> the screen
    GET  /seat/N/events    seat N's live stream (joined phones only)
    POST /seat/N/act       the seat's own player's decision (JSON) -> the daemon's answer
    GET  /seat/N/dice.jpg  the last throw's picture, for the seat's page
    GET  /static/...       the page's scripts and styles, all served from here (no CDN)
    GET  /games/NAME/screen.js, /games/NAME/screen.css
                           an installed game's own screen: how the pages draw its seats,
                           phase, end and seat decisions (src/tabletop/console/screens.py)
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import io
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tabletop.rules import games

from .corrections import COCKED, CorrectionError, Corrections, read_correction, roll_entry
from .feed import TableFeed
from .forms import FormError, forms_for
from .guard import BodyTooLarge, Guard, ServedNames
from .players import EXAMPLE_DECKS, player_setup
from .screens import read_screens
from .seats import (
    MAX_PHONES_PER_CODE,
    JoinRefused,
    SeatActionRefused,
    SeatScreens,
    seat_command,
    seat_snapshot,
)
from .sessions import LoginRefused, Sessions
from .throttle import TryLater

STATIC = Path(__file__).parent / "static"
SESSION_ENDED = (
    "Your session ended (the console restarted, it was idle too long or reached its time, "
    "or it was logged out in another tab): log in again."
)
OPEN_TABLE_NOTE = (
    '<p class="open-table" id="login-open"><strong>This table has no passwords: any name opens '
    "the game master's view.</strong> Its file lists no broker users (a simulated table, a "
    "laptop); give it <code>[[broker.users]]</code> to ask for passwords (docs/security.md).</p>"
)
COOKIE = "tabletop_console_gm"
SEAT_COOKIE = "tabletop_console_seat"  # one per seat: its path is /seat/N
MAX_SEAT = 64
SEAT_FEED_CHECK = 2.0  # how often a seat's stream with no game master looks for one


def error(status: int, message: str, field: str | None = None) -> JSONResponse:
    """A refusal as the page shows it: what is wrong, and which field when known."""
    body: dict[str, Any] = {"ok": False, "error": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status)


def build_app(
    room: TableFeed,
    sessions: Sessions,
    default_game: str,
    served: ServedNames,
    *,
    secure: bool = False,
    corrections: Corrections | None = None,
    decks_folder: Path = EXAMPLE_DECKS,
    seats_store: Path | None = None,
) -> Starlette:
    """The Starlette app over the room's feed and the game masters' sessions, serving the
    host names `served`; `secure`: served over TLS, so the cookie is sent over TLS only;
    `corrections`: where corrected throws are kept (None: the console keeps none);
    `decks_folder`: the Showdown decks a game master picks from (`*.toml`); `seats_store`:
    where the phones' joins are kept across a restart (None: in memory only)."""
    # Each game's choices per player, read once (a game whose players pick a deck reads the
    # decks folder now, not on every page).
    setups = {name: player_setup(games.get(name), decks_folder) for name in games.names()}
    # Each game's own drawing for the pages, read once; each page links every game's.
    drawings = read_screens(games.get(name) for name in games.names())
    game_files = {
        **{
            f"{name}/screen.js": _asset(text, "text/javascript; charset=utf-8")
            for name, text in drawings.scripts.items()
        },
        **{
            f"{name}/screen.css": _asset(text, "text/css; charset=utf-8")
            for name, text in drawings.styles.items()
        },
    }

    def linked_page(name: str, seat: int | None = None) -> Response:
        text = drawings.linked((STATIC / name).read_text(encoding="utf-8"))
        return HTMLResponse(text if seat is None else text.replace("__SEAT__", str(seat)))

    async def game_file(request: Request) -> Response:
        serve = game_files.get(f"{request.path_params['game']}/{request.path_params['file']}")
        if serve is None:
            return error(404, "no such game screen: see /games/NAME/screen.js of a game installed")
        return await serve(request)

    screens = SeatScreens(sessions, seats_store)
    # No users in the table's file and an anonymous room view: the broker takes any login
    # (the simulated table, a laptop), so the login page says that any name opens the view.
    open_table = not sessions.users and sessions.url.username is None

    def login_page(message: str = "", status: int = 200, username: str = "") -> Response:
        return _login_page(message, status, username, open_table=open_table)

    def seat_number(request: Request) -> int | None:
        text = str(request.path_params["seat"])
        # ASCII digits only ("²" is a digit to str.isdigit, and int() refuses it), and few
        # of them (int() refuses 5,000 digits)
        if not (text.isascii() and text.isdigit() and len(text) <= 3):
            return None
        number = int(text)
        return number if 1 <= number <= MAX_SEAT else None

    def no_seat(request: Request) -> Response:
        shown = str(request.path_params["seat"])
        shown = shown if len(shown) <= 12 else shown[:12] + "..."
        return error(404, f"no seat {shown!r}: seats are 1 to {MAX_SEAT}")

    async def seat_page(request: Request) -> Response:
        seat = seat_number(request)
        if seat is None:
            return no_seat(request)
        if not screens.joined(seat, request.cookies.get(SEAT_COOKIE)):
            ended = "ended" in request.query_params
            message = (
                "This seat's screen ended: ask the game master for a new code." if ended else ""
            )
            code = request.query_params.get("code", "")[:12]
            return _join_page(seat, message, code=code)
        return linked_page("seat.html", seat)

    async def seat_join(request: Request) -> Response:
        seat = seat_number(request)
        if seat is None:
            return no_seat(request)
        body = await request.body()
        try:
            form = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=4)
        except (UnicodeDecodeError, ValueError):
            return _join_page(seat, "Send the form as the page does.", status=400)
        try:
            token = screens.join(seat, form.get("code", [""])[0], _client(request))
        except TryLater as later:
            page = _join_page(seat, str(later), status=429)
            page.headers["Retry-After"] = str(later.retry_after)
            return page
        except JoinRefused as refused:
            return _join_page(seat, str(refused), status=403)
        response = RedirectResponse(f"/seat/{seat}", status_code=303)
        response.set_cookie(
            SEAT_COOKIE,
            token,
            max_age=max(1, int(screens.seconds_left(token))),
            httponly=True,
            secure=secure,
            # lax, not strict: a phone that scans the seat's QR code comes from another app,
            # and the page it opens must send the cookie it has (its actions are POSTs)
            samesite="lax",
            path=f"/seat/{seat}",
        )
        return response

    async def seat_events(request: Request) -> Response:
        seat = seat_number(request)
        token = request.cookies.get(SEAT_COOKIE)
        if seat is None or not screens.joined(seat, token):
            return error(401, "join this seat with its code first")
        return EventSourceResponse(
            _seat_stream(room, screens, seat, token, request), ping=10, send_timeout=10
        )

    async def seat_session(request: Request) -> Response:
        seat = seat_number(request)
        if seat is None or not screens.joined(seat, request.cookies.get(SEAT_COOKIE)):
            return error(401, "this seat's screen ended")
        return JSONResponse({"ok": True})

    async def seat_act(request: Request) -> Response:
        """A seat's own decision: sent for the seat's player, through a logged-in game
        master's login, and checked by the rules daemon against what the game awaits from
        that player (src/tabletop/daemon/seat_commands.py); every refusal is this phone's
        answer."""
        seat = seat_number(request)
        if seat is None or not screens.joined(seat, request.cookies.get(SEAT_COOKIE)):
            return error(401, "This seat's screen ended: ask the game master for a new code.")
        if request.headers.get("content-type", "").split(";")[0] != "application/json":
            return error(415, "Send the decision as the page does.")
        body = await request.body()  # bounded by the Guard: BodyTooLarge past its limit
        feed = screens.feed(seat, request.cookies.get(SEAT_COOKIE))
        if feed is None:
            return error(
                503,
                "Not sent: no game master is logged in, and your phone's decisions go "
                "through their login. Ask the game master to log in.",
            )
        view = feed.seat_views.get(seat)
        player = view.get("seat") if isinstance(view, dict) else None
        if not isinstance(player, str):
            return error(409, f"Not sent: seat {seat} has no player in this game.")
        try:
            values = json.loads(body)
        except (ValueError, RecursionError):
            return error(400, "Send the decision as the page does.")
        try:
            command = seat_command(values, seat, player)
        except SeatActionRefused as refused:
            return error(400, str(refused))
        try:
            reply = await feed.send(command)
        except Exception as failed:  # NoReply, offline, the broker gone: said in words
            return error(504, str(failed))
        ok = bool(reply.get("ok"))
        answer: dict[str, Any] = {"ok": ok}
        if not ok:
            answer["error"] = _in_words(str(reply.get("error", "refused")))
        return JSONResponse(answer)

    async def room_page(request: Request) -> Response:
        return linked_page("room.html")

    async def overlay_page(request: Request) -> Response:
        # the room's public feed on a transparent page (a streaming program's browser
        # source): the same data as the room view, so the same access (no login)
        return linked_page("overlay.html")

    async def room_events(request: Request) -> Response:
        return EventSourceResponse(_stream(room, request), ping=10, send_timeout=10)

    async def room_picture(request: Request) -> Response:
        return _picture(room)

    async def gm_picture(request: Request, feed: TableFeed) -> Response:
        return _picture(feed)

    async def gm_page(request: Request) -> Response:
        if sessions.get(request.cookies.get(COOKIE)) is None:
            ended = "ended" in request.query_params
            return login_page(SESSION_ENDED if ended else "")
        return linked_page("gm.html")

    async def gm_login(request: Request) -> Response:
        if request.method == "GET":  # the address opened by hand: the login page, not JSON
            return RedirectResponse("/gm", status_code=303)
        # A plain HTML form (urlencoded): read here rather than add python-multipart.
        body = await request.body()
        try:
            form = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=8)
        except (UnicodeDecodeError, ValueError):
            return login_page("Send the login form as the page does.", status=400)
        username = form.get("username", [""])[0]
        password = form.get("password", [""])[0]
        if not username:
            wanted = "Give any name." if open_table else "Give a user name and a password."
            return login_page(wanted, status=400)
        try:
            # on the login pool, one at a time per address (src/tabletop/console/sessions.py)
            token = await sessions.login(_client(request), username, password)
        except TryLater as later:
            page = login_page(str(later), status=429, username=username)
            page.headers["Retry-After"] = str(later.retry_after)
            return page
        except LoginRefused as refused:
            return login_page(str(refused), status=403, username=username)
        response = RedirectResponse("/gm", status_code=303)
        response.set_cookie(
            COOKIE,
            token,
            max_age=max(1, int(sessions.seconds_left(token))),
            httponly=True,
            secure=secure,
            samesite="strict",
            path="/",
        )
        return response

    async def gm_logout(request: Request) -> Response:
        await asyncio.to_thread(sessions.close, request.cookies.get(COOKIE))
        response = RedirectResponse("/gm", status_code=303)
        response.delete_cookie(COOKIE, path="/", secure=secure, httponly=True, samesite="strict")
        return response

    def logged_in(
        handler: Callable[[Request, TableFeed], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def checked(request: Request) -> Response:
            feed = sessions.get(request.cookies.get(COOKIE))
            if feed is None:
                return error(401, "log in as a game master first (/gm)")
            return await handler(request, feed)

        return checked

    async def gm_events(request: Request, feed: TableFeed) -> Response:
        token = request.cookies.get(COOKIE)
        # the session was in use until its page stops following: its idle time starts then
        stream = _stream(feed, request, on_end=lambda: sessions.touch(token))
        return EventSourceResponse(stream, ping=10, send_timeout=10)

    async def gm_seats(request: Request, feed: TableFeed) -> Response:
        numbers = sorted(feed.seat_views)
        if not numbers:
            return error(
                409,
                "the rules daemon publishes no seat views for this table (it runs without "
                "seats: tabletop rules --config names them), or no game has started",
            )
        asked = request.query_params.get("phones", "1")
        if not (asked.isascii() and asked.isdigit() and 1 <= int(asked) <= MAX_PHONES_PER_CODE):
            return error(
                400, f"phones: how many phones each code joins, 1 to {MAX_PHONES_PER_CODE}"
            )
        codes = screens.issue(numbers, int(asked))
        seats = [
            {
                "seat": seat,
                "name": feed.seat_views[seat].get("seat"),
                "code": codes[seat],
                "path": f"/seat/{seat}",
                "url": _join_url(request, seat, codes[seat]),
                "qr": f"/gm/seats/{seat}/qr.svg",
            }
            for seat in numbers
        ]
        return JSONResponse({"ok": True, "seats": seats, "phones": screens.phones})

    async def gm_seat_qr(request: Request, feed: TableFeed) -> Response:
        seat = seat_number(request)
        if seat is None:
            return no_seat(request)
        code = screens.code_for(seat)
        if code is None:
            return error(404, f"seat {seat} has no code waiting: give the seats codes first")
        svg = _qr_svg(_join_url(request, seat, code), seat)  # a few ms: no thread for it
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    async def gm_undo(request: Request, feed: TableFeed) -> Response:
        """Takes the game's last applied command back (a seat's, or the game master's own)."""
        try:
            reply = await feed.send({"cmd": "undo"})
        except Exception as failed:  # NoReply, offline, the broker gone: said in words
            return error(504, str(failed))
        if not reply.get("ok"):
            return error(409, _in_words(str(reply.get("error", "refused"))))
        return JSONResponse({"ok": True, "undid": reply.get("undid")})

    async def gm_forget_phones(request: Request, feed: TableFeed) -> Response:
        ended = screens.forget()
        return JSONResponse({"ok": True, "ended": ended})

    async def gm_session(request: Request, feed: TableFeed) -> Response:
        left = sessions.seconds_left(request.cookies.get(COOKIE))
        return JSONResponse({"ok": True, "seconds_left": round(left)})

    def playing(feed: TableFeed) -> str:
        name = feed.game or room.game or default_game
        return name if name in games.names() else default_game

    def game_forms(feed: TableFeed, wanted: str | None = None) -> tuple[str, dict[str, Any]]:
        """The forms of the game on the table, or of `wanted` (`?game=NAME`: a game the game
        master is about to start, of which only `new` may be sent)."""
        game = games.get(wanted if wanted is not None else playing(feed))
        setup = setups[game.name] if game.name in setups else player_setup(game, decks_folder)
        return game.name, forms_for(game.gm_actions(), game.roster_keys, setup)

    def game_asked(request: Request) -> str | None:
        wanted = request.query_params.get("game")
        if wanted is not None and wanted not in games.names():
            raise FormError(f"no game {wanted!r}; the games are {', '.join(games.names())}")
        return wanted

    async def gm_actions(request: Request, feed: TableFeed) -> Response:
        try:
            name, forms = game_forms(feed, game_asked(request))
        except FormError as refused:
            return error(404, str(refused))
        catalogue = [
            {"name": game.name, "title": game.info.title}
            for game in (games.get(each) for each in games.names())
        ]
        return JSONResponse(
            {
                "game": name,
                "playing": playing(feed),
                "games": catalogue,
                "actions": [f.to_json() for f in forms.values()],
            }
        )

    async def gm_act(request: Request, feed: TableFeed) -> Response:
        verb = request.path_params["verb"]
        try:
            wanted = game_asked(request)
        except FormError as refused:
            return error(404, str(refused))
        name, forms = game_forms(feed, wanted)
        form = forms.get(verb)
        if form is None:
            return error(404, f"{name} has no action {verb!r}; known: {', '.join(forms)}")
        if wanted is not None and wanted != playing(feed) and verb != "new":
            return error(409, f"{name} is not on the table: start it first (its 'new')")
        if request.headers.get("content-type", "").split(";")[0] != "application/json":
            return error(415, "send the form as JSON (Content-Type: application/json)")
        body = await request.body()  # bounded by the Guard: BodyTooLarge past its limit
        try:
            values = json.loads(body)
        except (ValueError, RecursionError) as bad:
            return error(400, f"not valid JSON: {bad}")
        if not isinstance(values, dict):
            return error(400, "expected a JSON object of the form's fields")
        try:
            command = await asyncio.to_thread(form.command, values)
        except FormError as refused:
            return error(400, str(refused), refused.field)
        if command.get("cmd") == "new_game":
            command["game"] = name  # the daemon plays the game the page's form belongs to
        try:
            reply = await feed.send(command)
        except Exception as failed:  # NoReply, or the broker gone: said in words
            return error(504, str(failed))
        return JSONResponse({"ok": bool(reply.get("ok")), "command": command, "reply": reply})

    async def gm_photo(request: Request, feed: TableFeed) -> Response:
        if feed.photo is None:
            return error(404, "no throw has been photographed yet")
        return Response(
            feed.photo.jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"}
        )

    async def gm_correct(request: Request, feed: TableFeed) -> Response:
        """A throw's reading corrected on its photo: kept for the table's next enrolment,
        then sent as the game's own roll entry, as its form on this page would send it; a
        throw with a cocked die is kept only (a leaning die has no value to enter)."""
        if corrections is None:
            return error(503, "this console keeps no corrections (started without a folder)")
        if request.headers.get("content-type", "").split(";")[0] != "application/json":
            return error(415, "send the correction as JSON (Content-Type: application/json)")
        body = await request.body()  # bounded by the Guard: BodyTooLarge past its limit
        photo = feed.photo
        try:
            dice = read_correction(body, photo)
            assert photo is not None  # read_correction refuses a correction without one
            leaning = sum(d.value == COCKED for d in dice)
            if leaning:
                kept = await asyncio.to_thread(corrections.keep, photo, dice)
                saved = {"image": kept, "dice": len(dice), "labels": str(corrections.labels)}
                return JSONResponse({"ok": True, "sent": False, "cocked": leaning, "saved": saved})
            name, forms = game_forms(feed)
            form, fields = roll_entry(
                forms, feed.parts.get("prompt"), [int(d.value) for d in dice], name
            )
            try:
                command = await asyncio.to_thread(form.command, fields)
            except FormError as refused:
                raise CorrectionError(400, str(refused), "dice") from None
            kept = await asyncio.to_thread(corrections.keep, photo, dice)
        except CorrectionError as refused:
            return error(refused.status, str(refused), refused.field)
        saved = {"image": kept, "dice": len(dice), "labels": str(corrections.labels)}
        try:
            reply = await feed.send(command)
        except Exception as failed:  # NoReply, or the broker gone: said in words
            body_out = {"ok": False, "error": f"kept, but not sent: {failed}", "saved": saved}
            return JSONResponse(body_out, status_code=504)
        return JSONResponse(
            {
                "ok": bool(reply.get("ok")),
                "sent": True,
                "command": command,
                "reply": reply,
                "saved": saved,
            }
        )

    return Starlette(
        routes=[
            Route("/", room_page),
            Route("/events", room_events),
            Route("/dice.jpg", room_picture),
            Route("/overlay", overlay_page),
            Route("/gm", gm_page),
            Route("/gm/dice.jpg", logged_in(gm_picture)),
            Route("/gm/login", gm_login, methods=["GET", "POST"]),
            Route("/gm/logout", gm_logout, methods=["POST"]),
            Route("/gm/events", logged_in(gm_events)),
            Route("/gm/session", logged_in(gm_session)),
            Route("/gm/actions", logged_in(gm_actions)),
            Route("/gm/actions/{verb}", logged_in(gm_act), methods=["POST"]),
            Route("/gm/seats", logged_in(gm_seats), methods=["POST"]),
            Route("/gm/seats/forget", logged_in(gm_forget_phones), methods=["POST"]),
            Route("/gm/undo", logged_in(gm_undo), methods=["POST"]),
            Route("/gm/seats/{seat}/qr.svg", logged_in(gm_seat_qr)),
            Route("/gm/dice/photo.jpg", logged_in(gm_photo)),
            Route("/gm/dice/correction", logged_in(gm_correct), methods=["POST"]),
            Route("/seat/{seat}", seat_page),
            Route("/seat/{seat}/join", seat_join, methods=["POST"]),
            Route("/seat/{seat}/events", seat_events),
            Route("/seat/{seat}/session", seat_session),
            Route("/seat/{seat}/act", seat_act, methods=["POST"]),
            Route("/seat/{seat}/dice.jpg", room_picture),
            Route("/games/{game}/{file}", game_file),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(Guard, served=served)],
        exception_handlers={
            404: _not_found,
            405: _not_allowed,
            BodyTooLarge: _too_large,
            ClientDisconnect: _gone,
        },
    )


async def _stream(
    feed: TableFeed, request: Request, on_end: Callable[[], None] = lambda: None
) -> AsyncIterator[dict[str, Any]]:
    """One page's server-sent events: the snapshot now, then each newer one; the stream
    ends when the feed does (the console stops, the session ends)."""
    subscriber = feed.follow()
    try:
        yield {"retry": 1000, "data": "{}", "event": "hello"}
        while True:
            data = await subscriber.queue.get()
            if data is None or await request.is_disconnected():
                return
            yield {"event": "snapshot", "data": data}
    finally:
        feed.unfollow(subscriber)
        on_end()


async def _seat_stream(
    room: TableFeed, screens: SeatScreens, seat: int, token: str | None, request: Request
) -> AsyncIterator[dict[str, Any]]:
    """A seat's server-sent events: the room's public picture with the seat's own view, anew
    whenever either changes. The view comes through a logged-in game master's feed, any of
    them: when that one logs out the stream goes on through another, and with none it shows
    the room's picture until one logs in (looked for every `SEAT_FEED_CHECK` seconds). It ends
    when the console does, or when the phone's join ends."""
    public = room.follow()
    feed: TableFeed | None = None
    private = None
    last = ""
    waits: list[asyncio.Future[str | None]] = []
    try:
        yield {"retry": 1000, "data": "{}", "event": "hello"}
        while True:
            if not screens.joined(seat, token):
                return
            current = screens.feed(seat, token)
            if current is not feed:
                if feed is not None and private is not None:
                    feed.unfollow(private)
                feed, private = current, (current.follow() if current is not None else None)
            data = seat_snapshot(room, feed, seat)
            if data != last:
                last = data
                yield {"event": "snapshot", "data": data}
            queues = [public] + ([private] if private is not None else [])
            waits = [asyncio.ensure_future(q.queue.get()) for q in queues]
            done, pending = await asyncio.wait(
                waits, timeout=SEAT_FEED_CHECK, return_when=asyncio.FIRST_COMPLETED
            )
            for waiting in pending:
                waiting.cancel()
            if waits[0] in done and waits[0].result() is None:
                return  # the console stops
            if len(waits) > 1 and waits[1] in done and waits[1].result() is None:
                feed = private = None  # that game master's login ended: another's, or none
            if await request.is_disconnected():
                return
    finally:
        # A closed page cancels this stream inside asyncio.wait: its waits, left pending,
        # were each logged as an ERROR ("Task was destroyed but it is pending").
        for waiting in waits:
            waiting.cancel()
        room.unfollow(public)
        if feed is not None and private is not None:
            feed.unfollow(private)


def _join_url(request: Request, seat: int, code: str) -> str:
    """The address a phone opens to join `seat`: this console as the game master's tablet
    reached it (a name the console serves), with the code filled in."""
    return f"{str(request.base_url).rstrip('/')}/seat/{seat}?code={code}"


def _qr_svg(url: str, seat: int) -> bytes:
    """`url` as a QR code, an SVG image with its title (what a screen reader says)."""
    import segno

    qr = segno.make(url, error="m")
    out = io.BytesIO()
    qr.save(
        out,
        kind="svg",
        scale=6,
        border=3,
        dark="#000000",
        light="#ffffff",  # the pages are dark: a scanner wants dark modules on light
        title=f"Seat {seat}'s join code",
        xmldecl=False,
    )
    return out.getvalue()


def _in_words(error_text: str) -> str:
    """A daemon's refusal as the player reads it: without the field's prefix ("action: ")."""
    head, colon, rest = error_text.partition(": ")
    if colon and head.replace("_", "").replace(".", "").isalnum() and " " not in head:
        return rest[:1].upper() + rest[1:]
    return error_text


def _picture(feed: TableFeed) -> Response:
    """The last throw's annotated picture, or 404 in words before the first throw."""
    picture = feed.picture
    if picture is None:
        return error(404, "no throw has been pictured yet")
    return Response(picture, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


def _asset(text: str, media_type: str) -> Callable[[Request], Awaitable[Response]]:
    """A route that serves `text`, made once, as StaticFiles serves a file: revalidated on
    each load (an ETag; 304 when the page has it already), so a console started with another
    game installed is not drawn from an old copy."""
    body = text.encode("utf-8")
    tag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": tag, "Cache-Control": "no-cache"}

    async def serve(request: Request) -> Response:
        if tag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type=media_type, headers=headers)

    return serve


def _login_page(
    message: str = "", status: int = 200, username: str = "", *, open_table: bool = False
) -> Response:
    text = (STATIC / "login.html").read_text(encoding="utf-8")
    text = text.replace("<!--open-->", OPEN_TABLE_NOTE if open_table else "")
    note = f'<p class="refusal" role="alert" id="login-error">{html.escape(message)}</p>'
    text = text.replace("<!--message-->", note if message else "")
    text = text.replace("__USERNAME__", html.escape(username, quote=True))
    return HTMLResponse(text, status_code=status)


def _join_page(seat: int, message: str = "", status: int = 200, code: str = "") -> Response:
    text = (STATIC / "join.html").read_text(encoding="utf-8").replace("__SEAT__", str(seat))
    text = text.replace("__CODE__", html.escape(code, quote=True))
    note = f'<p class="refusal" role="alert" id="join-error">{html.escape(message)}</p>'
    return HTMLResponse(text.replace("<!--message-->", note if message else ""), status_code=status)


async def _not_found(request: Request, exc: Exception) -> Response:
    return error(404, f"nothing at {request.url.path}; the pages are / and /gm")


def _client(request: Request) -> str:
    """The address a request came from (what the login and seat-code limits count by)."""
    return request.client.host if request.client is not None else ""


async def _gone(request: Request, exc: Exception) -> Response:
    """A client that left while its body was read: no one to answer, nothing to log."""
    return Response(status_code=400, headers={"Connection": "close"})


async def _too_large(request: Request, exc: Exception) -> Response:
    response = error(413, str(exc))
    response.headers["Connection"] = "close"  # the rest of the body is never read
    return response


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return error(405, f"{request.method} is not allowed on {request.url.path}")

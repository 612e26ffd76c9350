"""The console's web application: pages, live streams and the game master's actions.

Routes:
    GET  /                 the room view (public data only)
    GET  /events           the room's live stream (server-sent events, one snapshot each)
    GET  /dice.jpg         the last throw as the camera saw it, annotated (JPEG)
    GET  /gm               the game master's view, or its login form
    POST /gm/login         a broker user of role `gm` logs in (form: username, password)
    POST /gm/logout
    GET  /gm/events        the referee's live stream (logged in only)
    GET  /gm/session       whether this browser's login is live (200) or not (401)
    GET  /gm/dice.jpg      the last throw's picture, for the game master's page
    GET  /gm/actions       the game's actions as form descriptions (logged in only)
    POST /gm/actions/VERB  a filled-in form (JSON object) -> the daemon's reply
    GET  /static/...       the page's scripts and styles, all served from here (no CDN)
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rules import games
from rules.errors import RulesError

from .feed import TableFeed
from .forms import FormError, forms_for
from .guard import BodyTooLarge, Guard, ServedNames
from .sessions import LoginRefused, Sessions

STATIC = Path(__file__).parent / "static"
SESSION_ENDED = (
    "Your session ended (the console restarted, it was idle too long or reached its time, "
    "or it was logged out in another tab): log in again."
)
COOKIE = "tabletop_console_gm"


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
) -> Starlette:
    """The Starlette app over the room's feed and the game masters' sessions, serving the
    host names `served`; `secure`: served over TLS, so the cookie is sent over TLS only."""

    async def room_page(request: Request) -> Response:
        return _page("room.html")

    async def room_events(request: Request) -> Response:
        return EventSourceResponse(_stream(room, request), ping=10, send_timeout=10)

    async def room_picture(request: Request) -> Response:
        return _picture(room)

    async def gm_picture(request: Request, feed: TableFeed) -> Response:
        return _picture(feed)

    async def gm_page(request: Request) -> Response:
        if sessions.get(request.cookies.get(COOKIE)) is None:
            ended = "ended" in request.query_params
            return _login_page(SESSION_ENDED if ended else "")
        return _page("gm.html")

    async def gm_login(request: Request) -> Response:
        # A plain HTML form (urlencoded): read here rather than add python-multipart.
        body = await request.body()
        try:
            form = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=8)
        except (UnicodeDecodeError, ValueError):
            return _login_page("Send the login form as the page does.", status=400)
        username = form.get("username", [""])[0]
        password = form.get("password", [""])[0]
        if not username:
            return _login_page("Give a user name and a password.", status=400)
        try:
            token = await asyncio.to_thread(sessions.open, username, password)
        except LoginRefused as refused:
            return _login_page(str(refused), status=403, username=username)
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

    async def gm_session(request: Request, feed: TableFeed) -> Response:
        left = sessions.seconds_left(request.cookies.get(COOKIE))
        return JSONResponse({"ok": True, "seconds_left": round(left)})

    def game_forms(feed: TableFeed) -> tuple[str, dict[str, Any]]:
        name = feed.game or room.game or default_game
        try:
            game = games.get(name)
        except RulesError:
            game = games.get(default_game)
        return game.name, forms_for(game.gm_actions(), game.roster_keys)

    async def gm_actions(request: Request, feed: TableFeed) -> Response:
        name, forms = game_forms(feed)
        return JSONResponse({"game": name, "actions": [f.to_json() for f in forms.values()]})

    async def gm_act(request: Request, feed: TableFeed) -> Response:
        verb = request.path_params["verb"]
        name, forms = game_forms(feed)
        form = forms.get(verb)
        if form is None:
            return error(404, f"{name} has no action {verb!r}; known: {', '.join(forms)}")
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
        try:
            reply = await feed.send(command)
        except Exception as failed:  # NoReply, or the broker gone: said in words
            return error(504, str(failed))
        return JSONResponse({"ok": bool(reply.get("ok")), "command": command, "reply": reply})

    return Starlette(
        routes=[
            Route("/", room_page),
            Route("/events", room_events),
            Route("/dice.jpg", room_picture),
            Route("/gm", gm_page),
            Route("/gm/dice.jpg", logged_in(gm_picture)),
            Route("/gm/login", gm_login, methods=["POST"]),
            Route("/gm/logout", gm_logout, methods=["POST"]),
            Route("/gm/events", logged_in(gm_events)),
            Route("/gm/session", logged_in(gm_session)),
            Route("/gm/actions", logged_in(gm_actions)),
            Route("/gm/actions/{verb}", logged_in(gm_act), methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(Guard, served=served)],
        exception_handlers={404: _not_found, 405: _not_allowed, BodyTooLarge: _too_large},
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


def _picture(feed: TableFeed) -> Response:
    """The last throw's annotated picture, or 404 in words before the first throw."""
    picture = feed.picture
    if picture is None:
        return error(404, "no throw has been pictured yet")
    return Response(picture, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


def _page(name: str) -> Response:
    return HTMLResponse((STATIC / name).read_text(encoding="utf-8"))


def _login_page(message: str = "", status: int = 200, username: str = "") -> Response:
    text = (STATIC / "login.html").read_text(encoding="utf-8")
    note = f'<p class="refusal" role="alert" id="login-error">{html.escape(message)}</p>'
    text = text.replace("<!--message-->", note if message else "")
    text = text.replace("__USERNAME__", html.escape(username, quote=True))
    return HTMLResponse(text, status_code=status)


async def _not_found(request: Request, exc: Exception) -> Response:
    return error(404, f"nothing at {request.url.path}; the pages are / and /gm")


async def _too_large(request: Request, exc: Exception) -> Response:
    response = error(413, str(exc))
    response.headers["Connection"] = "close"  # the rest of the body is never read
    return response


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return error(405, f"{request.method} is not allowed on {request.url.path}")

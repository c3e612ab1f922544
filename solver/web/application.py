"""The ASGI application: the page, its assets, the JSON API and its OpenAPI description.

:func:`create_app` takes its :class:`~solver.web.solutions.Settings` (the tables, the cache
sizes, the limits) instead of reading globals; `solver.web:app` is the application made from
the environment (``SABORDS_WEB_*``), for any ASGI server.

Starlette, not FastAPI: every parameter is an input of :mod:`solver.advice.inputs`, read by
:mod:`solver.web.params` into errors that are data (a kind, the parameter, the values), which
FastAPI's pydantic validation would replace with its own; FastAPI would also bring pydantic,
whose import alone costs more than the whole answer of a points query. The OpenAPI description
is made from the same table of endpoints the handlers read (:mod:`solver.web.openapi`).

Errors: one exception handler per kind (:func:`error_handlers`): a query that cannot be read
(:class:`~solver.web.params.BadRequest`, 400), an entry of a turn refused (422, with its
index), a table this server does not have (:class:`~solver.errors.StaleTableError`, 503) or
would have to solve with solves on demand off (:class:`~solver.web.solutions.SolveRefused`,
503) or beyond its largest target (:class:`~solver.web.solutions.GameTooLarge`, 503: the
server's limit, not a rule: the same query is answered by a server that allows it), a full
queue of solves (:class:`~solver.web.solutions.SolverBusy`, 429 with ``Retry-After``), any
other input the library refuses (:class:`~solver.errors.SabordsError`, 422), an HTTP error
of the router (404; 405 with ``Allow``), and anything else, a bug (500, logged); each
answers the error as data (:func:`solver.web.api.error_data`) with a sentence in the
language of the request's ``Accept-Language`` (:mod:`solver.web.words`: French or English).

Headers: every API answer is JSON with ``X-Content-Type-Options: nosniff``; the page's assets
have a content security policy besides. With :attr:`Settings.allowed_hosts` (``sabords serve
--allowed-host``, required with ``--host 0.0.0.0``), Starlette's ``TrustedHostMiddleware``
answers 400 to a request whose ``Host`` is not one of them (DNS rebinding).

- The page's assets (``/``, its scripts, ``/app.css``, the icons, the web app manifest and the
  service worker ``/sw.js``) are read from the package once, when the application is made: no
  request reaches the file system.
- :class:`RequestLimits` refuses a query string longer than :attr:`Limits.query` bytes (414), a
  GET with a body (413: every endpoint but one is a GET) and a path longer than 256 bytes; a
  request of another method, with a body or not, is the router's 405 with ``Allow`` (its body
  unread). The one POST, ``/api/review``, reads a game record of at most :attr:`Limits.record`
  bytes (413 beyond, refused before the rest is read).
- An answer that needs a table read or a solve runs in a worker thread; an answer from the
  caches on the event loop (:func:`solver.web.api.needs_solving`). While it waits for a solve
  the request watches its client: a client that has left is answered nothing, and the solve
  it waited for is not started (:class:`~solver.web.solutions.SolveQueue`). Tables are solved
  in a process of lower priority (:mod:`solver.web.solving`); a solving process that stopped
  (out of memory) is a 503, and the next solve starts another; a server asked to stop ends its
  solve at once, and the request waiting for it is a 503 (:func:`solver.web.solving.
  stop_solves_on_exit`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, ExceptionHandler, Receive, Scope, Send

from ..errors import SabordsError, StaleTableError
from . import api
from .openapi import openapi
from .params import BadRequest, Endpoint, Limits
from .queue import SolverBusy, answering
from .settings import Settings
from .solutions import GameTooLarge, Solutions, SolveRefused
from .solving import SolverStopped, stop_solves_on_exit
from .words import language

log = logging.getLogger("solver.web")

MAX_PATH = 256
READS = ("GET", "HEAD")
"""The methods every route answers (any other is the router's 405, with ``Allow``)."""
JSON = "application/json"
SCRIPT = "text/javascript; charset=utf-8"
MODULES = ("app", "core", "words", "faces", "practice", "graded", "board", "store", "record",
           "review")
ASSETS = {"/": ("index.html", "text/html; charset=utf-8"),
          **{f"/{name}.js": (f"{name}.js", SCRIPT) for name in MODULES},
          "/sw.js": ("sw.js", SCRIPT),
          "/app.css": ("app.css", "text/css; charset=utf-8"),
          "/icon.svg": ("icon.svg", "image/svg+xml"),
          "/icon-192.png": ("icon-192.png", "image/png"),
          "/icon-512.png": ("icon-512.png", "image/png"),
          "/manifest.webmanifest": ("manifest.webmanifest", "application/manifest+json")}
"""The page's assets: path, file in `solver/web/static/`, media type (the scripts are ES
modules: `app.js` imports the others; `sw.js` is the service worker, at the root so that its
scope is the whole page)."""
SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'self'; img-src 'self' data:; base-uri 'none'; "
                                "form-action 'none'; frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def _json(body: bytes | dict[str, Any], status: int = 200,
          headers: dict[str, str] | None = None) -> Response:
    content = body if isinstance(body, bytes) else api.dumps(body)
    more = {"x-content-type-options": "nosniff", **(headers or {})}
    if status >= 400:
        more.update({"cache-control": "no-store", "vary": "Accept-Language"})
    return Response(content, status_code=status, media_type=JSON, headers=more)


def _lang(headers: Any) -> str:
    """The language of the request's errors (:func:`solver.web.words.language`)."""
    return language(headers.get("accept-language"))


def _error(data: dict[str, Any], status: int, request: Request | None,
           headers: dict[str, str] | None = None) -> Response:
    from .words import error_sentence

    lang = _lang(request.headers) if request is not None else "en"
    return _json({**data, "error": error_sentence(data["error"], data, lang)}, status, headers)


class RequestLimits:
    """Refuses what is too large before the application reads it (module docstring)."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:  # answered as the handler of a bad request answers
                await _bad_request(Request(scope), refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> BadRequest | None:
        query = scope.get("query_string", b"")
        if len(query) > self.limits.query:
            return BadRequest(f"the query is {len(query)} bytes long: at most "
                              f"{self.limits.query} are read", kind="query_too_long",
                              values={"bytes": len(query), "most": self.limits.query},
                              status=414)
        if len(scope.get("raw_path") or scope["path"].encode()) > MAX_PATH:
            return BadRequest(f"the path is longer than {MAX_PATH} bytes",
                              kind="path_too_long", values={"most": MAX_PATH}, status=414)
        if scope.get("method") not in READS:
            return None  # the method is what is wrong: the router's 405, with Allow
        for name, value in scope.get("headers", ()):
            if name == b"transfer-encoding" or (name == b"content-length" and value.strip()
                                                not in (b"", b"0")):
                return BadRequest("a GET has no body here: every endpoint but the review is a "
                                  "GET with a query", kind="request_body", status=413)
        return None


# -- one handler per kind of error -------------------------------------------------------------


def _bad_request(request: Request | None, exc: Exception) -> Response:
    assert isinstance(exc, BadRequest)
    return _error(api.error_data(exc), exc.status, request)


def _entry_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, api.EntryError)
    return _error({**api.error_data(exc.error), "entry": exc.index}, 422, request)


def _no_table(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StaleTableError | SolveRefused | GameTooLarge | SolverStopped)
    return _error(api.error_data(exc), 503, request)


def _busy(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SolverBusy)
    return _error(api.error_data(exc), 429, request, {"retry-after": str(exc.retry_after)})


def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SabordsError)
    return _error(api.error_data(exc), 422, request)


def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error({"error": exc.detail, "kind": "http", "param": None,
                   "values": {"status": exc.status_code}}, exc.status_code, request,
                  dict(exc.headers or {}))


def _internal(request: Request, exc: Exception) -> Response:
    log.error("%s failed", request.url.path, exc_info=exc)
    return _error({"error": "internal error: the server could not answer (see its log)",
                   "kind": "internal", "param": None, "values": {}}, 500, request)


async def _body(request: Request, most: int) -> bytes:
    """The request's body, refused past `most` bytes (413) before it is all read."""
    length = request.headers.get("content-length", "").strip()
    if length.isdigit() and int(length) > most:
        raise BadRequest(f"the body is {int(length)} bytes long: at most {most} are read",
                         kind="body_too_long", values={"bytes": int(length), "most": most},
                         status=413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > most:
            raise BadRequest(f"the body is longer than {most} bytes: at most {most} are read",
                             kind="body_too_long", values={"most": most}, status=413)
        chunks.append(chunk)
    return b"".join(chunks)


WATCH = 0.25
"""How often a request waiting for a solve looks whether its client is still there, seconds."""


def _forget(task: asyncio.Future[Any]) -> None:
    """The end of an answer nobody reads any more (its client left): nothing to send."""
    if not task.cancelled():
        task.exception()  # retrieved: Abandoned, or whatever the solve raised


def error_handlers() -> dict[Any, ExceptionHandler]:
    """The application's exception handlers, one per kind of error (module docstring)."""
    return {BadRequest: _bad_request, api.EntryError: _entry_refused, StaleTableError: _no_table,
            SolveRefused: _no_table, GameTooLarge: _no_table, SolverStopped: _no_table,
            SolverBusy: _busy,
            SabordsError: _refused,
            HTTPException: _http_error, Exception: _internal}


def _asset(name: str) -> bytes:
    return (files("solver.web") / "static" / name).read_bytes()


def _assets() -> dict[str, tuple[bytes, str]]:
    """The page's assets by path; the service worker gets the list of the files it keeps and
    their digest, so that new files make a new worker (and a new cache)."""
    import hashlib
    import json

    assets = {path: (_asset(name), media) for path, (name, media) in ASSETS.items()}
    kept = sorted(path for path in ASSETS if path != "/sw.js")
    digest = hashlib.sha256(b"".join(assets[p][0] for p in kept)).hexdigest()[:16]
    worker, media = assets["/sw.js"]
    assets["/sw.js"] = (worker.replace(b"__ASSETS_DIGEST__", digest.encode())
                        .replace(b"__ASSET_PATHS__", json.dumps(kept).encode()), media)
    return assets


def create_app(settings: Settings | None = None, limits: Limits | None = None) -> Starlette:
    """The application (module docstring) with its settings; the default rules' tables are
    read at start-up when :attr:`Settings.warm`."""
    settings = settings if settings is not None else Settings()
    limits = limits if limits is not None else Limits()
    solutions = Solutions(settings)
    assets = _assets()
    meta = api.dumps(api.meta(solutions.win_players(), settings.max_game_target
                              if settings.solve_on_demand else None))
    spec = api.dumps(openapi())

    async def in_thread(request: Request, fn: Any, *args: Any) -> Response:
        """`fn(*args)` in a worker thread, watching the client: a solve nobody awaits never
        starts."""
        gone = threading.Event()
        task = asyncio.ensure_future(run_in_threadpool(answering, gone, fn, *args))
        while not task.done():
            await asyncio.wait({task}, timeout=WATCH)
            if not task.done() and await request.is_disconnected():
                gone.set()
                task.add_done_callback(_forget)
                return Response(status_code=499)  # nobody reads it
        return _json(task.result())

    def endpoint_route(endpoint: Endpoint) -> Route:
        async def handle(request: Request) -> Response:
            items = list(request.query_params.multi_items())
            solve, q = api.needs_solving(endpoint, items, solutions, limits)
            if solve:
                return await in_thread(request, api.answer, endpoint, items, solutions, limits,
                                       q)
            return _json(api.answer(endpoint, items, solutions, limits, q))

        return Route(endpoint.path, handle, methods=["GET"])

    async def review_route(request: Request) -> Response:
        body = await _body(request, limits.record)
        found = solutions.answers.peek(api.review_key(body))
        if found is not None:
            return _json(found)
        return await in_thread(request, api.review, body, solutions)

    def asset_route(path: str) -> Route:
        body, media = assets[path]

        async def handle(request: Request) -> Response:
            return Response(body, media_type=media, headers={
                "cache-control": "no-cache", **SECURITY_HEADERS})

        return Route(path, handle, methods=["GET"])

    async def meta_route(request: Request) -> Response:
        return _json(meta)

    async def openapi_route(request: Request) -> Response:
        return _json(spec)

    async def health(request: Request) -> Response:
        return _json({"status": "ok", "pid": os.getpid(), "caches": solutions.stats()})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        stop_solves_on_exit()
        if settings.warm:
            try:
                await run_in_threadpool(solutions.warm_up)
            except Exception as exc:  # answered per request (503), not a failed start
                log.warning("the tables could not be read at start-up: %s", exc)
        try:
            yield
        finally:
            await run_in_threadpool(solutions.close)

    routes = [*(endpoint_route(e) for e in api.ENDPOINTS),
              Route(api.REVIEW_PATH, review_route, methods=["POST"]),
              Route("/api/meta", meta_route, methods=["GET"]),
              Route("/api/openapi.json", openapi_route, methods=["GET"]),
              Route("/api/health", health, methods=["GET"]),
              *(asset_route(path) for path in ASSETS)]
    middleware = [Middleware(RequestLimits, limits=limits)]
    if settings.allowed_hosts:
        middleware.insert(0, Middleware(TrustedHostMiddleware,
                                        allowed_hosts=list(settings.allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers=error_handlers(), lifespan=lifespan)
    app.state.solutions = solutions
    app.state.settings = settings
    return app


__all__ = ["ASSETS", "RequestLimits", "create_app", "error_handlers"]

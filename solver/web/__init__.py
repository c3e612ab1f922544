"""The advisor in a phone's browser: `sabords serve`, one page and a JSON API.

- :mod:`.application`: the ASGI application (:func:`create_app`, Starlette), the page's assets, the
  limits of a request;
- :mod:`.api`: the endpoints, each the `--json` answer of a command from the same library
  calls (:mod:`solver.advice.answers`, :class:`solver.advice.play.TurnPlay`);
- :mod:`.params`: the query read, the inputs of :mod:`solver.advice.inputs` (the command line reads
the
  same inputs with its own options);
- :mod:`.solutions` and :mod:`.cache`: the tables and on-demand solves, in bounded caches;
- :mod:`.openapi`: the API's description; :mod:`.serve`: uvicorn, the address phones open and
  its QR code;
- ``static/``: the page (HTML, CSS and a hand-written script: no build step, no CDN).

``solver.web:app`` is the application with the settings of the environment
(:meth:`Settings.from_env`), made when first asked for, for any ASGI server
(``uvicorn solver.web:app --workers 2``); ``solver.web:create_app`` is its factory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .application import create_app
from .settings import Settings

if TYPE_CHECKING:
    from starlette.applications import Starlette

_app: Starlette | None = None


def __getattr__(name: str) -> Any:
    global _app
    if name == "app":
        if _app is None:
            _app = create_app(Settings.from_env())
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Settings", "app", "create_app"]

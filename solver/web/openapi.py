"""The OpenAPI 3.1 description of the API, made from the endpoints the handlers read.

Each parameter is described by the help of the command-line option it is
(:func:`solver.web.params.click_param`), so the description cannot drift from what the
parameter does; served at ``/api/openapi.json``.
"""

from __future__ import annotations

from typing import Any

from .. import __version__
from .api import ENDPOINTS
from .params import FLAG, INT, LIST, Endpoint, Param, click_param, param_help

ERROR = {"type": "object", "required": ["error"],
         "properties": {"error": {"type": "string", "description": (
             "The command line's one-line message (without `sabords: error: `).")},
             "entry": {"type": "integer", "description": "/api/turn: the entry refused."}}}


def _schema(param: Param) -> dict[str, Any]:
    if param.kind == FLAG:
        return {"type": "boolean", "default": False}
    if param.kind == INT:
        return {"type": "integer"}
    if param.kind == LIST:
        return {"type": "array", "items": {"type": "string"}}
    return {"type": "string"}


def _parameter(endpoint: Endpoint, param: Param) -> dict[str, Any]:
    option = click_param(endpoint, param)
    flag = "" if option is None or not getattr(option, "opts", None) else option.opts[0]
    where = f" (`sabords {endpoint.command} {flag}`)" if flag.startswith("--") else (
        f" (`sabords {endpoint.command} {flag.upper()}`)" if flag else "")
    out: dict[str, Any] = {"name": param.name, "in": "query", "required": param.required,
                           "description": param_help(endpoint, param) + where,
                           "schema": _schema(param)}
    if param.kind == LIST:
        out.update({"style": "form", "explode": True})
    return out


def openapi() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for endpoint in ENDPOINTS:
        paths[endpoint.path] = {"get": {
            "summary": endpoint.summary,
            "description": f"The JSON of `sabords {endpoint.command} --json`."
            if endpoint.path != "/api/rules" else "The rules object, its hash and description.",
            "parameters": [_parameter(endpoint, p) for p in endpoint.params],
            "responses": {
                "200": {"description": "The answer.", "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "400": {"description": "A query that cannot be read.",
                        "content": {"application/json": {"schema": ERROR}}},
                "422": {"description": "An input the rules refuse.",
                        "content": {"application/json": {"schema": ERROR}}},
                "503": {"description": "A table of the server is missing or stale.",
                        "content": {"application/json": {"schema": ERROR}}},
            }}}
    for path, summary in (("/api/meta", "The cards, faces, letters and variants"),
                          ("/api/health", "The server's caches")):
        paths[path] = {"get": {"summary": summary, "responses": {"200": {
            "description": "The answer.", "content": {"application/json": {
                "schema": {"type": "object"}}}}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "mille-sabords", "version": __version__, "description": (
            "The advisor of the dice game Mille Sabords: each endpoint answers what the "
            "matching `sabords` command prints with --json.")},
        "paths": paths,
    }


__all__ = ["openapi"]

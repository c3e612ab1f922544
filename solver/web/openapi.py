"""The OpenAPI 3.1 description of the API, made from the endpoints the handlers read.

Each parameter is described by its input's help (:mod:`solver.advice.inputs`), the same text as the
command line's option, so the description cannot drift from what the parameter does; served at
``/api/openapi.json``.
"""

from __future__ import annotations

from typing import Any

from .. import __version__
from ..advice.inputs import FLAG, INT, LIST, Input
from .api import ENDPOINTS
from .params import Endpoint

ERROR = {"type": "object", "required": ["error", "kind"], "properties": {
    "error": {"type": "string", "description": "What went wrong, in a sentence."},
    "kind": {"type": "string", "description": (
        "What went wrong, as a stable code (`dice_count`, `unknown_card`, `not_a_whole_number`, "
        "`stale_table`...): with `param` and `values`, what a client words in its language.")},
    "param": {"type": ["string", "null"], "description": "The input it is about, if one."},
    "values": {"type": "object", "description": "The values it is about."},
    "entry": {"type": "integer", "description": "/api/turn: the entry refused."}}}


def _schema(param: Input) -> dict[str, Any]:
    if param.kind == FLAG:
        return {"type": "boolean", "default": False}
    if param.kind == INT:
        schema: dict[str, Any] = {"type": "integer"}
        if param.minimum is not None:
            schema["minimum"] = param.minimum
        if param.maximum is not None:
            schema["maximum"] = param.maximum
        return schema
    if param.kind == LIST:
        return {"type": "array", "items": {"type": "integer" if param.each == INT
                                           else "string"}}
    return {"type": "string"}


def _parameter(endpoint: Endpoint, param: Input) -> dict[str, Any]:
    out: dict[str, Any] = {"name": param.name, "in": "query", "required": param.required,
                           "description": param.help, "schema": _schema(param)}
    if param.kind == LIST:
        out.update({"style": "form", "explode": True})
    return out


def openapi() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for endpoint in ENDPOINTS:
        described = (f"The JSON of `sabords {endpoint.command} --json`." if endpoint.command
                     else f"{endpoint.summary}.")
        paths[endpoint.path] = {"get": {
            "summary": endpoint.summary,
            "description": described,
            "parameters": [_parameter(endpoint, p) for p in endpoint.params],
            "responses": {
                "200": {"description": "The answer.", "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "400": {"description": "A query that cannot be read.",
                        "content": {"application/json": {"schema": ERROR}}},
                "422": {"description": "An input the rules refuse.",
                        "content": {"application/json": {"schema": ERROR}}},
                "503": {"description": "This server has no table for these rules.",
                        "content": {"application/json": {"schema": ERROR}}},
            }}}
    paths["/api/review"] = {"post": {
        "summary": "A game's review: where it was won and lost, luck against play",
        "description": ("The JSON of `sabords review --json`: the body is a game record "
                        "(docs/record.md), at most 256 KiB."),
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"type": "object", "required": ["format", "version", "rules",
                                                      "rules_hash", "players", "turns"]}}}},
        "responses": {
            "200": {"description": "The review.", "content": {"application/json": {
                "schema": {"type": "object"}}}},
            "413": {"description": "A record too long.",
                    "content": {"application/json": {"schema": ERROR}}},
            "422": {"description": "Not a game record, or one the rules refuse (its place "
                                   "in `values.where`).",
                    "content": {"application/json": {"schema": ERROR}}},
            "503": {"description": "This server has no table for the record's rules.",
                    "content": {"application/json": {"schema": ERROR}}},
        }}}
    for path, summary in (("/api/meta", "The cards, faces, letters, variants and sizes"),
                          ("/api/health", "The server's caches")):
        paths[path] = {"get": {"summary": summary, "responses": {"200": {
            "description": "The answer.", "content": {"application/json": {
                "schema": {"type": "object"}}}}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "mille-sabords", "version": __version__, "description": (
            "The advisor of the dice game Mille Sabords: each endpoint answers what the "
            "matching `sabords` command prints with --json, from the same library calls.")},
        "paths": paths,
    }


__all__ = ["openapi"]

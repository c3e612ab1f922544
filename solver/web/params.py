"""The API's query parameters, read the way the command line reads its options.

Each endpoint is the answer of one command (`GET /api/advise` is `sabords advise --json`...),
so each query parameter is one of that command's options or arguments: :class:`Endpoint` names
them, and :func:`read_query` converts a value with the command's own click parameter (its type,
its range), so that a bad value gets the command line's own one-line message
(:func:`solver.cli.app.usage_line`: ``Invalid value for '--need': 'abc' is not a valid
integer.``) and the OpenAPI description (:mod:`solver.web.openapi`) shows the command's help.

- a flag (``first``, ``final``, ``sorceress_used``, ``exact``) takes ``true`` or ``false``;
- a repeatable option (``variant``, ``card`` of `ev`, ``entry`` of `turn`) is repeated in the
  query, at most :attr:`Limits.values` times (``entry``: :attr:`Limits.entries`);
- every other parameter is given at most once; a parameter the endpoint does not take is
  refused, so no query reaches an option the server keeps to itself (``--tables``, ``--out``:
  the tables come from the server's configuration, never from a request).

Errors are :class:`BadRequest` (HTTP 400) with the one-line message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import click

from ..errors import quote

FLAG, INT, TEXT, LIST = "flag", "int", "text", "list"
"""The kinds of parameter: a boolean flag, an integer, a text, a repeated text."""


class BadRequest(Exception):
    """A query that cannot be read (HTTP 400): an unknown or repeated parameter, a malformed
    value, a missing argument, a request too large."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Param:
    """One query parameter: its name, the command's parameter it is, its kind."""

    name: str
    kind: str = TEXT
    cli: str | None = None
    """The click parameter's name (default: `name`); None with `help` for a parameter of the
    API alone (``entry``)."""
    required: bool = False
    help: str | None = None


@dataclass(frozen=True)
class Endpoint:
    """A GET endpoint and the command whose answer it is."""

    path: str
    command: str
    """The `sabords` command (its options are the parameters)."""
    summary: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class Limits:
    """How much one request may ask for."""

    query: int = 4096
    """Bytes of the query string."""
    values: int = 24
    """Values of one repeated parameter (``variant``, ``card``)."""
    entries: int = 64
    """Entries of a turn (``entry``): rolls and moves."""


@lru_cache(maxsize=1)
def _group() -> click.Group:
    import typer.main

    from ..cli import app

    group = typer.main.get_command(app)
    assert isinstance(group, click.Group)
    return group


def command_of(name: str) -> click.Command:
    """The click command of `sabords NAME` (its parameters and their help)."""
    command = _group().commands[name]
    return command


def click_param(endpoint: Endpoint, param: Param) -> click.Parameter | None:
    """The command's click parameter behind `param` (None for a parameter of the API alone)."""
    if param.cli is None and param.help is not None:
        return None
    name = param.cli or param.name
    for p in command_of(endpoint.command).params:
        if p.name == name:
            return p
    raise LookupError(f"`sabords {endpoint.command}` has no parameter {name!r}")


def param_help(endpoint: Endpoint, param: Param) -> str:
    """The help of `param`: its own, or the command's parameter's. A positional argument's help
    is read from the command's signature (typer's ``ArgumentInfo``), since click 8.3 drops the
    help typer gives its arguments."""
    if param.help is not None:
        return param.help
    option = click_param(endpoint, param)
    text = getattr(option, "help", None)
    if not text:
        from typer.utils import get_params_from_function

        callback = command_of(endpoint.command).callback
        meta = get_params_from_function(callback).get(param.cli or param.name) if callback \
            else None
        text = getattr(getattr(meta, "default", None), "help", None)
    return " ".join((text or "").split())


def _context(endpoint: Endpoint) -> click.Context:
    """A click context of the command, so that errors name `sabords COMMAND --help`."""
    root = click.Context(_group(), info_name="sabords")
    return click.Context(command_of(endpoint.command), info_name=endpoint.command, parent=root)


def read_query(endpoint: Endpoint, items: Iterable[tuple[str, str]],
               limits: Limits = Limits()) -> dict[str, Any]:
    """The values of the query's `items` (name, value pairs in order) for `endpoint`, every
    parameter present: None (or False, or an empty list) for those not given."""
    from ..cli.app import usage_line

    given: dict[str, Any] = {}
    for name, value in items:
        param = endpoint.param(name)
        if param is None:
            takes = ", ".join(p.name for p in endpoint.params)
            raise BadRequest(f"unknown parameter {quote(name)}: {endpoint.path} takes {takes}")
        if param.kind == LIST:
            values = given.setdefault(name, [])
            most = limits.entries if name == "entry" else limits.values
            if len(values) == most:
                raise BadRequest(f"parameter {name!r} is given more than {most} times")
            values.append(value)
        elif name in given:
            raise BadRequest(f"parameter {name!r} is given twice: give it once")
        else:
            given[name] = value
    ctx = _context(endpoint)
    out: dict[str, Any] = {}
    for param in endpoint.params:
        raw = given.get(param.name)
        option = click_param(endpoint, param)
        try:
            if raw is None:
                if param.required and option is not None:
                    raise click.MissingParameter(ctx=ctx, param=option)
                out[param.name] = [] if param.kind == LIST else False if param.kind == FLAG \
                    else None
            elif param.kind == FLAG:
                out[param.name] = _boolean(raw, option, ctx)
            elif param.kind == INT:
                assert option is not None
                out[param.name] = option.type.convert(raw, option, ctx)
            else:
                out[param.name] = raw
        except click.UsageError as exc:
            raise BadRequest(usage_line(exc)) from None
    return out


def _boolean(raw: str, option: click.Parameter | None, ctx: click.Context) -> bool:
    text = raw.strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise click.BadParameter(f"{quote(raw)} is not true or false.", ctx=ctx, param=option)


__all__ = [
    "FLAG",
    "INT",
    "LIST",
    "TEXT",
    "BadRequest",
    "Endpoint",
    "Limits",
    "Param",
    "click_param",
    "command_of",
    "param_help",
    "read_query",
]

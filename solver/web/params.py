"""The API's query parameters: the inputs of :mod:`solver.advice.inputs`, read from a query string.

Each endpoint names the inputs it takes (:class:`Endpoint`); :func:`read_query` reads each by
its kind, the command line reading the same inputs with its own options (the web and the
command line share the inputs' definitions, neither reads through the other):

- a flag (``first``, ``final``, ``sorceress_used``, ``exact``) takes ``true`` or ``false``
  (also ``1``/``0``, ``yes``/``no``, ``on``/``off``); an empty value (``final=``) says neither
  and is refused as any other (a flag not given is false);
- an integer is a whole number as the command line reads it (:func:`solver.errors.
  read_number`: the digits 0-9 after an optional minus, nothing around them), within the
  input's range where it has one (``top`` >= 0);
- a repeated input (``variant``, ``card`` of `ev`, ``entry`` of `turn`, ``total``) is repeated
  in the query, at most :attr:`Limits.values` times (``entry``: :attr:`Limits.entries`);
- every other parameter is given at most once; a parameter the endpoint does not take is
  refused, so no query reaches a setting the server keeps to itself (the tables come from the
  server's configuration, never from a request).

A query that cannot be read is a :class:`BadRequest` (HTTP 400): data (its kind, the parameter,
the values) and a sentence in the web's words, which name the input as a player does
(:attr:`solver.advice.inputs.Input.words`), never a command-line flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..advice.inputs import FLAG, INT, LIST, Input
from ..errors import NumberError, quote, read_number

TRUE = ("true", "1", "yes", "on")
FALSE = ("false", "0", "no", "off")


class BadRequest(Exception):
    """A query that cannot be read (HTTP 400; 413 or 414 for a request too large): an unknown
    or repeated parameter, a malformed value, a missing input. `kind`, `param` and `values`
    say what, as the library's errors do (:meth:`solver.errors.SabordsError.as_data`)."""

    def __init__(self, message: str, *, kind: str, param: str | None = None,
                 values: Mapping[str, Any] | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.param = param
        self.values = dict(values or {})
        self.status = status


@dataclass(frozen=True)
class Endpoint:
    """A GET endpoint: its path, what it answers, the inputs it takes."""

    path: str
    summary: str
    params: tuple[Input, ...]
    command: str | None = None
    """The `sabords` command whose `--json` it answers, if any (for its description)."""

    def param(self, name: str) -> Input | None:
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
    record: int = 262_144
    """Bytes of a game record POSTed to ``/api/review`` (a game of a few hundred turns)."""


def read_query(endpoint: Endpoint, items: Iterable[tuple[str, str]],
               limits: Limits = Limits()) -> dict[str, Any]:
    """The values of the query's `items` (name, value pairs in order) for `endpoint`, every
    parameter present: None (or False, or an empty list) for those not given."""
    given: dict[str, Any] = {}
    for name, value in items:
        param = endpoint.param(name)
        if param is None:
            takes = ", ".join(p.name for p in endpoint.params)
            raise BadRequest(f"unknown parameter {quote(name)}: {endpoint.path} takes {takes}",
                             kind="unknown_parameter", param=name,
                             values={"takes": [p.name for p in endpoint.params]})
        if param.kind == LIST:
            values = given.setdefault(name, [])
            most = limits.entries if name == "entry" else limits.values
            if len(values) == most:
                raise BadRequest(f"parameter {name!r} is given more than {most} times",
                                 kind="too_many_values", param=name, values={"most": most})
            values.append(value)
        elif name in given:
            raise BadRequest(f"parameter {name!r} is given twice: give it once",
                             kind="given_twice", param=name)
        else:
            given[name] = value
    return {param.name: read_value(param, given.get(param.name)) for param in endpoint.params}


def read_value(param: Input, raw: Any) -> Any:
    """One input's value from its text (a list of texts for a repeated one; None if absent)."""
    if raw is None:
        if param.required:
            raise BadRequest(f"{param.words} is missing: give {param.name}=...",
                             kind="missing", param=param.name)
        return [] if param.kind == LIST else False if param.kind == FLAG else None
    if param.kind == FLAG:
        text = raw.strip().lower()
        if text in TRUE or text in FALSE:
            return text in TRUE
        raise BadRequest(f"{param.words}: {quote(raw)} is not true or false",
                         kind="not_true_or_false", param=param.name, values={"value": raw})
    if param.kind == INT:
        return _integer(param, raw)
    if param.kind == LIST and param.each == INT:
        return [_integer(param, value) for value in raw]
    return raw


def _integer(param: Input, raw: str) -> int:
    try:
        value = read_number(raw, param.name)
    except NumberError as exc:
        raise BadRequest(f"{param.words}: {exc.message}", kind=exc.kind, param=param.name,
                         values=exc.values) from None
    if param.minimum is not None and value < param.minimum:
        raise BadRequest(f"{param.words}: {value} is below {param.minimum}",
                         kind="below_minimum", param=param.name,
                         values={"value": value, "minimum": param.minimum})
    if param.maximum is not None and value > param.maximum:
        raise BadRequest(f"{param.words}: {value} is above {param.maximum}",
                         kind="above_maximum", param=param.name,
                         values={"value": value, "maximum": param.maximum})
    return value


__all__ = ["BadRequest", "Endpoint", "Limits", "read_query", "read_value"]

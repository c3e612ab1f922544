"""The command line's parameters where click and typer need a word of their own.

- :data:`DIRECTORY`, the type of every option that names a directory: an empty path is
  refused (it meant the current directory without saying so);
- :func:`restore_argument_help`: the help text of positional arguments, which click 8.3 and
  later drop after typer has set it;
- :func:`help_through_echo`: ``--help`` printed as every answer is
  (:func:`solver.cli.streams.echo`);
- :func:`read_numbers`: every whole number a command reads (``--me``, ``--opp``, ``--games``,
  ``--port``...) read by the library's reader (:func:`solver.errors.read_number`, the web's
  too), not by click's ``int()``, which takes ``٣٠٠``, ``1_000``, ``+100`` and ``' 100'``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import typer

from ..errors import NumberError, read_number
from .streams import (
    EMPTY_PATH,
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    BrokenPipe,
    OutputError,
    echo,
    say,
)

if TYPE_CHECKING:  # click 8.2 and later make the type generic; earlier ones do not
    _ParamType = click.ParamType[Path, Any]
else:
    _ParamType = click.ParamType


class Directory(_ParamType):
    """A directory given on the command line: any path but the empty one (which would mean
    the current directory without saying so)."""

    name = "directory"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path:
        if isinstance(value, Path):
            return value
        if not str(value).strip():
            self.fail(EMPTY_PATH, param, ctx)
        return Path(value)


DIRECTORY = Directory()
"""The type of every option that names a directory (``--tables``, ``--out``...)."""


class _Digits:
    """A whole number read by :func:`solver.errors.read_number` (module doc), then as click
    reads it (its range, if any: the same words)."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            try:
                value = read_number(value)
            except NumberError as exc:
                self.fail(exc.message, param, ctx)  # type: ignore[attr-defined]
        return super().convert(value, param, ctx)  # type: ignore[misc]


class WholeNumber(_Digits, click.types.IntParamType):
    """An integer option or argument (module doc)."""


class WholeNumberRange(_Digits, click.IntRange):
    """An integer option with a range (module doc)."""


def read_numbers(command: click.Command) -> None:
    """Every integer parameter of `command` read as a whole number (module doc): click's
    integer types replaced by :class:`WholeNumber` and :class:`WholeNumberRange`, the range
    kept."""
    for param in command.params:
        kind = param.type
        if isinstance(kind, _Digits) or not isinstance(kind, click.types.IntParamType):
            continue
        if isinstance(kind, click.IntRange):
            param.type = WholeNumberRange(kind.min, kind.max, min_open=kind.min_open,
                                          max_open=kind.max_open, clamp=kind.clamp)
        else:
            param.type = WholeNumber()


def help_through_echo(option: click.Option | None) -> click.Option | None:
    """`--help` printed as every answer is (:func:`~solver.cli.streams.echo`: in the characters
    the output's encoding carries, a full stdout one line, a closed pipe a quiet end), not by
    click, which writes UTF-8 to a stream it finds ASCII."""
    if option is None or getattr(option, "through_echo", False):
        return option

    def show(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if not value or ctx.resilient_parsing:
            return
        try:
            echo(ctx.get_help())
        except BrokenPipe:
            ctx.exit(EXIT_BROKEN_PIPE)
        except OutputError as exc:
            say(f"sabords: error: cannot write the output: {exc}")
            ctx.exit(EXIT_BAD_INPUT)
        ctx.exit()

    option.callback = show
    option.through_echo = True  # type: ignore[attr-defined]
    return option


def restore_argument_help(command: click.Command) -> None:
    """Give each positional argument back its help text: typer sets it before click's own
    ``__init__``, which click 8.3 and later make set it again from their ``help`` argument,
    None, so that ``--help`` described no argument. The text is read again from the
    command's signature (``typer.Argument(help=...)``)."""
    import inspect
    import typing

    if command.callback is None:
        return
    try:
        hints = typing.get_type_hints(inspect.unwrap(command.callback), include_extras=True)
    except (NameError, TypeError):  # an annotation that cannot be resolved: leave the help
        return
    for param in command.params:
        if not isinstance(param, click.Argument) or getattr(param, "help", None):
            continue
        for info in typing.get_args(hints.get(param.name or "", None))[1:]:
            if isinstance(info, typer.models.ArgumentInfo) and info.help:
                param.help = info.help


__all__ = ["DIRECTORY", "Directory", "WholeNumber", "WholeNumberRange", "help_through_echo",
           "read_numbers", "restore_argument_help"]

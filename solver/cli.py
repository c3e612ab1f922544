"""The `sabords` command line: the only module of the package that prints or exits.

Adding a command: append a function decorated with ``@command()`` at the end of this file. The
helpers at the top give every command the same conventions:

- domain errors (every :class:`~solver.rules.RulesError`, a `ValueError`; add other error
  types to :data:`DOMAIN_ERRORS`) become ONE line on stderr and exit code 2, never a traceback;
- ``--variant NAME=VALUE`` (repeatable) through :data:`VariantOption` and :func:`rules_from`;
- ``--json`` through :data:`JsonOption` and :func:`print_json`: one JSON object on stdout that
  carries ``rules_hash``.

Start-up time matters (the advisor's cold start): import heavy modules (numpy, the engine,
tables) inside the command that needs them, never at the top of this file.
"""

import functools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, ParamSpec, TextIO, TypeVar

import typer

from . import __version__
from .rules import VARIANT_NAMES, Rules, RulesError, rules_with

if TYPE_CHECKING:
    from .advisor import Advice
    from .dice import Dice
    from .game import GameSolution
    from .rules import Card
    from .verdict import Verdict

# -- shared helpers: errors, variants, JSON ---------------------------------------------------

_USAGE_ERROR: type[Exception] = typer.BadParameter.__mro__[1]
"""click's UsageError (vendored by typer): unknown options, missing or malformed values."""


@contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    """A usage error becomes one line on stderr and exit code 2, like every bad input (the
    help shown for a bare `sabords` is left alone)."""
    try:
        yield
    except _USAGE_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            raise
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        fail(getattr(exc, "format_message", exc.__str__)() + hint)


class _Group(typer.core.TyperGroup):
    """The `sabords` group, with one-line usage errors for itself and every command."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with _one_line_usage_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage_errors():
            return super().invoke(ctx)


app = typer.Typer(
    name="sabords",
    cls=_Group,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

DOMAIN_ERRORS: tuple[type[Exception], ...] = (RulesError,)
"""Errors that are the user's input, not a bug: one line on stderr, exit code 2."""

EXIT_BAD_INPUT = 2

P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str) -> NoReturn:
    """Print `message` as one line on stderr and exit with code 2."""
    line = " ".join(message.split())
    typer.echo(f"sabords: error: {line}", err=True)
    raise typer.Exit(EXIT_BAD_INPUT)


@contextmanager
def domain_errors() -> Iterator[None]:
    """Turn each domain error raised inside into one line on stderr and exit code 2."""
    try:
        yield
    except DOMAIN_ERRORS as exc:
        fail(str(exc))


def command(name: str | None = None, **kwargs: Any) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Register a command on `app`, with domain errors turned into exit code 2."""

    def register(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def wrapper(*args: P.args, **kw: P.kwargs) -> R:
            with domain_errors():
                return func(*args, **kw)

        app.command(name, **kwargs)(wrapper)
        return wrapper

    return register


VariantOption = Annotated[
    list[str] | None,
    typer.Option(
        "--variant",
        metavar="NAME=VALUE",
        help=(
            "Switch a rules variant (repeatable): on/off switches, nine_of_a_kind=magic|set, "
            "target=N, ties=shared|trigger. Variants: " + ", ".join(VARIANT_NAMES) + "."
        ),
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object (with rules_hash) instead of text.")
]
TablesOption = Annotated[
    Path | None,
    typer.Option(
        "--tables",
        metavar="DIR",
        help=(
            "Read the policy tables from DIR (written by `sabords solve --out DIR`). Default: "
            "the repository's tables/ for the default rules; other variants are solved on "
            "demand and cached (SABORDS_CACHE_DIR, else ~/.cache/mille-sabords)."
        ),
    ),
]


def rules_from(variants: list[str] | None) -> Rules:
    """The rules object of the `--variant` options (defaults when none is given)."""
    return rules_with(variants or [])


def print_json(data: dict[str, Any]) -> None:
    """Print one JSON object on stdout (the `--json` convention)."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def describe_rules(rules: Rules) -> str:
    return f"{rules.describe()} (hash {rules.hash})"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"sabords {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Mille Sabords: exact scores and optimal play (RULES.md is the specification).

    Run `sabords COMMAND --help` for a command's options and examples.

    \b
    Notation, shared by every command:
      dice   one letter per die, k skull, m monkey, p parrot, s sword (or x), c coin,
             d diamond, any order and case ('kkmppscd'); or words, English, French,
             German ('skull monkey', 'tête singe', 'Totenkopf Affe'), with counts
             ('4 coin 3 sword diamond'). Output is always letters in the order k m p s c d.
      card   none chest captain sorceress coin diamond animals skull1 skull2 battle2
             battle3 battle4, or a rulebook name: pirate, gardienne, coffre, 'ile au
             tresor', piece, animaux, tete2, bateau3, 500, Wächterin, Schatzinsel...
    """


def main() -> None:
    """Entry point of the `sabords` console script and of `python -m solver`."""
    import os

    # numpy's OpenBLAS starts a thread pool when it is imported: about 60 ms of every cold
    # start (`scripts/bench.py`, advisor section), for nothing, since no command does dense
    # linear algebra. A value set by the user wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    app(prog_name="sabords")


# -- commands ----------------------------------------------------------------------------------


@command("score")
def score(
    card: Annotated[
        str,
        typer.Argument(
            metavar="CARD",
            help="The card: an id (captain, chest, battle3...) or a rulebook name.",
            show_default=False,
        ),
    ],
    dice: Annotated[
        list[str],
        typer.Argument(
            metavar="DICE",
            help="The 8 dice the turn ends with: letters ('kkmppscd') or words.",
            show_default=False,
        ),
    ],
    chest: Annotated[
        str | None,
        typer.Option(
            "--chest",
            metavar="DICE",
            help=(
                "Chest card only: the dice on the chest, i.e. the dice not rolled in the "
                "fatal roll. They still score when the turn busts. Must be among DICE."
            ),
        ),
    ] = None,
    first: Annotated[
        bool,
        typer.Option(
            "--first",
            help=(
                "DICE are the turn's first roll: 4+ skulls (not a battle card) go to Skull "
                "Island, and the Sorceress is unused. Without it DICE come after a reroll and "
                "4+ skulls are a bust like 3."
            ),
        ),
    ] = False,
    variant: VariantOption = None,
    as_json: JsonOption = False,
) -> None:
    """The points a turn is worth if it ends with these 8 dice.

    Alive dice (fewer than 3 skulls, the card's skulls included) are a stop and score their
    sets, coins and diamonds, full chest, captain doubling and battle bonus. 3+ skulls are a
    bust: 0, minus the bonus for a battle card, the chest's dice with the chest card
    (--chest). With --first, 4+ skulls are Skull Island: 0 for the player, and the note gives
    the exact distribution of the final skull count and the expected loss per opponent.

    \b
    Examples:
      sabords score none ccccsssd            # 200 + 400 + 100 + 100 + 500 = 1300
      sabords score pirate 3 monkey 3 sword 2 coin
      sabords score chest kkkcccdm --chest cccd
      sabords score captain kkkkmmpc --first
      sabords score coin cccccccc --variant nine_of_a_kind=set --json
    """
    from .notation import parse_card, parse_dice
    from .verdict import score_turn

    rules = rules_from(variant)
    the_card = parse_card(card)
    the_dice = parse_dice(" ".join(dice))
    the_chest = None if chest is None else parse_dice(chest, n=None)
    verdict = score_turn(the_card, the_dice, rules, chest=the_chest, first=first)
    if as_json:
        print_json(verdict.as_dict())
        return
    for line in _score_lines(verdict):
        typer.echo(line)


def _score_lines(verdict: "Verdict") -> Iterator[str]:
    """The text answer of `sabords score`."""
    from .scoring import Outcome

    v = verdict
    yield f"card     {v.card.id}"
    yield f"dice     {v.dice}" + ("  (first roll)" if v.first else "")
    if v.chest is not None:
        yield f"chest    {v.chest}"
    yield f"points   {v.points}"
    if v.outcome is Outcome.ALIVE:
        what = ["stop"]
        if v.full_chest:
            what.append("full chest")
        if v.battle_won is not None:
            what.append(f"battle {'won' if v.battle_won else 'lost'}")
        if v.card.doubles:
            what.append("doubled by the captain")
        yield f"outcome  {', '.join(what)}"
        if v.magic:
            yield "         PIRATE MAGIC: nine of a kind wins the game at once"
    elif v.outcome is Outcome.ISLAND and v.island is not None:
        island = v.island
        yield f"outcome  Skull Island ({v.skulls} skulls): nothing for the player"
        yield (
            f"island   each opponent loses {island.cost_per_skull} per skull; expected loss "
            f"{float(island.expected_deduction):.2f} (exactly {island.expected_deduction})"
        )
        yield "         final skulls   probability              each opponent loses"
        for skulls, p in island.distribution:
            exact = f"{float(p):.6f} ({p})"
            yield f"         {skulls:<14} {exact:<24} {island.cost_per_skull * skulls}"
    else:
        kind = "rescue position ended here" if v.outcome is Outcome.RESCUE else "bust"
        extra = ""
        if v.battle_won is False:
            extra = f": battle lost, minus {v.card.battle_bonus}"
        elif v.card.chest and v.chest is not None:
            extra = ": the dice on the chest still score"
        yield f"outcome  {kind} ({v.skulls} skulls){extra}"
        if v.outcome is Outcome.RESCUE:
            yield "note     the turn is not over: the Sorceress must reroll a skull die"
    if v.island_if_first:
        yield "note     on a first roll these dice go to Skull Island instead (add --first)"
    if v.rescue_if_unused:
        yield (
            "note     if the Sorceress is still unused the turn is not over: she must "
            "reroll a skull die"
        )
    if v.chest is not None and v.outcome is Outcome.ALIVE:
        yield "note     the chest only matters on a bust: a stop scores all 8 dice"
    yield f"rules    {describe_rules(v.rules)}"


# -- turn solver: `solve` and `ev` ------------------------------------------------------------

CardsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--card",
        metavar="CARD",
        help="A card (repeatable): an id (captain, battle3...) or a rulebook name.",
    ),
]


def _card_ids(cards: list[str]) -> list[str]:
    """The ids of the named cards, in the given order, each once."""
    from .notation import parse_card

    return list(dict.fromkeys(parse_card(c).id for c in cards))


@command("solve")
def solve(
    card: CardsOption = None,
    all_cards: Annotated[bool, typer.Option("--all", help="Solve all 12 cards.")] = False,
    variant: VariantOption = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "--tables",
            metavar="DIR",
            help=(
                "Write the tables into DIR. Default: the repository's tables/ for the "
                "default rules, the cache directory for other variants."
            ),
        ),
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", metavar="N", help="Solve N cards at once (joblib).")
    ] = 1,
) -> None:
    """Solve turns for expected points and write their policy tables (one file per card).

    Each table holds every position's value, stop value, best move and the value of every
    keep, certified to 1e-9 points, with a header naming the rules (and their hash) it was
    made for. The files are the same bit for bit on every run and whatever N.

    \b
    Examples:
      sabords solve --all --out tables/          # what `make tables` runs
      sabords solve --card captain --card sorceress --out /tmp/t
      sabords solve --all --variant battle_swords_fill_chest=off --jobs 2
    """

    from .rules import CARD_IDS
    from .tables import build_tables, default_dir, table_path, write_table

    rules = rules_from(variant)
    if all_cards and card:
        fail("give either --card CARD... or --all, not both")
    if not all_cards and not card:
        fail("name the cards to solve with --card CARD (repeatable), or use --all")
    if jobs < 1:
        fail(f"--jobs takes a number of workers of at least 1, not {jobs}")
    cards = list(CARD_IDS) if all_cards else _card_ids(card or [])
    directory = out if out is not None else default_dir(rules)

    def cannot_write(exc: OSError) -> NoReturn:
        fail(f"cannot write the tables into {str(directory)!r}: {exc.strerror}")

    try:  # before the progress bar, so that a bad directory is one line on stderr
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        cannot_write(exc)
    lines = []
    with typer.progressbar(
        length=len(cards), label="solving", file=sys.stderr, show_pos=True
    ) as bar:
        for table in build_tables(cards, rules, n_jobs=jobs):
            path = table_path(directory, table.card)
            before = path.read_bytes() if path.is_file() else None
            try:
                write_table(table, directory)
                after = path.read_bytes()
            except OSError as exc:
                cannot_write(exc)
            change = "new" if before is None else "unchanged" if before == after else "changed"
            sol = table.solution
            lines.append(
                f"{sol.card:<10} ev {sol.turn_value[0]:8.2f}  sweeps {sol.sweeps:3d}  "
                f"bound {sol.bound:.1e}  {path} ({change})"
            )
            bar.update(1)
    for line in lines:
        typer.echo(line)
    typer.echo(f"rules  {describe_rules(rules.turn_rules())}")


@command("ev")
def ev(
    card: CardsOption = None,
    variant: VariantOption = None,
    tables: TablesOption = None,
    as_json: JsonOption = False,
) -> None:
    """Optimal expected points of a turn per card, with its bust and Skull Island odds.

    For each card (all 12 by default): the expected points of a turn played to maximise
    them, the probability that it busts, that it goes to Skull Island, and the points each
    opponent loses to it on average (the island's deduction); then the average over the
    35-card deck (`none` is not in the deck). Values are exact to the table's certified
    bound (1e-9).

    \b
    Examples:
      sabords ev
      sabords ev --card captain --card sorceress
      sabords ev --variant battle_swords_fill_chest=off --json
    """
    from .rules import CARD_IDS
    from .stats import STAT_NAMES, deck_average
    from .tables import turn_table

    rules = rules_from(variant)
    chosen = _card_ids(card) if card else list(CARD_IDS)
    # The deck average needs every card, whichever are shown.
    loaded = {c: turn_table(c, rules, tables) for c in CARD_IDS}
    stats = {c: t.stats for c, t in loaded.items()}
    bound = max(max(t.solution.bound, t.stats.bound) for t in loaded.values())
    deck = {name: deck_average({c: getattr(s, name) for c, s in stats.items()})
            for name in STAT_NAMES}
    if as_json:
        print_json({
            "rules_hash": rules.hash,
            "variants": rules.as_dict(),
            "cards": {c: stats[c].as_dict() for c in chosen},
            "deck_ev": deck["ev"],
        })
        return
    typer.echo(
        f"{'card':<14}{'expected points':>16}{'P(bust)':>10}{'P(Skull Island)':>17}"
        f"{'island deduction':>18}"
    )

    def row(name: str, values: dict[str, float]) -> str:
        return (
            f"{name:<14}{values['ev']:>16.2f}{values['p_bust']:>10.2%}"
            f"{values['p_island']:>17.2%}{values['island_deduction']:>18.2f}"
        )

    for c in chosen:
        typer.echo(row(c, stats[c].as_dict()))
    typer.echo(row("deck average", deck))
    typer.echo(
        "island deduction: points each opponent loses to this turn's Skull Island, on average"
    )
    typer.echo("deck average: over the 35 cards of the deck, weighted by their counts")
    typer.echo(f"exact: every value is certified to within {bound:.1e} of the true one")
    typer.echo(f"rules  {describe_rules(rules)}")


# -- the advisor: `advise` and `turn` ---------------------------------------------------------

NeedOption = Annotated[
    int | None,
    typer.Option(
        "--need",
        metavar="N",
        help=(
            "Maximise the probability that the turn ends with at least N points (a final "
            "turn, or the points still missing) instead of the expected points. N is a "
            "non-negative multiple of 100."
        ),
    ),
]
SHOWN_OPTIONS = 15
MeOption = Annotated[
    int | None,
    typer.Option("--me", metavar="POINTS",
                 help="Your total (play to win the game: with --opp, objective 'win')."),
]
OppOption = Annotated[
    int | None, typer.Option("--opp", metavar="POINTS", help="The opponent's total.")
]
FinalOption = Annotated[
    bool,
    typer.Option("--final", help="Your last turn: the opponent has reached the target "
                 "(--opp at or above it); beat their total."),
]
"""Options shown by the text view of `advise` when --top is not given."""


@command("advise")
def advise(
    card: Annotated[
        str,
        typer.Argument(
            metavar="CARD",
            help="The card: an id (captain, chest, battle3...) or a rulebook name.",
            show_default=False,
        ),
    ],
    dice: Annotated[
        list[str],
        typer.Argument(
            metavar="DICE",
            help="The 8 dice showing: letters ('kkmppscd') or words.",
            show_default=False,
        ),
    ],
    sorceress_used: Annotated[
        bool,
        typer.Option(
            "--sorceress-used", help="Sorceress card only: her reroll has been used this turn."
        ),
    ] = False,
    need: NeedOption = None,
    first: Annotated[
        bool,
        typer.Option(
            "--first",
            help=(
                "DICE are the turn's first roll: 4+ skulls (not a battle card) are Skull "
                "Island. Without it 4+ skulls are a bust (the answer says when they would be "
                "Skull Island on a first roll)."
            ),
        ),
    ] = False,
    chest: Annotated[
        str | None,
        typer.Option(
            "--chest",
            metavar="DICE",
            help=(
                "Chest card, on a bust: the dice on the chest (the dice not rolled in the "
                "last roll), which still score."
            ),
        ),
    ] = None,
    variant: VariantOption = None,
    top: Annotated[
        int | None,
        typer.Option(
            "--top",
            metavar="K",
            help=(
                f"Show the K best options (0: all). Default: all with --json, the first "
                f"{SHOWN_OPTIONS} in the text view."
            ),
        ),
    ] = None,
    tables: TablesOption = None,
    me: MeOption = None,
    opp: OppOption = None,
    final: FinalOption = False,
    as_json: JsonOption = False,
) -> None:
    """What to do with the dice showing: every legal option, best first.

    Lists stopping and every distinct legal reroll (by the dice kept; with the Sorceress
    unused, also the rerolls that take one skull die), each with its value (the expected
    points of the turn, or with --need N the probability of ending it with at least N), the
    probability that this very roll busts and the regret against the best. Options within
    1e-9 of the best are all marked best. The first line is the recommendation.

    Special positions: a bust (3+ skulls: nothing to decide), a rescue (exactly 3 skulls
    with the Sorceress unused: her moves only), Skull Island (--first with 4+ skulls: the
    expected loss of each opponent). With the chest card, the kept dice go on the chest.

    \b
    Examples:
      sabords advise chest kkmpsssc
      sabords advise none ccccmmpk --need 1000
      sabords advise sorceress kkkmmpsc
      sabords advise sorceress kkmmppsc --sorceress-used --top 5
      sabords advise captain kkkkmmpc --first
      sabords advise chest kkkcccdm --chest cccd
      sabords advise pirate 3 monkey 3 sword 2 coin --json
      sabords advise none mmmpppsc --me 2000 --opp 5500      # play to win the game
      sabords advise captain ccmmmspk --me 4000 --opp 6200 --final
    """
    from .advisor import advise as advise_position
    from .notation import parse_card, parse_dice

    rules = rules_from(variant)
    the_card = parse_card(card)
    the_dice = parse_dice(" ".join(dice))
    the_chest = None if chest is None else parse_dice(chest, n=None)
    if sorceress_used and not the_card.sorceress:
        fail(f"--sorceress-used applies to the sorceress card only, not {the_card.id!r}")
    if need is not None and (need < 0 or need % 100):
        fail(f"--need takes a non-negative multiple of 100, not {need}")
    if top is not None and top < 0:
        fail(f"--top takes a number of options (0: all of them), not {top}")
    if me is not None or opp is not None or final:
        if me is None or opp is None:
            fail("--me and --opp go together (both totals), --final with them")
        if need is not None:
            fail("--need and --me/--opp are two objectives: give one of them")
        _advise_win(the_card, the_dice, rules, me, opp, final, sorceress_used=sorceress_used,
                    chest=the_chest, first=first, tables=tables, top=top, as_json=as_json)
        return
    advice = advise_position(
        the_card, the_dice, rules, sorceress_used=sorceress_used, need=need, chest=the_chest,
        first=first, tables_dir=tables,
    )
    if as_json:
        data = advice.as_dict()
        if top:
            data["options"] = data["options"][:top]
        print_json(data)
        return
    shown = SHOWN_OPTIONS if top is None else (top or len(advice.options))
    for line in _advice_lines(advice, shown):
        typer.echo(line)


def _advice_lines(advice: "Advice", shown: int) -> Iterator[str]:
    """The text answer of `sabords advise`: the sentence, notes, the table of options."""
    from .scoring import Outcome

    a = advice
    yield a.recommendation
    for note in a.notes:
        yield f"  {note}"
    yield ""
    yield f"card      {a.card.id}"
    yield f"dice      {a.dice}" + ("  (first roll)" if a.first else "") + (
        "  (Sorceress used)" if a.sorceress_used else "")
    if a.chest is not None:
        yield f"chest     {a.chest or '-'}"
    objective = f"P(at least {a.need} points)"
    yield f"position  {a.kind.value}" + (
        f": {len(a.options)} legal options" if a.options else ": nothing to decide")
    yield f"value     {_value_text(a, a.value)}" + ("" if a.need is None else f" ({objective})")
    if a.kind is Outcome.ISLAND and a.island is not None:
        island = a.island
        yield (f"island    each opponent loses {island.cost_per_skull} per skull; expected "
               f"{float(island.expected_deduction):.2f} (exactly {island.expected_deduction})")
        yield "          final skulls   probability              each opponent loses"
        for skulls, p in island.distribution:
            exact = f"{float(p):.6f} ({p})"
            yield f"          {skulls:<14} {exact:<24} {island.cost_per_skull * skulls}"
    if a.options:
        column = "expected" if a.need is None else f"P(>={a.need})"
        yield ""
        yield f"{'#':>3}  {'move':<7} {'keep':<9} {'reroll':<9} {column:>12} {'bust risk':>10}" \
              f" {'regret':>10}"
        for rank, o in enumerate(a.options[:shown], 1):
            yield (
                f"{rank:>3}  {o.action:<7} {str(o.keep) or '-':<9} {str(o.reroll) or '-':<9} "
                f"{_value_text(a, o.value, unit=False):>12} {100 * o.p_bust:>8.1f} % "
                f"{_value_text(a, o.regret, unit=False):>10}" + ("  best" if o.best else "")
            )
        left = len(a.options) - min(shown, len(a.options))
        if left:
            yield f"({left} more options left out: --top K shows K, --top 0 all of them)"
    yield f"rules     {describe_rules(a.rules)}"


def _value_text(advice: "Advice", value: float, *, unit: bool = True) -> str:
    if advice.need is None:
        return f"{value:.2f}" + (" expected points" if unit else "")
    return f"{100 * value:.2f} %"


@command("turn")
def turn(
    card: Annotated[
        str,
        typer.Argument(
            metavar="CARD",
            help="The card drawn: an id (captain, chest, battle3...) or a rulebook name.",
            show_default=False,
        ),
    ],
    need: NeedOption = None,
    variant: VariantOption = None,
    tables: TablesOption = None,
) -> None:
    """Play a whole turn with advice: type the dice as they fall, roll after roll.

    After each roll the best move is shown with the next best ones. Answer with Enter to
    follow the advice, 'stop', the dice you keep ('sssc', or 'keep sssc'), or the dice you
    reroll ('reroll mp'; a 'k' in it uses the Sorceress); then type the 8 dice showing after
    the reroll. The kept dice, the Sorceress and the chest are tracked until the turn ends,
    with its points. Bad input is explained and asked again; the input ending mid-turn is an
    error (exit code 2). Works with piped input.

    \b
    Examples:
      sabords turn captain
      printf 'kkmpsssc\\n\\nkksssscc\\nstop\\n' | sabords turn chest
      sabords turn sorceress --need 1500
    """
    from .advisor import Advice, advise, check_next_roll, chosen_option, solution_for
    from .dice import Dice
    from .notation import parse_card, parse_dice
    from .scoring import Outcome

    rules = rules_from(variant)
    the_card = parse_card(card)
    if need is not None and (need < 0 or need % 100):
        fail(f"--need takes a non-negative multiple of 100, not {need}")
    stdin: TextIO = sys.stdin  # the CliRunner swaps sys.stdin for its input
    echo_input = not stdin.isatty()

    def ask(prompt: str) -> str:
        typer.echo(prompt, nl=False)
        line = stdin.readline()
        if not line:
            typer.echo("")
            fail("the input ended in the middle of the turn")
        if echo_input:
            typer.echo(line.rstrip("\n"))
        return line.strip()

    def ask_dice(prompt: str, check: Callable[[Any], None] | None = None) -> Any:
        while True:
            text = ask(prompt)
            try:
                dice = parse_dice(text)
                if check is not None:
                    check(dice)
                return dice
            except RulesError as exc:
                typer.echo(f"  ! {exc}", err=True)

    objective = "expected points" if need is None else f"the chance of at least {need} points"
    typer.echo(f"Turn with the {the_card.id} card, playing for {objective} "
               f"(rules: {describe_rules(rules)}).")
    typer.echo("Type the dice as they fall: letters k m p s c d (or words), one roll a line.")
    solution = solution_for(the_card, rules, need, tables_dir=tables)
    sorceress_used, chest, first = False, None, True
    dice = ask_dice("Roll 1, the 8 dice showing: ")
    roll = 1
    while True:
        advice: Advice = advise(the_card, dice, rules, sorceress_used=sorceress_used,
                                need=need, chest=chest, first=first, solution=solution)
        typer.echo(f"  {advice.recommendation}")
        for note in advice.notes:
            if "--" not in note:  # the notes about command options are for `advise`
                typer.echo(f"  {note}")
        if advice.kind in (Outcome.BUST, Outcome.ISLAND):
            break
        for rank, o in enumerate(advice.options[1:4], 2):
            move = "stop" if o.action == "stop" else (
                f"keep {o.keep or '-'}, reroll {o.reroll}")
            typer.echo(f"    {rank}. {move}: {_value_text(advice, o.value)}, "
                       f"bust {100 * o.p_bust:.1f} %")
        while True:
            text = ask("Your move (Enter: as advised; stop; the dice you keep; reroll ...): ")
            try:
                option = chosen_option(advice, text)
                break
            except RulesError as exc:
                typer.echo(f"  ! {exc}", err=True)
        if option.action == "stop":
            typer.echo(f"Turn over: you stop with {dice}: {option.points} points.")
            return
        if option.sorceress:
            sorceress_used = True
        if the_card.chest:
            chest = option.keep
        roll += 1
        stays = option.keep + Dice.of((dice.skulls - option.sorceress, 0, 0, 0, 0, 0))
        previous = advice
        dice = ask_dice(
            f"Roll {roll} (rolled {option.reroll}; {stays or 'nothing'} stayed), the 8 dice "
            "showing: ",
            lambda after: check_next_roll(previous, option, after),  # noqa: B023
        )
        first = False
    if advice.kind is Outcome.ISLAND:
        typer.echo("Turn over: 0 points for you; roll the island out, then each opponent "
                   "loses the final skulls' deduction.")
    else:
        typer.echo(f"Turn over: {advice.points} points.")


# -- Monte-Carlo play: `simulate` (solver/simulate.py) -----------------------------------------

PROGRESS_TURNS = 20_000
"""Runs of at least this many turns show a progress bar on stderr."""


@command("simulate")
def simulate(
    card: Annotated[
        str | None,
        typer.Option("--card", metavar="CARD", help="Play this card every turn (id or name)."),
    ] = None,
    deck: Annotated[
        bool,
        typer.Option("--deck", help="Draw each turn's card from the 35-card deck (the default)."),
    ] = False,
    turns: Annotated[
        int, typer.Option("--turns", metavar="N", help="Number of turns to play.")
    ] = 10_000,
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            metavar="NAME",
            help=(
                "optimal (expected points), first-roll, two-skulls, greedy, threshold (the "
                "card's best T) or threshold=T. See `solver/policies.py` for the definitions."
            ),
        ),
    ] = "optimal",
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", metavar="S", help="Random seed (default: a fresh one, printed)."
        ),
    ] = None,
    variant: VariantOption = None,
    as_json: JsonOption = False,
) -> None:
    """Play turns with random dice under a policy and compare with its exact value.

    Prints the mean points, their standard error, the bust and Skull Island rates and the
    z-score of the mean against the exact expected points of the same policy (exact policy
    evaluation); |z| above 3 or so would be a surprise. The same seed gives the same turns.

    \b
    Examples:
      sabords simulate --card captain --turns 100000 --seed 1
      sabords simulate --deck --policy two-skulls --seed 7
      sabords simulate --card battle3 --policy threshold=800 --json
    """
    import random

    from .notation import parse_card
    from .simulate import simulate as run_simulation

    rules = rules_from(variant)
    if card is not None and deck:
        fail("give either --card CARD or --deck, not both")
    if turns < 1:
        fail(f"--turns takes a number of turns of at least 1, not {turns}")
    the_card = None if card is None else parse_card(card)
    the_seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    if turns >= PROGRESS_TURNS:
        with typer.progressbar(length=turns, label="playing", file=sys.stderr,
                               show_pos=True) as bar:
            done = [0]

            def advance(n: int) -> None:
                bar.update(n - done[0])
                done[0] = n

            result = run_simulation(the_card, rules, policy, turns=turns, seed=the_seed,
                                    progress=advance)
    else:
        result = run_simulation(the_card, rules, policy, turns=turns, seed=the_seed)
    if as_json:
        print_json(result.as_dict())
        return
    r = result
    typer.echo(f"card        {r.card if r.card is not None else 'deck (35 cards)'}")
    typer.echo(f"policy      {r.policy}")
    typer.echo(f"turns       {r.turns}  (seed {r.seed})")
    typer.echo(f"mean        {r.mean:.2f} points  (standard error {r.se:.2f}, sd {r.sd:.1f})")
    typer.echo(f"exact       {r.exact:.2f} points  (z = {r.z:+.2f})")
    typer.echo(f"bust        {100 * r.bust_rate:.2f} %  (exact {100 * r.exact_bust_rate:.2f} %)")
    typer.echo(
        f"island      {100 * r.island_rate:.2f} %  (exact {100 * r.exact_island_rate:.2f} %)"
    )
    if r.magic_rate:
        typer.echo(f"magic       {100 * r.magic_rate:.3f} %")
    typer.echo(f"rolls       {r.mean_rolls:.3f} per turn  (exact {r.exact_rolls:.3f})")
    typer.echo(f"rules       {describe_rules(rules)}")


# -- playing to win: `advise --me/--opp`, `winprob`, `solve-game`, `game` (solver/game.py) -------

GameTablesOption = Annotated[
    Path | None,
    typer.Option(
        "--game-tables",
        metavar="DIR",
        help=(
            "Read the two-player game table from DIR (written by `sabords solve-game --out "
            "DIR`). Default: the repository's tables/ for the default rules; other variants "
            "(target, ties...) are solved on first use (about a minute) and cached."
        ),
    ),
]


def _game_progress(label: str) -> Callable[[str, int, float], None]:
    """A stderr progress report of the sweeps of a game solve: one line redrawn on a
    terminal, a line every 25 sweeps into a log."""
    live = sys.stderr.isatty()

    def report(phase: str, sweep: int, residual: float) -> None:
        text = f"{label}: {phase} sweep {sweep}, residual {residual:.1e}"
        if live:
            sys.stderr.write(f"\r{text}   ")
        elif sweep % 25 == 0:
            sys.stderr.write(f"{text}\n")
        sys.stderr.flush()

    return report


def _end_progress() -> None:
    """End the redrawn progress line on a terminal (a log already has whole lines)."""
    if sys.stderr.isatty():
        sys.stderr.write("\n")


def _game_tables(rules: Rules, directory: Path | None) -> "GameSolution":

    from .tables import game_tables

    sol = game_tables(rules, directory, progress=_game_progress("solving the game tables"))
    if sol.seconds:  # solved now, not read
        _end_progress()
    return sol


def _advise_win(card: "Card", dice: "Dice", rules: Rules, me: int, opp: int, final: bool, *,
                sorceress_used: bool, chest: "Dice | None", first: bool, tables: Path | None,
                top: int | None, as_json: bool) -> None:
    """`advise --me/--opp`: every option with its probability of winning the game."""
    from .advisor import WIN
    from .advisor import advise as advise_position
    from .engine import solve_turn
    from .game import check_totals, win_objective

    check_totals(rules, me, opp, final=final)
    sol = _game_tables(rules, None)
    objective = win_objective(sol, me, opp, final=final)
    solution = solve_turn(card, rules.turn_rules(), objective)
    common: dict[str, Any] = {"sorceress_used": sorceress_used, "chest": chest, "first": first}
    advice = advise_position(card, dice, rules, solution=solution, objective=objective,
                             objective_name=WIN, **common)
    points = advise_position(card, dice, rules, tables_dir=tables, **common)

    def key(o: Any) -> tuple[str, str, str, bool]:
        return (o.action, str(o.keep), str(o.reroll), o.sorceress)

    expected = {key(o): o.value for o in points.options}
    if as_json:
        data = advice.as_dict()
        data.update({"me": me, "opp": opp, "final": final, "target": rules.target,
                     "points_best": [o.as_dict() for o in points.options if o.best][:1]})
        for entry, o in zip(data["options"], advice.options, strict=True):
            entry["expected_points"] = expected.get(key(o))
        if top:
            data["options"] = data["options"][:top]
        print_json(data)
        return
    typer.echo(advice.recommendation)
    for note in advice.notes:
        typer.echo(f"  {note}")
    if points.options and advice.options and key(points.options[0]) != key(advice.options[0]):
        typer.echo(f"  For expected points the best move would differ: "
                   f"{points.recommendation}")
    typer.echo("")
    where = "final turn, the opponent reached the target" if final else "normal play"
    typer.echo(f"score     you {me}, opponent {opp}, target {rules.target} ({where})")
    typer.echo(f"card      {advice.card.id}")
    typer.echo(f"dice      {advice.dice}" + ("  (first roll)" if first else ""))
    typer.echo(f"value     {100 * advice.value:.2f} % chance to win the game")
    if advice.options:
        shown = SHOWN_OPTIONS if top is None else (top or len(advice.options))
        typer.echo("")
        typer.echo(f"{'#':>3}  {'move':<7} {'keep':<9} {'reroll':<9} {'P(win)':>9} "
                   f"{'expected':>9} {'bust risk':>10}")
        for rank, o in enumerate(advice.options[:shown], 1):
            ev = expected.get(key(o))
            typer.echo(
                f"{rank:>3}  {o.action:<7} {str(o.keep) or '-':<9} {str(o.reroll) or '-':<9} "
                f"{100 * o.value:>7.2f} % {'' if ev is None else f'{ev:9.1f}':>9} "
                f"{100 * o.p_bust:>8.1f} %" + ("  best" if o.best else "")
            )
        left = len(advice.options) - min(shown, len(advice.options))
        if left:
            typer.echo(f"({left} more options left out: --top K shows K, --top 0 all of them)")
    typer.echo(f"rules     {describe_rules(rules)}")


@command("winprob")
def winprob(
    me: Annotated[int, typer.Option("--me", metavar="POINTS", help="Your total.")],
    opp: Annotated[int, typer.Option("--opp", metavar="POINTS",
                                     help="The opponent's total.")],
    final: FinalOption = False,
    variant: VariantOption = None,
    game_tables: GameTablesOption = None,
    as_json: JsonOption = False,
) -> None:
    """Your probability of winning the game, about to draw a card, with totals ME and OPP.

    Both players play to win (the optimum of the two-player game), cards drawn independently
    with the deck's frequencies; also the probability after drawing each card.

    \b
    Examples:
      sabords winprob --me 0 --opp 0                 # the first player's chance
      sabords winprob --me 2000 --opp 5500 --json
      sabords winprob --me 4000 --opp 6200 --final   # your last turn
      sabords winprob --me 0 --opp 0 --variant target=5000
    """
    from .game import check_totals, win_probability

    rules = rules_from(variant)
    check_totals(rules, me, opp, final=final)
    sol = _game_tables(rules, game_tables)
    win, cards = win_probability(sol, me, opp, final=final)
    if as_json:
        print_json({"me": me, "target": rules.target, "opp": opp, "rules_hash": rules.hash,
                    "win": win, "cards": cards, "final": final})
        return
    what = "your final turn" if final else "about to draw"
    typer.echo(f"you {me}, opponent {opp}, target {rules.target} ({what})")
    typer.echo(f"P(win)    {100 * win:.2f} %")
    typer.echo("after drawing:")
    for card, p in sorted(cards.items(), key=lambda kv: -kv[1]):
        typer.echo(f"  {card:<10} {100 * p:6.2f} %")
    typer.echo(f"rules     {describe_rules(rules)}")


@command("solve-game")
def solve_game_command(
    variant: VariantOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help=(
            "Write the game table into DIR. Default: the repository's tables/ for the default "
            "rules, the cache directory for other variants.")),
    ] = None,
) -> None:
    """Solve the two-player game (win probabilities at every score) and write its table.

    The table holds W(me, opp) for every pair of totals below the target, the sudden-death
    values, the final-turn table by deficit and each card's value; its header names the rules
    (target and ties included) and their hash. The same rules give the same bytes. Each phase
    prints its sweeps, last residual, estimated error and certified bound (a proven bound on
    every value, or none when the verified box was not found; see solver/game.py).

    \b
    Examples:
      sabords solve-game --out tables/               # what `make tables` runs
      sabords solve-game --variant target=5000 --variant ties=trigger
    """

    from .game import solve_game
    from .tables import game_default_dir, game_table_path, write_game

    rules = rules_from(variant)
    directory = out if out is not None else game_default_dir(rules)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot write the game table into {str(directory)!r}: {exc.strerror}")
    sol = solve_game(rules, progress=_game_progress("solving"))
    _end_progress()
    path = game_table_path(directory)
    before = path.read_bytes() if path.is_file() else None
    write_game(sol, directory)
    change = ("new" if before is None else
              "unchanged" if before == path.read_bytes() else "changed")
    for phase in ("final", "sudden", "normal"):
        certified = sol.certified_bound.get(phase, float("inf"))
        typer.echo(f"{phase:<7} sweeps {sol.sweeps[phase]:4d}  residual "
                   f"{sol.residual[phase]:.1e}"
                   + (f"  certified bound {certified:.1e}" if certified < float("inf")
                      else "  certified bound: none (the progress bound failed)"))
    typer.echo(f"P(first player wins) {sol.win[0, 0]:.6f}  ({sol.seconds:.1f} s)")
    typer.echo(f"table   {path} ({change})")
    typer.echo(f"rules   {describe_rules(rules)}")


@command("game")
def game_command(
    games: Annotated[int, typer.Option("--games", metavar="N",
                                       help="Number of games (seats swap every game).")] = 1000,
    policies: Annotated[str, typer.Option(
        "--policies", metavar="A,B",
        help="Two policies: win, points, first-roll, two-skulls, greedy, threshold[=T].")
    ] = "win,points",
    seed: Annotated[int | None, typer.Option("--seed", metavar="S",
                                             help="Random seed (reproducible games).")] = None,
    variant: VariantOption = None,
    game_tables: GameTablesOption = None,
    as_json: JsonOption = False,
) -> None:
    """Play whole two-player games with real random dice between two policies.

    Each policy's win rate (a shared tie counts 1/2) with a 95 % confidence interval, overall
    and by seat (seat 1 moves first). The win policy needs the game table; it solves each
    card's turns for all scores when first needed (a few seconds a card).

    \b
    Examples:
      sabords game --games 2000 --seed 1
      sabords game --policies win,threshold=600 --variant target=3000 --json
    """
    import random

    from .duel import WIN, check_policy_name, duel

    rules = rules_from(variant)
    names = tuple(p.strip() for p in policies.split(","))
    if len(names) != 2 or not all(names):
        fail(f"--policies takes two policy names separated by a comma, not {policies!r}")
    for name in names:
        check_policy_name(name)
    if games < 1:
        fail(f"--games takes a number of games of at least 1, not {games}")
    the_seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    sol = _game_tables(rules, game_tables) if WIN in names else None
    with typer.progressbar(length=games, label="playing", file=sys.stderr,
                           show_pos=True) as bar:
        done = [0]

        def advance(n: int) -> None:
            bar.update(n - done[0])
            done[0] = n

        result = duel((names[0], names[1]), rules, games=games, seed=the_seed, sol=sol,
                      progress=advance)
    if as_json:
        print_json(result.as_dict())
        return
    typer.echo(f"{games} games, seed {the_seed}, target {rules.target}, "
               f"{result.mean_turns:.1f} turns a game on average")
    typer.echo(f"{'policy':<14} {'seat':<6} {'games':>7} {'win rate':>9}  95 % interval")
    for name in dict.fromkeys(names):
        for row in (result.overall(name), *[s for s in result.seats if s.policy == name]):
            lo, hi = row.interval
            seat = "both" if row.seat == 0 else str(row.seat)
            typer.echo(f"{name:<14} {seat:<6} {row.games:>7} {100 * row.rate:>8.2f} %  "
                       f"[{100 * lo:.2f}, {100 * hi:.2f}]")
    typer.echo(f"rules  {describe_rules(rules)}")

"""The errors of the API in the player's language: English or French, from the error's data.

An error answer is data (its ``kind``, the input it concerns, its ``param``, and its
``values``: :meth:`solver.errors.SabordsError.as_data`) and a sentence. The sentence is in the
language the request asks for (:func:`language`, from ``Accept-Language``: ``fr`` or ``en``,
English otherwise):

- in English, the library's own sentence (in the game's terms, never a command-line flag), or
  the web's for what only the web refuses (a query that cannot be read, a busy server);
- in French, the sentence of the error's kind (:data:`FRENCH`), worded from its values and the
  French name of its input (:data:`FRENCH_INPUTS`); an error of a kind without values of its
  own (a notation error, "these dice cannot be read") is worded by its input.

French typography: a non-breaking space (U+00A0) before ``:``, ``;``, ``?`` and ``!``, and
quotes « » with non-breaking spaces inside (:func:`french`).

Pure Python; nothing here reads a rule (the values come with the error).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

LANGUAGES = ("en", "fr")
NBSP = "\u00a0"

FRENCH_INPUTS: dict[str, str] = {
    "card": "la carte", "dice": "les dés", "chest": "les dés de l'île au trésor",
    "sorceress_used": "la Gardienne utilisée", "first": "le premier lancer",
    "need": "les points nécessaires", "me": "votre total", "opp": "le total de l'adversaire",
    "final": "le dernier tour", "top": "le nombre d'options montrées",
    "variant": "les variantes", "notation": "la notation", "exact": "les valeurs exactes",
    "entry": "les étapes du tour", "total": "le total d'un joueur",
    "mover": "le joueur dont c'est le tour", "points": "les points du tour",
    "deduction": "la perte de l'île de la Tête de Mort",
    "trigger": "le joueur qui a atteint l'objectif le premier", "sudden": "la mort subite",
    "magic": "la magie pirate", "move": "le coup", "roll": "le lancer",
    "totals": "les totaux", "objective": "l'objectif", "tables": "les tables",
    "record": "l'enregistrement de la partie", "game": "la partie choisie",
}
"""Each input's French name (the English one is :attr:`solver.advice.inputs.Input.words`)."""

FRENCH_VARIANTS: dict[str, str] = {
    "keep_one": "au moins un dé gardé", "sorceress_rescue": "le sauvetage de la Gardienne",
    "sorceress_alone": "la Gardienne seule", "card_skulls_block_chest":
    "les têtes de mort d'une carte et le coffre plein", "battle_swords_fill_chest":
    "les sabres d'une bataille et le coffre plein", "nine_of_a_kind": "neuf identiques",
    "target": "l'objectif", "ties": "les égalités",
}


def language(accept: str | None) -> str:
    """The language of an ``Accept-Language`` header: the first of ``fr`` and ``en`` by
    preference (quality, then order), English when it names neither."""
    best: tuple[float, int, str] | None = None
    for index, part in enumerate((accept or "").split(",")):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        if primary not in LANGUAGES:
            continue
        quality = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                quality = 0.0
        if quality <= 0:
            continue
        key = (-quality, index, primary)
        if best is None or key < best:
            best = key
    return best[2] if best is not None else "en"


def french(text: str) -> str:
    """French typography: a non-breaking space before ``:``, ``;``, ``?``, ``!`` (and inside
    « »), never an ordinary one."""
    text = re.sub(r"\s*([:;?!])(?=\s|$)", NBSP + r"\1", text)
    return text.replace("« ", "«" + NBSP).replace(" »", NBSP + "»")


def _q(value: Any) -> str:
    return f"« {value} »"


def _unread(v: Mapping[str, Any]) -> str:
    """Why dice do not read, as the English says it: the unknown word (and the name it is
    close to), or the character that is no die letter and where it stands."""
    if v.get("word") is not None:
        guess = v.get("guess")
        return (f"mot inconnu {_q(v['word'])}"
                + (f" (vouliez-vous dire {_q(guess)} ?)" if guess else ""))
    if v.get("character") is not None:
        at = v.get("position")
        return (f"{_q(v.get('dice'))} ne se lit pas : {_q(v['character'])}"
                + (f" (le {at}{'er' if at == 1 else 'e'} caractère)" if at else "")
                + " n'est pas une lettre de dé")
    return "ces dés ne se lisent pas"


def _list(items: Any, last: str = "ou") -> str:
    items = [str(x) for x in (items or [])]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {last} {items[-1]}"


def _input(param: str | None) -> str:
    return FRENCH_INPUTS.get(param or "", "la demande")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _variant(v: Mapping[str, Any]) -> str:
    name = str(v.get("variant", ""))
    return FRENCH_VARIANTS.get(name, name)


def _dice(count: Any) -> str:
    """``1 dé``, ``0 dé``, ``3 dés`` (French: the plural from 2)."""
    return f"{count} dé" if count in (0, 1) else f"{count} dés"


def _and(items: Any, word: str = "et") -> str:
    """``4900 et 1000``, ``1, 2 et 3``: a list as a French sentence says it."""
    parts = [str(x) for x in items] if isinstance(items, list | tuple) else [str(items)]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} {word} {parts[-1]}"


def _whose(v: Mapping[str, Any], p: str | None) -> str:
    """Whose total an error is about: the player its values name (``player``, numbered from
    the one asking, 1), else its input's name."""
    player = v.get("player")
    if not isinstance(player, int) or isinstance(player, bool):
        return _input(p)
    if player == 1:
        return "votre total"
    return ("le total de l'adversaire" if v.get("players") == 2 or isinstance(v.get("opp"), int)
            else f"le total du joueur {player}")


def _islands(n: Any) -> str:
    return ("aucun ne pouvait" if n == 0 else "un seul pouvait" if n == 1
            else f"{n} seulement pouvaient")


def _final_round(v: Mapping[str, Any]) -> str:
    """A final round that cannot be: a player before the trigger at the target, a trigger
    pushed back further than Skull Island's turns can, or a total no game reaches."""
    if "early" in v:
        return (f"le joueur {v.get('trigger')} a atteint l'objectif {v.get('target')} le "
                f"premier : le joueur {v.get('early')}, dont le dernier tour vient après le "
                f"vôtre, est donc au-dessous, pas à {v.get('total')}")
    if "low" in v:
        return (f"le joueur {v.get('trigger')} a atteint l'objectif {v.get('target')} le "
                f"premier : son total vaut donc au moins {v.get('low')}, pas {v.get('total')} "
                f"(l'île de la Tête de Mort retire au plus {v.get('most')} par tour, et des "
                f"derniers tours joués après le sien, {_islands(v.get('islands'))} en "
                "être une : un joueur à "
                "l'objectif a marqué des points au sien)")
    return ("ces totaux ne peuvent pas être un dernier tour de cette partie (un total vaut au "
            f"plus {v.get('high')}, et celui d'un joueur repoussé par l'île de la Tête de Mort "
            f"après avoir atteint l'objectif vaut au moins {v.get('pushed')})")


def _value(v: Mapping[str, Any]) -> str:
    return _q(v.get("value", ""))


def _decimal(x: float) -> str:
    """``0,5``: one decimal, with the French comma."""
    return f"{x:.1f}".replace(".", ",")


def _making(v: Mapping[str, Any]) -> str:
    """`` (environ 6 s et 0,5 Go sur une machine à 2 cœurs)``: what making a table takes
    (its ``making`` value), or nothing."""
    making = v.get("making")
    if not isinstance(making, Mapping) or not isinstance(making.get("duration"), Mapping):
        return ""
    value, unit = making["duration"].get("value", 0), making["duration"].get("unit")
    time = (f"{value:.0f} s" if unit == "s" else
            f"{_decimal(float(value))} {'heures' if unit == 'hours' else 'minutes'}")
    memory = _decimal(float(making.get("gb", 0)))
    return f" (environ {time} et {memory} Go sur une machine à 2 cœurs)"


Words = Callable[[Mapping[str, Any], str | None], str]

FRENCH: dict[str, Words] = {
    # a query that cannot be read (solver.web.params)
    "unknown_parameter": lambda v, p: f"paramètre inconnu {_q(p)} : la demande prend "
    f"{_list(v.get('takes'))}",
    "too_many_values": lambda v, p: f"{_input(p)} : au plus {v.get('most')} valeurs",
    "given_twice": lambda v, p: f"{_input(p)} : donné deux fois, donnez-le une fois",
    "missing": lambda v, p: f"il manque {_input(p)}",
    "not_true_or_false": lambda v, p: f"{_input(p)} : {_value(v)} n'est ni vrai ni faux",
    "not_a_whole_number": lambda v, p: f"{_input(p)} : {_value(v)} " + {
        "digits": "n'est pas écrit avec les chiffres de 0 à 9",
        "spaces": "a des espaces ou des retours à la ligne autour : écrivez les chiffres de 0 "
        "à 9 seuls",
        "plus": "a un signe plus : écrivez les chiffres de 0 à 9 seuls",
        "long": f"a plus de {v.get('most')} chiffres"}.get(
            str(v.get("why")), "n'est pas un nombre entier écrit avec les chiffres de 0 à 9"),
    "below_minimum": lambda v, p: f"{_input(p)} : {v.get('value')} est au-dessous de "
    f"{v.get('minimum')}",
    "above_maximum": lambda v, p: f"{_input(p)} : {v.get('value')} est au-dessus de "
    f"{v.get('maximum')}",
    "query_too_long": lambda v, p: f"la demande fait {v.get('bytes')} octets : au plus "
    f"{v.get('most')} sont lus",
    "path_too_long": lambda v, p: f"le chemin dépasse {v.get('most')} octets",
    "request_body": lambda v, p: "une demande GET n'a pas de corps ici : chaque adresse sauf la "
    "revue se lit par GET, avec ses paramètres",
    "http": lambda v, p: {404: "cette adresse n'existe pas",
                          405: "cette méthode n'est pas permise à cette adresse"}.get(
        v.get("status", 0), f"erreur HTTP {v.get('status')}"),
    "internal": lambda v, p: "erreur interne : le serveur n'a pas pu répondre (voir son "
    "journal)",
    "busy": lambda v, p: f"le serveur calcule déjà d'autres règles ({v.get('queued')} "
    f"calcul{'s' if v.get('queued') not in (0, 1) else ''} avant le vôtre) : réessayez dans "
    f"{v.get('retry_after')} s",
    "solver_stopped": lambda v, p: "le serveur s'arrête : la table n'a pas été calculée"
    if v.get("stopping") else "le calcul de la table s'est arrêté avant la fin (mémoire "
    "épuisée ?) : réessayez",
    "solve_off": lambda v, p: "ce serveur ne calcule pas de nouvelles tables : il ne répond "
    "qu'avec les règles dont il a les tables (les règles par défaut)",
    "host": lambda v, p: "cette adresse de serveur n'est pas permise",
    # the library's errors
    "dice_count": lambda v, p: f"{_q(v.get('dice'))} compte {_dice(v.get('count'))} : il en "
    f"faut {v.get('expected')}",
    "roll_count": lambda v, p: f"{_q(v.get('dice'))} compte {_dice(v.get('count'))} : il faut "
    f"les {v.get('rolled')} dés relancés, ou les {v.get('all')}",
    "count_over": lambda v, p: f"{_q(v.get('dice'))} : le nombre {v.get('count')} dépasse les "
    f"{v.get('most')} dés du jeu",
    "dice": lambda v, p: f"{_unread(v)} : une lettre par dé (k m p s c d, ou m s p é o d en "
    "braille), ou des mots (« 3 singes 2 pièces »)",
    "stays_missing": lambda v, p: f"{_q(v.get('dice'))} ne montre pas les dés restés sur la "
    f"table ({_q(v.get('stays'))} : les dés gardés et les têtes de mort)",
    "unknown_card": lambda v, p: f"carte inconnue {_q(v.get('card'))}",
    "unknown_notation": lambda v, p: f"notation inconnue {_q(v.get('notation'))} : "
    "« default » ou « braille »",
    "notation": lambda v, p: f"{_input(p)} : ce texte ne se lit pas",
    "variant_value": lambda v, p: f"la variante {_q(_variant(v))} prend "
    f"{_list(v.get('choices'))}, pas {_value(v)}",
    "target_range": lambda v, p: f"l'objectif est un multiple de {v.get('unit')} jusqu'à "
    f"{v.get('max')}, pas {_value(v)}",
    "unknown_variant": lambda v, p: f"variante inconnue {_q(v.get('variant'))}",
    "variant_form": lambda v, p: f"la variante {_q(v.get('text'))} n'est pas de la forme "
    "NOM=VALEUR",
    "variant_twice": lambda v, p: f"la variante {_q(v.get('variant'))} est donnée deux fois",
    "not_points": lambda v, p: f"{_whose(v, p)} : un multiple de {v.get('unit')}"
    f"{'' if v.get('signed') else ' positif ou nul'}, pas {_value(v)}",
    "points_range": lambda v, p: f"{_input(p)} : au plus {v.get('max')} points (aucune partie "
    f"n'en atteint plus), pas {_value(v)}",
    "game_over": lambda v, p: f"votre total {v.get('me')} atteint l'objectif {v.get('target')} "
    ": la partie est finie",
    "final_turn": lambda v, p: (
        f"le total de l'adversaire {v.get('opp')} atteint l'objectif {v.get('target')} : "
        "c'est votre dernier tour" if not isinstance(v.get("opp"), list) else
        f"un autre joueur atteint l'objectif {v.get('target')} (totaux "
        f"{_and(v.get('opp'))}) : c'est votre dernier tour"),
    "not_final": lambda v, p: (
        f"un dernier tour vient après que l'adversaire a atteint l'objectif "
        f"{v.get('target')}, pas à {v.get('opp')}" if not isinstance(v.get("opp"), list) else
        f"un dernier tour vient après qu'un autre joueur a atteint l'objectif "
        f"{v.get('target')} : personne ne l'a atteint (totaux {_and(v.get('opp'))}), et "
        "aucun joueur dont un dernier tour a suivi le sien n'en est assez près pour y avoir été "
        "repoussé par l'île de la Tête de Mort"),
    "which_trigger": lambda v, p: (
        f"le joueur {v.get('at')} a atteint l'objectif {v.get('target')}, mais le joueur "
        f"{(v.get('seats') or ['?'])[0]} a pu l'atteindre le premier et en être repoussé par "
        "l'île de la Tête de Mort : ces totaux ne disent pas qui l'a atteint le premier "
        f"(joueur {_and(v.get('seats'), 'ou')}) : dites qui avec trigger=N (trigger="
        f"{v.get('at')} si personne n'a été repoussé)" if "at" in v else
        f"personne n'est à l'objectif {v.get('target')} : l'île de la Tête de Mort a repoussé "
        "le joueur qui l'avait atteint, et ces totaux ne disent pas lequel (joueur "
        f"{_and(v.get('seats'), 'ou')})"),
    "player_count": lambda v, p: (f"la partie se joue de {v.get('least')} à {v.get('most')} "
                                  f"joueurs, pas {v.get('players')}"),
    "players": lambda v, p: f"la partie de ce serveur se joue à {v.get('table')} joueurs, "
    f"pas {v.get('players')}",
    "final_round": lambda v, p: _final_round(v),
    "policy_count": lambda v, p: f"il faut une façon de jouer par joueur : {v.get('players')}, "
    f"pas {v.get('given')}",
    "game_too_large": lambda v, p: f"ce serveur ne calcule la partie que jusqu'à l'objectif "
    f"{v.get('max_game_target')} : pas {v.get('target')}",
    "both_totals": lambda v, p: "pour jouer la victoire il faut les deux totaux, le vôtre et "
    "celui de l'adversaire",
    "two_objectives": lambda v, p: "les points nécessaires et les totaux de la partie sont deux "
    "objectifs : donnez-en un",
    "exact_win": lambda v, p: "les valeurs exactes sont pour les points et les points "
    "nécessaires, pas pour la victoire",
    "no_sorceress": lambda v, p: "seule la carte Gardienne a une Gardienne à utiliser",
    "sorceress_used_on_first_roll": lambda v, p: "au premier lancer la Gardienne n'a pas "
    "encore servi",
    "chest_card": lambda v, p: "des dés sur l'île au trésor ne comptent qu'avec la carte Île "
    "au trésor",
    "chest_skulls": lambda v, p: "les têtes de mort restent sur la table : seuls les autres dés "
    "vont sur l'île au trésor",
    "chest_not_among": lambda v, p: "les dés de l'île au trésor doivent être parmi les dés",
    "chest_first_roll": lambda v, p: "rien n'est sur l'île au trésor avant le premier lancer",
    "illegal_stop": lambda v, p: "s'arrêter n'est pas permis ici",
    "dice_not_showing": lambda v, p: f"{_q(v.get('typed'))} n'est pas parmi les dés "
    f"{_q(v.get('dice'))}",
    "skulls_stay": lambda v, p: "les têtes de mort restent sur la table d'elles-mêmes : "
    "nommez les autres dés gardés",
    "sorceress_used": lambda v, p: "la Gardienne a déjà relancé une tête de mort ce tour (une "
    "fois par tour)",
    "ambiguous_move": lambda v, p: f"garder {_q(v.get('keep'))} se joue de deux façons, avec "
    "ou sans la Gardienne : dites laquelle (relancer avec une tête de mort, ou non)",
    "illegal_move": lambda v, p: "ce coup n'est pas permis ici",
    "rules": lambda v, p: f"{_input(p)} : les règles ne le permettent pas",
    "no_players": lambda v, p: "une partie a au moins un joueur",
    "no_such_player": lambda v, p: (
        # a question's trigger, numbered from the player asking (1) ...
        "le joueur qui a atteint l'objectif le premier est l'un des autres joueurs (joueur "
        f"{v.get('least')} à {v.get('players')}), pas {_q(v.get('trigger'))}" if "least" in v
        # ... or a scoreboard's seat, numbered around the table from 0
        else f"{_input(p)} : l'un des {v.get('players')} joueurs (0 à "
        f"{int(v.get('players', 1)) - 1}), pas {_q(v.get(p or ''))}" if (p or "") in v
        else f"{_input(p)} : il n'y a que {v.get('players')} joueurs"),
    "turn_outcome": lambda v, p: "un tour finit avec des points ou avec la perte de l'île de "
    "la Tête de Mort : donnez l'un des deux",
    "game_is_over": lambda v, p: "la partie est finie : commencez-en une nouvelle",
    "sudden_with_trigger": lambda v, p: "la mort subite vient après le dernier tour",
    "sudden_at_target": lambda v, p: f"en mort subite personne n'est à l'objectif "
    f"{v.get('target')} : le premier à l'atteindre a gagné" + (
        f" ({_whose(v, p)} vaut {v.get('total')})" if "total" in v else ""),
    "stale_table": lambda v, p: (
        f"la victoire à {v.get('players')} joueurs se calcule ici sur la table de la partie à "
        "3 joueurs (jeu presque optimal), et ce serveur n'en a pas pour ces règles (empreinte "
        if v.get("players") else "ce serveur n'a pas la table de ces règles (empreinte ")
    + f"{v.get('rules_hash')}) : demandez à qui le tient de la calculer{_making(v)}",
    # a game record (solver.rules.record), its place said before (error_sentence)
    "record": lambda v, p: "l'enregistrement de la partie ne se lit pas",
    "not_a_record": lambda v, p: "ce n'est pas l'enregistrement d'une partie de "
    "mille-sabords",
    "record_version": lambda v, p: f"un enregistrement de la version {v.get('version')} : "
    f"cette version de mille-sabords lit la version {v.get('reads')}",
    "record_field": lambda v, p: "ce champ de l'enregistrement manque ou ne se lit pas",
    "record_unknown_field": lambda v, p: f"champ inconnu {_q(v.get('field'))}",
    "record_size": lambda v, p: f"au plus {v.get('most')} éléments",
    "record_players": lambda v, p: "une partie a au moins un joueur",
    "record_player": lambda v, p: f"une place de 0 à {int(v.get('players', 1)) - 1}, pas "
    f"{v.get('player')}",
    "record_rules": lambda v, p: "l'enregistrement donne ses règles et leur empreinte "
    "(« rules », « rules_hash »)",
    "record_rules_hash": lambda v, p: f"{_q(v.get('given'))} n'est pas l'empreinte des règles "
    f"de l'enregistrement ({v.get('hash')}) : elles ont été modifiées, ou une autre version "
    "l'a écrit",
    "record_outcome": lambda v, p: "les points du tour ne sont pas ceux des dés (ou un tour "
    "finit avec ses points ou avec la perte de l'île de la Tête de Mort)",
    "record_over": lambda v, p: "la partie est finie : l'enregistrement s'arrête avec elle",
    "record_order": lambda v, p: f"c'est au tour de la place {v.get('mover')}, pas de la "
    f"place {v.get('player')} : on joue dans l'ordre des places",
    "record_roll": lambda v, p: "les lancers et les décisions de ce tour ne se suivent pas "
    "(une décision après chaque lancer qui ne finit pas le tour)",
    "record_state": lambda v, p: "ces totaux ne sont pas un état de la partie",
    "record_which": lambda v, p: f"il y a {v.get('records')} parties enregistrées : "
    "choisissez-en une",
    "body_too_long": lambda v, p: f"le corps de la demande dépasse {v.get('most')} octets",
    "settings": lambda v, p: f"{_input(p)} : réglage refusé",
    "bad_input": lambda v, p: f"{_input(p)} : valeur refusée",
}
"""The French sentence of each kind of error (module docstring)."""


def error_sentence(english: str, data: Mapping[str, Any], lang: str) -> str:
    """The sentence of an error answer in `lang`: `english` (the library's or the web's), or
    the French of its kind."""
    if lang != "fr":
        return english
    words = FRENCH.get(str(data.get("kind")))
    param = data.get("param")
    if words is None:
        words = FRENCH["bad_input"]
    values = data.get("values") or {}
    text = words(values, param if isinstance(param, str) else None)
    where = values.get("where") if isinstance(values, Mapping) else None
    if isinstance(where, str) and where:  # a place in a game record: "turn 3, roll 2"
        text = f"{_where(where)} : {text}"
    return french(_cap(text))


def _where(where: str) -> str:
    """A place in a game record in French (``tour 3, lancer 2``)."""
    for english, word in (("turn", "tour"), ("roll", "lancer"), ("player", "joueur"),
                          ("dice", "dés"), ("keep", "gardés"), ("points", "points"),
                          ("deduction", "perte"), ("card", "carte"), ("start", "départ"),
                          ("totals", "totaux"), ("mover", "joueur du tour"),
                          ("rules", "règles"), ("name", "nom")):
        where = re.sub(rf"\b{english}\b", word, where)
    return where


__all__ = ["FRENCH", "FRENCH_INPUTS", "LANGUAGES", "NBSP", "error_sentence", "french",
           "language"]

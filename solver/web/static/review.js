// mille-sabords: the Review view. The game of the table (or the practice game, or a record opened
// from a file or a link) is sent to /api/review, which answers `sabords review --json`: every
// player's chance after every turn (drawn as a line chart, and given to screen readers as a
// table), the largest mistakes with their position and the better move (a tap asks /api/advise
// for that position), each player's luck and errors, and each player's game in one sentence.
// Every number is the server's; this only draws and words it, in English or French.

import {
  $, META, S, W, api, bound, cardName, diceWords, el, hooks, moveWords, num, pct, playerName, players, save, say, sentence, showError, t, ui, worth,
} from "./core.js";
import { linkOf, practiceRecord, readFile, recordOfLink, saveFile, tableRecord } from "./record.js";
import { frAfterColon, frPlural, frPoints } from "./words.js";

const MISTAKES = 5;     // the largest mistakes listed
const COLOURS = ["#1d3557", "#b45309", "#15803d", "#9d174d", "#5b21b6"];
const DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2"];

const RW = {
  en: {
    review: "Review", reviewTitle: "Review of the game", reviewTable: "Review the game",
    you: "Player", solver: "Solver", summaryOver: (names) => `${names} won.`, summaryShared: (names) => `${names} shared the win.`,
    summaryNow: (turns, chances) => `After ${turns} turn${turns === 1 ? "" : "s"}: ${chances}.`,
    decisions: (n) => `${n} decision${n === 1 ? "" : "s"}`,
    close: "Back to the game", working: "Reviewing the game…",
    which: { table: "The table's game", practice: "The practice game", imported: "The game opened" },
    noTurn: "No turn has been scored yet: the review starts with the first.",
    chart: "Each player's chance of winning after every turn", chartPoints: "Points scored and expected, turn after turn",
    tableCaption: "Chance of winning after each turn, in %", tableCaptionPoints: "Points after each turn",
    turn: "Turn", start: "Start", expected: "Expected",
    players: "Luck and errors", player: "Player", luck: "Luck", error: "Errors", perDecision: "Per decision",
    others: "Others' play", estimateSteps: "Estimate's adjustments", startChance: "At the start", end: "At the end", now: "Now",
    unitNote: (points) => (points ? "Luck and errors in points." : "Chances in %; luck and errors in percentage points."),
    mistakes: "Largest mistakes", noMistake: "No mistake: every decision was one of the best.",
    where: (turn, name, card, roll, dice) => `Turn ${turn}, ${name}, ${card}, roll ${roll}: ${dice}`,
    played: (move, value) => `Played: ${move} (${value})`, better: (move, value) => `Better: ${move} (${value})`,
    lost: (x, grade) => `Lost ${x} points: ${grade}.`,
    grades: { small: "a small error", inaccuracy: "an inaccuracy", mistake: "a mistake", blunder: "a blunder" },
    gradeNames: { inaccuracy: ["inaccuracy", "inaccuracies"], mistake: ["mistake", "mistakes"], blunder: ["blunder", "blunders"] },
    openAdvice: "Advice for this position", closeAdvice: "Hide the advice",
    stories: "The game in a sentence",
    story: {
      won: (n, s) => `${n} won from ${s} % at the start`, shared: (n, s) => `${n} shared the win from ${s} % at the start`,
      lost: (n, s) => `${n} lost from ${s} % at the start`, now: (n, x, s) => `${n} is at ${x} % from ${s} % at the start`,
      luck: (x) => `${x} points of luck`, luckTurns: (x) => `${x} turns of luck`, noLuck: "no luck either way", own: (x) => `${x} lost to own play`,
      noOwn: "nothing lost to own play", others: (x) => `${x} from the others' play`, alone: (x) => `${x} in turns entered as points alone`,
      estimate: (x) => `${x} from the estimate's adjustments between turns`,
      points: (n, total, turns, diff, expected) => `${n} scored ${total} points in ${turns} ${turns === 1 ? "turn" : "turns"}, ${diff} against the ${expected} expected`,
      need: (n, need, hits, turns, expected) => `${n} reached ${need} in ${hits} of ${turns} ${turns === 1 ? "turn" : "turns"}, ${expected} expected`,
    },
    exact: "Exact chances (the game's table).",
    estimate: (mean, worst) => `Near-optimal estimates, not exact${mean ? `: within ${worst} percentage points of exact play, ${mean} on average (measured)` : ""}.`,
    checked: "Checked: for each player, the luck and the play add up to the result minus the chance at the start.",
    checkedEstimate: "Checked: for each player, the luck, the play and the estimate's adjustments add up to the result minus the chance at the start.",
    saveFile: "Save the game (file)", openFile: "Open a game file", copyLink: "Copy a link to this game",
    linkCopied: "The link is copied.", linkShown: "The link to this game:", tooLong: "The game is too long for a link: save it as a file.",
    unreadableLink: "The link does not hold a game this page can read.", reviewAgain: "Review again",
    thresholds: (a, b, c, points) => `An inaccuracy costs from ${a}, a mistake from ${b}, a blunder from ${c} ${points ? "points" : "percentage points"}.`,
  },
  fr: {
    review: "Revue", reviewTitle: "Revue de la partie", reviewTable: "Revoir la partie",
    you: "Joueur", solver: "Solveur", summaryOver: (names) => `${names} a gagné.`, summaryShared: (names) => `${names} ont partagé la victoire.`,
    summaryNow: (turns, chances) => `Après ${turns} tour${turns === 1 ? "" : "s"} : ${chances}.`,
    decisions: (n) => `${n} décision${n === 1 ? "" : "s"}`,
    close: "Revenir à la partie", working: "Revue de la partie…",
    which: { table: "La partie de la table", practice: "La partie d'entraînement", imported: "La partie ouverte" },
    noTurn: "Aucun tour n'est encore compté : la revue commence avec le premier.",
    chart: "Les chances de gagner de chaque joueur après chaque tour", chartPoints: "Points marqués et espérés, tour après tour",
    tableCaption: "Chances de gagner après chaque tour, en %", tableCaptionPoints: "Points après chaque tour",
    turn: "Tour", start: "Départ", expected: "Espérés",
    players: "Chance et erreurs", player: "Joueur", luck: "Chance", error: "Erreurs", perDecision: "Par décision",
    others: "Jeu des autres", estimateSteps: "Ajustements de l'estimation", startChance: "Au départ", end: "À la fin", now: "Maintenant",
    unitNote: (points) => (points ? "Chance et erreurs en points." : "Chances en pourcentage ; chance et erreurs en points de pourcentage."),
    mistakes: "Les plus grosses erreurs", noMistake: "Aucune erreur : chaque décision était l'une des meilleures.",
    where: (turn, name, card, roll, dice) => `Tour ${turn}, ${name}, ${card}, lancer ${roll} : ${dice}`,
    played: (move, value) => `Joué : ${frAfterColon(move)} (${value})`, better: (move, value) => `Mieux : ${frAfterColon(move)} (${value})`,
    lost: (x, grade) => `${frPoints(x, "perdu")} : ${grade}.`,
    grades: { small: "une petite erreur", inaccuracy: "une imprécision", mistake: "une erreur", blunder: "une gaffe" },
    gradeNames: { inaccuracy: ["imprécision", "imprécisions"], mistake: ["erreur", "erreurs"], blunder: ["gaffe", "gaffes"] },
    openAdvice: "Le conseil pour cette position", closeAdvice: "Cacher le conseil",
    stories: "La partie en une phrase",
    story: {
      won: (n, s) => `${n} a gagné, avec ${s} % de chances au départ`, shared: (n, s) => `${n} a partagé la victoire, avec ${s} % de chances au départ`,
      lost: (n, s) => `${n} a perdu, avec ${s} % de chances au départ`, now: (n, x, s) => `${n} a ${x} % de chances, contre ${s} % au départ`,
      luck: (x) => `${frPoints(x)} de chance`, luckTurns: (x) => `${x} ${frPlural(x, "tour")} de chance`, noLuck: "ni chance ni malchance", own: (x) => `${x} ${frPlural(x, "perdu")} par son jeu`,
      noOwn: "rien de perdu par son jeu", others: (x) => `${x} ${frPlural(x, "venu")} du jeu des autres`, alone: (x) => `${x} dans les tours comptés en points seuls`,
      estimate: (x) => `${x} ${frPlural(x, "venu")} des ajustements de l'estimation entre les tours`,
      points: (n, total, turns, diff, expected) => `${n} a marqué ${frPoints(total)} en ${turns} ${turns < 2 ? "tour" : "tours"}, ${diff} par rapport aux ${expected} espérés`,
      need: (n, need, hits, turns, expected) => `${n} a atteint ${need} dans ${hits} ${hits < 2 ? "tour" : "tours"} sur ${turns}, ${expected} espérés`,
    },
    exact: "Chances exactes (la table de la partie).",
    estimate: (mean, worst) => `Estimations presque optimales, pas exactes${mean ? ` : à ${frPoints(worst)} du jeu exact au plus, ${mean} en moyenne (mesuré)` : ""}.`,
    checked: "Vérifié : pour chaque joueur, la chance et le jeu font le résultat moins la chance du départ.",
    checkedEstimate: "Vérifié : pour chaque joueur, la chance, le jeu et les ajustements de l'estimation font le résultat moins la chance du départ.",
    saveFile: "Enregistrer la partie (fichier)", openFile: "Ouvrir un fichier de partie", copyLink: "Copier un lien vers cette partie",
    linkCopied: "Le lien est copié.", linkShown: "Le lien vers cette partie :", tooLong: "La partie est trop longue pour un lien : enregistrez-la dans un fichier.",
    unreadableLink: "Ce lien ne contient pas de partie que la page sait lire.", reviewAgain: "Revoir à nouveau",
    thresholds: (a, b, c, points) => `Une imprécision coûte à partir de ${a}, une erreur de ${b}, une gaffe de ${frPoints(c)}${points ? "" : " de pourcentage"}.`,
  },
};
const R = () => RW[S.lang] || RW.en;

// ui.review: the review open ({of: "table"|"practice"|"imported", record, answer, advice: {key:
// advice}}), or null.
const signedNum = (x, digits) => (Math.abs(x) < 0.5 * 10 ** -digits ? num(0, digits) : `${x > 0 ? "+" : ""}${num(x, digits)}`);

async function recordOf(of) {
  if (of === "imported") return S.imported;
  if (of === "practice") return practiceRecord(S.practice, R().you, R().solver);
  return tableRecord();
}

export function openReview(of) {
  ui.review = { of, record: null, answer: null, advice: {}, link: null, error: null };
  ui.focus = "review-h";
  hooks.render();
  return runReview();
}
async function runReview() {
  const view = ui.review;
  if (!view) return;
  view.answer = null; view.error = null;
  say("review-status", R().working);
  try {
    view.record = await recordOf(view.of);
    if (Array.isArray(view.record.turns) && !view.record.turns.length) { view.answer = { empty: true }; return; }
    view.answer = await post(view.record);
  } catch (e) {
    view.error = e;
  } finally {
    hooks.render();
  }
}
async function post(record) {
  let response;
  try {
    response = await fetch("/api/review", { method: "POST", body: JSON.stringify(record), headers: { "content-type": "application/json", accept: "application/json", "accept-language": S.lang || "en" }, cache: "no-store" });
  } catch (e) { throw new Error(navigator.onLine === false ? W.offline : W.unreachable); }
  let body = null;
  try { body = await response.json(); } catch (e) { /* not JSON */ }
  if (!response.ok || !body) throw new Error(body && body.error ? body.error : W.httpError(response.status));
  return body;
}
function closeReview() { ui.review = null; ui.focus = S.mode === "practice" ? "practice-status" : "board-status"; hooks.render(); }

// -- drawing ------------------------------------------------------------------------------------

// The players' names: the table's and the practice's in the page's language now (a player without
// a name is "Player 2" in English, "Joueur 2" in French), an imported game's as it says.
function names(a) {
  const view = ui.review;
  if (view && view.of === "table" && players().length === a.players.length) return a.players.map((_, i) => playerName(i));
  if (view && view.of === "practice") return a.objective === "win" ? [R().you, R().solver] : [R().you];
  return a.players.map((p) => p.name);
}
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  e.append(...children);
  return e;
}
// The series drawn: a game's chances after every turn (and at the start), or one player's points
// scored and expected, summed turn after turn.
function series(a) {
  if (a.objective === "win") {
    return { lines: names(a).map((name, i) => ({ name, values: [a.start[i], ...a.turns.map((tr) => tr.after[i])] })), top: 1, percent: true };
  }
  let scored = 0, expected = 0;
  const got = [0], hoped = [0];
  for (const tr of a.turns) { scored += tr.after[0]; expected += tr.before[0]; got.push(scored); hoped.push(expected); }
  const top = Math.max(1, ...got, ...hoped);
  return { lines: [{ name: names(a)[0], values: got }, { name: R().expected, values: hoped }], top, percent: false };
}
function chart(a) {
  const s = series(a);
  const W_ = 320, H = 180, L = 30, B = 18, T = 8, Rm = 8;
  const n = s.lines[0].values.length - 1;
  const x = (i) => L + (n ? (i * (W_ - L - Rm)) / n : 0);
  const y = (v) => T + (1 - v / s.top) * (H - T - B);
  const grid = [0, 0.5, 1].map((f) => svg("g", {},
    svg("line", { x1: L, x2: W_ - Rm, y1: y(f * s.top), y2: y(f * s.top), stroke: "#c7cdd8", "stroke-width": 1 }),
    svg("text", { x: L - 4, y: y(f * s.top) + 4, "text-anchor": "end", "font-size": 10, fill: "#3d4759" }, s.percent ? `${100 * f}` : String(Math.round(f * s.top)))));
  const lines = s.lines.map((line, k) => svg("polyline", {
    points: line.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
    fill: "none", stroke: COLOURS[k % COLOURS.length], "stroke-width": 2.5, "stroke-dasharray": DASHES[k % DASHES.length], "stroke-linejoin": "round" }));
  const axis = svg("text", { x: W_ - Rm, y: H - 4, "text-anchor": "end", "font-size": 10, fill: "#3d4759" }, `${R().turn} ${n}`);
  const picture = svg("svg", { viewBox: `0 0 ${W_} ${H}`, class: "chart", "aria-hidden": "true", focusable: "false" }, ...grid, ...lines, axis);
  const legend = el("ul", { class: "legend", "aria-hidden": "true" }, ...s.lines.map((line, k) => el("li", {},
    svgSwatch(k), el("span", { text: line.name }))));
  // the same numbers for a screen reader: a table, turn by turn
  const head = el("tr", {}, el("th", { scope: "col", text: t(R().turn) }), ...s.lines.map((line) => el("th", { scope: "col", text: line.name })));
  const rows = s.lines[0].values.map((_, i) => el("tr", {},
    el("th", { scope: "row", text: i === 0 ? t(R().start) : String(i) }),
    ...s.lines.map((line) => el("td", { text: s.percent ? pct(line.values[i], 1) : num(line.values[i], 0) }))));
  const table = el("table", { class: "sr-only", id: "review-table" },
    el("caption", { text: t(a.objective === "win" ? R().tableCaption : R().tableCaptionPoints) }),
    el("thead", {}, head), el("tbody", {}, ...rows));
  return [el("h3", { text: t(a.objective === "win" ? R().chart : R().chartPoints) }), picture, legend, table];
}
function svgSwatch(k) {
  return svg("svg", { viewBox: "0 0 24 8", width: 24, height: 8, "aria-hidden": "true" },
    svg("line", { x1: 0, x2: 24, y1: 4, y2: 4, stroke: COLOURS[k % COLOURS.length], "stroke-width": 3, "stroke-dasharray": DASHES[k % DASHES.length] }));
}

// A change in the review's unit: points of probability (×100), or points.
function amount(a, x, signed) {
  const v = a.unit === "points" ? x : 100 * x;
  const digits = a.unit === "points" ? 0 : 1;
  return signed ? signedNum(v, digits) : num(Math.abs(v) < 0.5 * 10 ** -digits ? 0 : v, digits);
}
function playersTable(a) {
  const r = R();
  const win = a.objective === "win";
  const share = (x) => (win ? `${pct(x, 1)} %` : num(x, a.objective === "need" ? 2 : 0));
  const blocks = a.summary.map((p) => {
    const each = p.error_per_decision === null ? "–" : a.unit === "points" ? num(p.error_per_decision, 1) : num(100 * p.error_per_decision, 2);
    const grades = Object.entries(r.gradeNames).filter(([k]) => p.grades[k]).map(([k, word]) => `${p.grades[k]} ${word[p.grades[k] === 1 ? 0 : 1]}`);
    const rows = [[win ? r.startChance : r.expected, share(p.start)], [win ? (a.over ? r.end : r.now) : r.end, share(p.end)],
      [r.luck, amount(a, p.luck, true)], [r.error, [amount(a, p.error, false), r.decisions(p.decisions), ...grades].join(", ")],
      [r.perDecision, each], ...(win ? [[r.others, amount(a, p.play_others, true)]] : []),
      ...(a.game && a.game.exact === false ? [[r.estimateSteps, amount(a, p.estimate || 0, true)]] : [])];
    return el("table", { class: "review-player" }, el("caption", { text: names(a)[p.seat] }),
      el("tbody", {}, ...rows.map(([k, v]) => el("tr", {}, el("th", { scope: "row", text: t(k) }), el("td", { class: "num", text: t(v) })))));
  });
  return [el("h3", { text: t(r.players) }), el("div", { class: "review-players" }, ...blocks),
    el("p", { class: "note", text: t(r.unitNote(a.unit === "points")) })];
}
// The game in a line: who won, or each player's chance now.
function summaryLine(a) {
  const r = R();
  const who = names(a);
  if (a.objective !== "win") return story(a, a.summary[0]);
  if (a.over) {
    const winners = a.winners.map((i) => who[i]);
    return winners.length > 1 ? r.summaryShared(winners.join(" & ")) : r.summaryOver(winners[0]);
  }
  return r.summaryNow(a.turns.length, a.summary.map((p) => `${who[p.seat]} ${pct(p.end, 1)} %`).join(", "));
}
function story(a, p) {
  const s = R().story;
  // as the server's story says it (solver/words/review.py): points; a need's turns (to 0.01);
  // a game's points of chance
  const need = a.objective === "need";
  const x = (v) => (a.unit === "points" || need ? v : 100 * v);
  const digits = a.unit === "points" ? 0 : need ? 2 : 1;
  const small = 0.5 * 10 ** -digits;
  const turns = a.turns.filter((tr) => tr.player === p.seat).length;
  let head;
  const name = names(a)[p.seat];
  if (a.objective === "points") head = s.points(name, num(p.end, 0), turns, signedNum(p.change, 0), num(p.start, 0));
  else if (a.objective === "need") head = s.need(name, a.need, num(p.end, 0), turns, num(p.start, 1));
  else if (!a.over) head = s.now(name, pct(p.end, 1), pct(p.start, 1));
  else head = a.winners.includes(p.seat) ? (a.winners.length > 1 ? s.shared : s.won)(name, pct(p.start, 1)) : s.lost(name, pct(p.start, 1));
  const parts = [Math.abs(x(p.luck)) >= small ? (need ? s.luckTurns : s.luck)(signedNum(x(p.luck), digits)) : s.noLuck,
    x(p.error) >= small ? s.own(num(x(p.error), digits)) : s.noOwn];
  if (Math.abs(x(p.play_others)) >= small) parts.push(s.others(signedNum(x(p.play_others), digits)));
  if (Math.abs(x(p.alone)) >= small) parts.push(s.alone(signedNum(x(p.alone), digits)));
  if (Math.abs(x(p.estimate || 0)) >= small) parts.push(s.estimate(signedNum(x(p.estimate), digits)));
  return `${head}${S.lang === "fr" ? " : " : ": "}${parts.join(", ")}.`;
}
function decisions(a) {
  const out = [];
  a.turns.forEach((tr) => tr.events.forEach((e) => { if (e.kind === "decision") out.push({ tr, e }); }));
  return out;
}
function stopPoints(e) { return { points: e.points }; }
function value(a, x) { return a.unit === "points" ? num(x, 1) : `${pct(x, 2)} %`; }
function mistakes(a) {
  const r = R();
  const wrong = decisions(a).filter(({ e }) => e.grade !== "best").sort((p, q) => q.e.error - p.e.error || p.tr.turn - q.tr.turn).slice(0, MISTAKES);
  const out = [el("h3", { text: t(r.mistakes) })];
  if (!wrong.length) { out.push(el("p", { text: t(r.noMistake) })); return out; }
  out.push(el("ol", { class: "decisions worst", id: "review-mistakes" }, ...wrong.map(({ tr, e }) => {
    const key = `${tr.turn}-${e.roll}`;
    const card = tr.card ? cardName(tr.card) : "–";
    const shown = ui.review.advice[key];
    const button = el("button", { type: "button", class: "advice-open", "aria-expanded": String(!!shown), text: t(shown ? r.closeAdvice : r.openAdvice) });
    button.addEventListener("click", () => toggleAdvice(a, tr, e, key));
    const li = el("li", { class: "decision" },
      el("div", { class: "roll", text: t(r.where(tr.turn, names(a)[tr.player], card, e.roll, diceWords(e.dice))) }),
      el("div", { text: t(r.played(moveWords(stopPoints(e), e.played, true), value(a, e.chance_played))) }),
      el("div", { text: t(r.better(moveWords(stopPoints(e), e.best, true), value(a, e.chance_best))) }),
      el("div", { class: "cost", text: t(r.lost(amount(a, e.error, false), r.grades[e.grade] || e.grade)) }),
      button);
    if (shown) li.append(adviceView(shown));
    return li;
  })));
  return out;
}
function adviceView(advice) {
  if (advice.error) return el("p", { class: "field-error", text: t(advice.error) });
  return el("div", { class: "review-advice" }, el("p", { class: "sentence", text: t(sentence(advice)) }),
    el("ol", { class: "options" }, ...advice.options.slice(0, 3).map((o) => el("li", { class: `option${o.best ? " best" : ""}` },
      el("div", { class: "move", text: t(moveWords(advice, o, true)) }), el("div", { class: "figures", text: t(worth(advice, o)) })))));
}
// The variants of the record's rules, as /api/advise reads them.
function variantsOf(rules) {
  return META.variants.filter((v) => rules[v.name] !== undefined && rules[v.name] !== v.default)
    .map((v) => `${v.name}=${rules[v.name] === true ? "on" : rules[v.name] === false ? "off" : rules[v.name]}`);
}
async function toggleAdvice(a, tr, e, key) {
  const view = ui.review;
  if (view.advice[key]) { delete view.advice[key]; hooks.render(); return; }
  const goal = tr.goal || {};
  const params = { card: tr.card, dice: e.dice, first: e.roll === 1, sorceress_used: e.sorceress_used, chest: e.chest, variant: variantsOf(a.rules), top: 3 };
  if (goal.need !== undefined && goal.need !== null) params.need = goal.need;
  if (goal.me !== undefined) Object.assign(params, { me: goal.me, opp: goal.opp, final: goal.final, trigger: goal.trigger, sudden: goal.sudden });
  try { view.advice[key] = await api("/api/advise", params); } catch (err) { view.advice[key] = { error: err.message }; }
  hooks.render();
}

export function renderReview() {
  const view = ui.review;
  document.body.classList.toggle("reviewing", !!view);
  $("review-section").hidden = !view;
  $("mode-review").setAttribute("aria-pressed", String(!!view));
  $("mode-review").textContent = t(R().review);
  $("review-over").hidden = !(S.mode === "table" && S.game && S.game.over) || !!view;
  $("review-over").textContent = t(R().reviewTable);
  const p = S.practice;
  $("practice-review").hidden = !(S.mode === "practice" && p && p.log && p.log.length) || !!view;
  $("practice-review").textContent = t(R().reviewTable);
  if (!view) return;
  const r = R();
  say("review-h", r.reviewTitle);
  say("review-which", r.which[view.of]);
  $("review-close").textContent = t(r.close);
  $("review-save").textContent = t(r.saveFile);
  $("review-open-label").textContent = t(r.openFile);
  $("review-link").textContent = t(r.copyLink);
  $("review-again").textContent = t(r.reviewAgain);
  const a = view.answer;
  $("review-save").disabled = !view.record;
  $("review-link").disabled = !view.record;
  const body = [];
  if (view.error) {
    say("review-status", "");
    body.push(el("p", { class: "field-error", role: "alert", text: t(view.error.message || String(view.error)) }));
  } else if (!a) {
    say("review-status", r.working);
  } else if (a.empty) {
    say("review-status", r.noTurn);
  } else {
    say("review-status", summaryLine(a));
    body.push(...chart(a), el("h3", { text: t(r.stories) }),
      el("ul", { class: "stories", id: "review-stories" }, ...a.summary.map((p) => el("li", { text: t(story(a, p)) }))),
      ...playersTable(a), ...mistakes(a));
    if (a.game) body.push(el("p", { class: "note", text: t(a.game.exact ? r.exact : r.estimate(a.game.loss && a.game.loss.chances && a.game.loss.chances.mean !== null && a.game.loss.chances.mean !== undefined ? pct(a.game.loss.chances.mean, 2) : null, a.game.loss && a.game.loss.chances ? bound(a.game.loss.chances.worst || 0) : null)) }));
    const [i1, m1, b1] = Object.values(a.thresholds);
    const pts = a.unit === "points";
    body.push(el("p", { class: "note", text: t(r.thresholds(pts ? num(i1, 0) : num(100 * i1, 1), pts ? num(m1, 0) : num(100 * m1, 0), pts ? num(b1, 0) : num(100 * b1, 0), pts)) }),
      el("p", { class: "note", text: t(a.game && a.game.exact === false ? r.checkedEstimate : r.checked) }));
  }
  if (view.link) body.push(el("p", { class: "note", text: t(view.link) }));
  $("review-body").replaceChildren(...body);
}

export function reviewAction() {
  $("review-h").tabIndex = -1;
  $("mode-review").addEventListener("click", () => (ui.review ? closeReview() : openReview(S.mode === "practice" ? "practice" : "table")));
  // the modes close the review first (the table's turn in progress is kept)
  for (const id of ["mode-table", "mode-practice"]) {
    $(id).addEventListener("click", (e) => {
      if (!ui.review) return;
      const same = (id === "mode-table") === (S.mode === "table");
      ui.review = null;
      if (same) { e.stopImmediatePropagation(); hooks.render(); }
    }, true);
  }
  $("review-over").addEventListener("click", () => openReview("table"));
  $("practice-review").addEventListener("click", () => openReview("practice"));
  $("review-close").addEventListener("click", closeReview);
  $("review-again").addEventListener("click", () => runReview());
  $("review-save").addEventListener("click", () => {
    const record = ui.review && ui.review.record;
    if (record) saveFile(record, `mille-sabords-${new Date().toISOString().slice(0, 10)}.json`);
  });
  $("review-link").addEventListener("click", async () => {
    const view = ui.review;
    if (!view || !view.record) return;
    const link = linkOf(view.record);
    if (!link) { view.link = R().tooLong; hooks.render(); return; }
    try { await navigator.clipboard.writeText(link); view.link = `${R().linkCopied} ${link}`; } catch (e) { view.link = `${R().linkShown} ${link}`; }
    hooks.render();
  });
  $("review-open").addEventListener("change", async () => {
    const file = $("review-open").files[0];
    if (!file) return;
    try { S.imported = JSON.parse(await readFile(file)); } catch (e) { S.imported = { unreadable: String(file.name) }; }
    $("review-open").value = "";
    save();
    openReview("imported");
  });
  openLinked();
  window.addEventListener("hashchange", openLinked);  // a link followed from the page itself
}
// A link to a game (#review=...): reviewed at once, the fragment dropped.
function openLinked() {
  const linked = recordOfLink(location.hash);
  if (!linked) return;
  history.replaceState(null, "", location.pathname + location.search);
  if (linked.unreadable) { showError(new Error(R().unreadableLink)); return; }
  S.imported = linked;
  save();
  openReview("imported");
}

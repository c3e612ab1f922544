// mille-sabords: what the page's modules share: the API, the work in progress, the errors
// beside their fields, and the wording of the server's answers. Every number and every rule
// comes from the server's JSON API (the command line's --json answers; /api/scores for the
// scoreboard, /api/meta for the game's sizes); this only words them in English or French.

import { S, save } from "./store.js";
import { WORDS, typo } from "./words.js";

export { S, save };
export const FACES = ["skull", "monkey", "parrot", "sword", "coin", "diamond"];
export const DEFAULT_LETTERS = "kmpscd";  // the API's JSON always uses these
export const SKULL = 0;
export const SHOWN = 10;                 // options shown before "show all"
const META_KEY = "mille-sabords.meta";   // the last /api/meta, to open without the server
const PROGRESS_AFTER = 500;              // ms before a request in flight shows its progress
const STILL_AFTER = 5000;                // ms before it says why it may take long

export let META = null;  // /api/meta: cards, faces, letters, variants, limits
export let W = WORDS.en;
export function setMeta(meta) { META = meta; try { localStorage.setItem(META_KEY, JSON.stringify(meta)); } catch (e) { /* */ } }
export function savedMeta() { try { return JSON.parse(localStorage.getItem(META_KEY)); } catch (e) { return null; } }
export function setWords(lang) { W = WORDS[lang] || WORDS.en; }

// ui: what the page holds while open. state: the /api/turn answer of S.turn; position: a
// one-off advice; pad/chest: the dice tapped in; busy: a request is in flight (the controls
// that change the turn are disabled until it ends); resuming: a reload's turn is being replayed
// by the server (its "entries kept" status unsaid meanwhile: app.js resumeTurn).
// scores/scoresKey: the last /api/scores of the scoreboard; chances: what the scoreboard shows
// of every seat's chance (board.js: paintChances).
export const ui = { state: null, position: null, pad: [0, 0, 0, 0, 0, 0], chest: [0, 0, 0, 0, 0, 0], showAll: false, busy: false, scores: null, scoresKey: null, chances: null };

// hooks.render: redraws the whole page (set by app.js).
export const hooks = { render: () => {} };

export const $ = (id) => document.getElementById(id);
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("aria-") || k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...children);
  return e;
}
// Text set on the page: French typography in French (words.js: typo).
// A region's text, written only when it changes: a live region rewritten with the same words
// may be read out again at every render (a blind player's trial heard the scoreboard's status
// rewritten at each tap). An error that comes again is cleared first, so it is read again.
export function say(id, text) {
  const next = S.lang === "fr" ? typo(text || "") : (text || "");
  if ($(id).textContent !== next) $(id).textContent = next;
}
export function t(text) { return S.lang === "fr" ? typo(text) : text; }

// -- numbers and dice in words -------------------------------------------------------------------

export function num(x, digits) {
  return x.toLocaleString(S.lang === "fr" ? "fr-FR" : "en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).replace(/^[-\u2212]/, "\u2212");
}
export function pct(p, digits) { return num(100 * p, digits); }
export function counts(letters) {
  const c = [0, 0, 0, 0, 0, 0];
  for (const ch of letters || "") c[DEFAULT_LETTERS.indexOf(ch)] += 1;
  return c;
}
export function lettersOf(c) { return c.map((n, face) => DEFAULT_LETTERS[face].repeat(n)).join(""); }
export function faceWord(face, n) { return W.face[face][n === 1 ? 0 : 1]; }
export function listWords(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${W.and} ${items[items.length - 1]}`;
}
export function diceWords(letters, skipSkulls) {
  const items = [];
  counts(letters).forEach((n, face) => { if (n && !(skipSkulls && face === SKULL)) items.push(`${n} ${faceWord(face, n)}`); });
  return items.length ? listWords(items) : W.nothing;
}
// The letters a player types and reads: the chosen notation's, or while a turn is followed the
// letters its entries are in (the page sends every entry of a turn in one notation: a pad's dice
// or a move written in other letters than the turn's were read as other dice, the Braille
// adaptation's "m" a monkey, not a skull).
export function notationName() { return (S.turn && S.turn.params.notation) || S.notation; }
export function notationLetters() { return META.letters[notationName()] || META.letters.default; }
export function inNotation(letters) {  // the API's letters -> the letters of the notation read
  const to = notationLetters();
  return Array.from(letters || "").map((ch) => to[DEFAULT_LETTERS.indexOf(ch)]).join("");
}
export function cardName(id) { return W.cards[id] || id; }
export function cardMeta(id) { return META.cards.find((c) => c.id === id); }

// -- the API ---------------------------------------------------------------------------------------

// An answer that did not come: `kind` is the server's (with its `param`, the input it concerns)
// or the page's: "offline" (no answer at all), "busy" (429: `retryAfter` seconds), "http";
// `status`: the answer's HTTP status (null without an answer).
export class ApiError extends Error {
  constructor(message, data) {
    super(message);
    Object.assign(this, { kind: "http", param: null, values: {}, entry: undefined, retryAfter: null, status: null }, data || {});
  }
}
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === false) continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x)); else q.append(k, String(v));
  }
  return q;
}
export async function api(path, params) {
  let response;
  try {
    response = await fetch(`${path}?${query(params || {})}`, { headers: { accept: "application/json", "accept-language": S.lang || "en" }, cache: "no-store" });
  } catch (e) {  // no answer at all: the device offline, or the server down or out of reach
    throw new ApiError(navigator.onLine === false ? W.offline : W.unreachable, { kind: "offline" });
  }
  let body = null;
  try { body = await response.json(); } catch (e) { /* not JSON: a proxy's page */ }
  if (response.status === 429) {
    const after = +(response.headers.get("retry-after") || 0);
    throw new ApiError(body && body.error ? body.error : W.busyServer(after), { kind: "busy", retryAfter: after, values: body ? body.values : {}, status: 429 });
  }
  if (!body) throw new ApiError(W.httpError(response.status), { kind: "http", status: response.status });
  if (!response.ok) throw new ApiError(body.error || W.httpError(response.status), { ...body, status: response.status });
  return body;
}
export function variantParams() {
  return Object.entries(S.variants).map(([k, v]) => `${k}=${v === true ? "on" : v === false ? "off" : v}`);
}

// -- the work in progress ---------------------------------------------------------------------------

// work(fn): runs one action that asks the server (a roll entered, a move, a score). While it is
// in flight every control that could change the turn is disabled (a second tap does nothing),
// after half a second its progress shows; an error is shown beside its field, and an answer that
// did not come (offline, busy, the server's fault) offers a retry of exactly that action: `fn`
// changes nothing it keeps before its answers have come.
export async function work(fn) {
  if (ui.busy) return false;
  const focused = document.activeElement;  // (disabled while it works: the focus falls to <body>)
  ui.busy = true;
  setBusy(true);
  const progress = setTimeout(() => showProgress(W.working), PROGRESS_AFTER);
  const still = setTimeout(() => showProgress(W.stillWorking), STILL_AFTER);
  let ok = true;
  try {
    await fn();
    showError(null);
  } catch (e) {
    ok = false;
    const again = e instanceof ApiError && ["offline", "busy", "http", "internal", "stale_table", "solve_off"].includes(e.kind);
    showError(e, again ? () => work(fn) : null);
  } finally {
    clearTimeout(progress); clearTimeout(still);
    showProgress(null);
    settle();  // the answer is drawn now: a tap just after it was meant for what was there
    ui.busy = false;
    setBusy(false);
    hooks.render();
    refocusError();
    // the focus where it was, if nothing took it (an error, an answer that moved no focus)
    const lost = !document.activeElement || document.activeElement === document.body;
    if (lost && focused && focused !== document.body && focused.isConnected && !focused.disabled) focused.focus({ preventScroll: true });
  }
  return ok;
}
function controls() { return document.querySelectorAll("main button, main input, main select, nav button"); }
function setBusy(on) {
  markBusy();
  for (const c of controls()) {
    if (c.closest("#error-box")) continue;
    if (on) { c.dataset.was = c.disabled ? "1" : "0"; c.disabled = true; } else if (c.dataset.was !== undefined) { c.disabled = c.dataset.was === "1"; delete c.dataset.was; }
  }
}
function markBusy() {
  document.querySelector("main").setAttribute("aria-busy", String(ui.busy || settling()));
}

// -- a tap records only what the player meant -----------------------------------------------------

// A tap that records something (any button but a die counted on a pad or a tile) makes the page
// ignore the taps that follow it for TAP_GUARD ms, counted again from when its answer is drawn:
// the second tap of a double tap lands on whatever was drawn under the finger (the options of
// "Advise", the next player's dice pad), which the player never saw. A tap on a control drawn
// (added, or shown) after the finger went down is ignored too, whenever it comes. Only taps
// and clicks of a pointer are guarded so (a key, or a script, clicks with `detail` 0, and a
// player may press Enter again and again); but no control records twice before the page has
// been painted since its first activation: a second click in the same instant (two clicks, a
// key's repeat, an assistive tool's double activation) was meant for what the player saw, not
// for what the first one changed ("Next player" skipped a player, "Undo the last score" undid
// two). While the taps are ignored, <main> is aria-busy.
// (The browser tests that tap through whole games shorten it, by a global set before the page's
// scripts run, which no page sets; the tests of double taps keep these 450 ms.)
export const TAP_GUARD = Number.isFinite(globalThis.sabordsTapGuard) ? globalThis.sabordsTapGuard
  : 450;  // ms
const TALLY = "button.add, button.sub, button.tile";  // a die counted: tapped again and again
const CONTROL = "button, input, select, label, summary, a";
const drawn = new WeakMap();   // element -> when it was added or shown (performance.now())
let fingerDown = -Infinity;    // the last pointerdown
let guardUntil = -Infinity;
let guardTimer = null;
let unpainted = null;           // the control activated since the last paint, if any
function settling() { return performance.now() < guardUntil; }
// `control` recorded: until the page has been painted again (two animation frames), a second
// activation of it is the same instant's.
function activated(control) {
  unpainted = control;
  const painted = () => { if (unpainted === control) unpainted = null; };
  requestAnimationFrame(() => requestAnimationFrame(painted));
  setTimeout(painted, 1000);  // a page not painted (hidden) locks nothing for long
}
function settle() {
  guardUntil = Math.max(guardUntil, performance.now() + TAP_GUARD);
  clearTimeout(guardTimer);
  guardTimer = setTimeout(markBusy, guardUntil - performance.now() + 1);
  markBusy();
}
function drawnAt(control) {
  let when = -Infinity;
  for (let e = control; e; e = e.parentElement) when = Math.max(when, drawn.get(e) ?? -Infinity);
  return when;
}
export function guardTaps() {
  new MutationObserver((records) => {
    const now = performance.now();
    for (const r of records) {
      if (r.type === "childList") r.addedNodes.forEach((n) => { if (n.nodeType === 1) drawn.set(n, now); });
      else if (r.oldValue !== null && !r.target.hidden) drawn.set(r.target, now);  // shown
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["hidden"], attributeOldValue: true });
  document.addEventListener("pointerdown", (e) => { fingerDown = performance.now(); }, true);
  // a tap ignored moves no focus either: the focus a recording tap gave (the scoreboard's status
  // after a score) stayed where a double tap's second tap landed (a blind player's trial)
  const ignored = (e, control) => e.detail !== 0 && (settling() || drawnAt(control) > fingerDown);
  document.addEventListener("mousedown", (e) => {
    const control = e.target instanceof Element ? e.target.closest(CONTROL) : null;
    if (control && ignored(e, control)) e.preventDefault();
  }, true);
  document.addEventListener("click", (e) => {
    const control = e.target instanceof Element ? e.target.closest(CONTROL) : null;
    if (!control) return;
    const records = control.matches("button") && !control.matches(TALLY);
    if ((records && unpainted === control) || ignored(e, control)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    if (records) activated(control);
    if (records && e.detail !== 0) settle();
  }, true);
}
function showProgress(text) {
  const p = $("progress");
  p.hidden = !text;
  say("progress-text", text || "");
}

// -- errors, beside the control they concern ---------------------------------------------------------

// Where an error is shown: the input it concerns (the server's `param`) -> the error line under
// that control. Anything else (offline, a busy server) goes to the page's own error line.
const FIELDS = {
  card: "card", need: "need", me: "objective", opp: "objective", final: "objective", totals: "objective", objective: "objective",
  variant: "variants", notation: "notation", dice: "dice", roll: "dice", chest: "dice", sorceress_used: "dice", first: "dice",
  move: "turn", entry: "turn", total: "board", mover: "board", points: "board", deduction: "board", trigger: "board", sudden: "board",
};
let lastError = null;
export function fieldOf(e) {
  if (!e) return null;
  if (e.field) return e.field;
  if ((e.param === "variant" && e.values && e.values.variant === "target") || e.kind === "game_too_large") return "target";
  if (["dice", "roll", "entry"].includes(e.param) && S.mode === "practice") return "practice";
  if (["dice", "roll"].includes(e.param) && $("dice-section").hidden) return "turn";
  return FIELDS[e.param] || null;
}
export function clearFieldErrors() {
  for (const p of document.querySelectorAll(".field-error")) p.textContent = "";
  for (const c of document.querySelectorAll("[aria-invalid=true]")) c.removeAttribute("aria-invalid");
}
// showError(e, retry): the message beside its field (scrolled into view), or in the page's error
// line with a Retry button when `retry` is given; showError(null) clears every error.
export function showError(e, retry) {
  clearFieldErrors();
  const box = $("error-box");
  lastError = e ? { e, retry } : null;
  if (!e) { say("error", ""); box.hidden = true; return; }
  say("error", "");  // (the same error again is read again)
  const message = capital(e.message || String(e));
  const field = fieldOf(e);
  const line = field && $(`${field}-error`);
  if (line && !retry) {
    say(`${field}-error`, message);
    const control = document.querySelector(`[aria-describedby~="${field}-error"]`);
    if (control) control.setAttribute("aria-invalid", "true");
    say("error", ""); box.hidden = true;
    return;
  }
  say("error", message);
  box.hidden = false;
  $("retry").hidden = !retry;
  $("retry").onclick = retry ? () => { $("retry").hidden = true; retry(); } : null;
}
function refocusError() {
  if (!lastError) return;
  const field = fieldOf(lastError.e);
  const line = field && !lastError.retry ? $(`${field}-error`) : $("error-box");
  if (!line || !line.textContent) return;
  const details = line.closest("details");
  if (details) details.open = true;
  reveal(line);
  // a field's error: the focus in that field, to correct it (it fell to <body> while it worked)
  const control = field && !lastError.retry && document.querySelector(`[aria-describedby~="${field}-error"]`);
  const lost = !document.activeElement || document.activeElement === document.body;
  if (control && lost && !control.disabled && control.offsetParent !== null) control.focus({ preventScroll: true });
}
// Scroll `element` into view only if it is not in view already (a scroll under the thumb would
// turn its tap into nothing).
export function reveal(element) {
  const r = element.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) element.scrollIntoView({ block: "center" });
}
export function capital(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

// -- the scoreboard and the objective ---------------------------------------------------------------

export function players() {
  if (!S.players) S.players = [{ name: null, total: 0 }, { name: null, total: 0 }];
  return S.players;
}
export function playerName(i) { return players()[i].name || W.playerName(i + 1); }
export function boardParams() {
  const g = S.game || {};
  return { total: players().map((p) => p.total), mover: S.current, trigger: g.trigger ?? null, sudden: !!g.sudden, variant: variantParams() };
}
export function boardKey() { return JSON.stringify(boardParams()); }
// One request per question: while an answer to `key` is awaited, asking again awaits it too (the
// page is drawn again and again meanwhile).
const asking = new Map();  // key -> the promise of its answer
function once(key, ask) {
  if (!asking.has(key)) asking.set(key, ask().finally(() => asking.delete(key)));
  return asking.get(key);
}
// The scoreboard as the server reads it (/api/scores), asked again when the totals, the player
// to move or the rules change. An answer that comes after the scoreboard changed is not kept.
export async function scores() {
  const params = boardParams();
  const key = JSON.stringify(params);
  if (ui.scoresKey === key) return ui.scores;
  const board = await once(`scores ${key}`, () => api("/api/scores", params));
  if (boardKey() === key) { ui.scores = board; ui.scoresKey = key; }
  return board;
}
// Every seat's chance of winning for the scoreboard's goal (/api/winprob, in seat order from
// the mover), asked once per goal and rules: the last answers are kept (an answer that comes
// late, or a score undone, asks nothing again).
const KEPT_CHANCES = 16;
const chancesKept = new Map();  // key -> the answer
function chancesKey(goal) { return JSON.stringify({ ...goal, variant: variantParams() }); }
export function knownChances(goal) { return chancesKept.get(chancesKey(goal)) || null; }
export async function winChances(goal) {
  const params = { ...goal, variant: variantParams() };
  const key = chancesKey(goal);
  if (chancesKept.has(key)) return chancesKept.get(key);
  const w = await once(`winprob ${key}`, () => api("/api/winprob", params));
  chancesKept.delete(key);
  chancesKept.set(key, w);
  if (chancesKept.size > KEPT_CHANCES) chancesKept.delete(chancesKept.keys().next().value);
  return w;
}
// Win for this many players: the server has their game. What /api/rules answered for the rules
// chosen (`win.players`: the game tables on the server's disk, those of other rules in its cache
// too, or the two-player game solved on demand); until it has answered, the default rules'
// /api/meta win_players, or for other rules the two-player game up to max_game_target.
function rulesWin() {
  return ui.rulesWin && ui.rulesWin.key === JSON.stringify(variantParams()) ? ui.rulesWin : null;
}
export function winCounts() {
  const known = rulesWin();
  if (known) return known.players;
  if (!Object.keys(S.variants).length) return META.win_players || [];
  const target = S.variants.target ?? META.variants.find((v) => v.name === "target").default;
  const most = META.max_game_target;
  return most !== null && most !== undefined && target <= most ? [2] : [];
}
export function winFor(n) { return winCounts().includes(n); }
// What making the three-player table of the rules chosen takes (/api/rules's `win.making`), when
// the server has none (three, four and five players are played on it); else null.
export function winMaking() { const known = rulesWin(); return known ? known.making : null; }
// How the chances of a game of `n` are found under the rules chosen (/api/rules's `win.how`:
// `exact`, and for near-optimal ones the `loss` a win answer carries), or null before it is known.
export function winHow(n) { const known = rulesWin(); return (known && known.how && known.how[String(n)]) || null; }
export function setRulesWin(variants, win) { ui.rulesWin = { key: JSON.stringify(variants), ...win }; }
// The variants chosen, in the player's words ("Target 5000"), or the default rules.
export function rulesWords() {
  const items = Object.entries(S.variants).map(([k, v]) => {
    const name = W.variantNames[k] || k;
    return typeof v === "number" ? `${name} ${v}` : `${name}${W.colon}${W.values[String(v)] || String(v)}`;
  });
  return items.length ? items.join("; ") : W.defaultRules;
}
// The question of playing to win, as the server reads the scoreboard (/api/scores's goal): the
// mover's total, the others' in seat order after the mover, the final round and who triggered
// it (numbered from the mover's 1), sudden death; null once the game is over.
export function winGoal(board) {
  return board.goal || null;
}
export async function goalParams() {
  if (S.objective === "points") return {};
  if (S.objective === "need" && S.needBeat) {  // the points that beat the leader, the mover's
    const board = await scores();
    return board.beat === null || board.beat === undefined ? {} : { need: board.beat };
  }
  if (S.objective === "need") return { need: S.need };
  const board = await scores();
  return (winFor(players().length) && winGoal(board)) || {};
}

// -- the answer in words ---------------------------------------------------------------------------

// A move as the server reads it. With the Sorceress still to use, a move is named by the dice
// it rerolls: "keep ..." would leave open whether her skull is rerolled (refused as two moves).
export function moveEntry(o, st) {
  if (o.action === "stop") return "stop";
  const free = st && st.card === "sorceress" && !st.sorceress_used;  // her skull is o.sorceress
  if (o.sorceress || free) return `reroll ${inNotation(o.reroll)}`;
  return `keep ${o.keep.length ? inNotation(o.keep) : "nothing"}`;
}
// The move of an option: the rerolled dice by number (the sentence), or named (`named`).
export function moveWords(a, o, named) {
  if (o.action === "stop") return W.stopMove(a.points);
  const keep = o.keep.length ? diceWords(o.keep) : "";
  const others = o.reroll.length - (o.sorceress ? 1 : 0);
  const rolled = named ? diceWords(o.reroll, true) : W.dice(others);
  if (o.sorceress) return W.sorceress(keep, others ? rolled : "");
  if (!keep) return W.rerollAll(named ? rolled : W.dice(others));
  return W.keepReroll(keep, rolled);
}
// A move that wins the game whatever follows (every other seat's chance 0: a stop at the target
// in sudden death), which a near-optimal answer called "estimated" (a trial of a table of four)
export function certain(o) {
  return Array.isArray(o.players) && o.players.length > 1 && o.players[0] === 1 && o.players.slice(1).every((p) => p === 0);
}
export function worth(a, o) {
  if (a.objective === "win") return certain(o) ? W.worthWinCertain(pct(o.value, 2)) : a.game && a.game.exact === false ? W.worthWinEstimated(pct(o.value, 2)) : W.worthWin(pct(o.value, 2));
  if (a.objective === "need") return W.worthNeed(pct(o.value, 1), a.need);
  return W.worthPoints(num(o.value, 1));
}
export function lostText(a, o) {
  if (o.regret <= 0) return null;
  return a.objective === "points" ? W.lostPoints(num(o.regret, 1)) : a.objective === "win" ? W.lostWin(pct(o.regret, 2)) : W.lostNeed(pct(o.regret, 1));
}
// Three or more players: each seat's chance of winning after the option (seat order from me).
export function seatsText(probabilities) {
  if (!Array.isArray(probabilities) || probabilities.length < 2) return null;
  const ps = players();
  const names = probabilities.map((p, k) => `${k === 0 ? W.you : playerName((S.current + k) % ps.length)} ${pct(p, 1)} %`);
  return W.seats(names.join(", "));
}
// How far near-optimal chances were measured from exact play (the JSON's `loss`), in a sentence.
// A bound in points to 0.1, rounded up (1.45 points off is "within 1.5", never "within 1.4").
export function bound(p) { return num(Math.ceil(Math.round(1e9 * p) / 1e6) / 10, 1); }
// A mean error in points: to 0.01, and below 0.01 to its first significant digit ("0.004",
// not "0.00", which reads as none): the command line's mean_points.
export function meanPoints(p) {
  const v = 100 * p;
  return num(v, v >= 0.01 || v <= 0 ? 2 : Math.max(2, -Math.floor(Math.log10(v))));
}
export function lossWords(loss) {
  const chances = (loss && loss.chances) || {};
  if (chances.worst === null || chances.worst === undefined) return W.notMeasured;
  // each game's size once, its targets listed ("4 players at target 500, 1000 and 2000"), as
  // the command line says it
  const targets = new Map();
  for (const m of (loss.measured || []).filter((e) => e.kind === "exact")) {
    targets.set(m.players, [...new Set([...(targets.get(m.players) || []), m.target])]);
  }
  const against = [...targets.keys()].sort((a, b) => a - b).map((n) => W.playersAt(n, targets.get(n).sort((a, b) => a - b)));
  const final = loss.final && loss.final.worst !== null && loss.final.worst !== undefined ? W.measuredFinal(bound(loss.final.worst), meanPoints(loss.final.mean)) : "";
  const played = (loss.measured || []).find((m) => m.kind === "games");
  const games = played && loss.games && loss.games.checked ? W.measuredGames(loss.games.inside, loss.games.checked, played.target) : "";
  return `${W.measured(bound(chances.worst), meanPoints(chances.mean), against)}${final}${games}`;
}

// The answer in one sentence, for the eye and the screen reader.
export function sentence(a) {
  if (a.kind === "island") return W.islandSentence(num(a.island.expected_deduction, 1), a.island.cost_per_skull);
  if (a.kind === "bust") {
    const card = cardMeta(a.card);
    if (card.battle_swords) return W.bustBattle(a.skulls, a.points);
    if (card.chest && a.chest) return W.bustChest(a.skulls, a.points);
    return W.bust(a.skulls, a.points);
  }
  const best = a.options[0];
  if (best.action === "stop") {
    // (playing to win, the stop's chance too: the rerolls' sentences give theirs)
    const then = a.objective === "need" ? W.stopNeed(a.need, best.value >= 1) : a.objective === "win" ? `, ${worth(a, best)}` : "";
    return `${W.stopMove(a.points)}${then}.`;
  }
  return `${moveWords(a, best)}: ${worth(a, best)}, ${W.bustRisk(pct(best.p_bust, 1))}.`;
}

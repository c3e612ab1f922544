// mille-sabords: what the page's modules share: the saved settings, the API, the turn followed,
// and the wording of the server's answers. Every number and every rule comes from the server's
// JSON API (the command line's --json answers; /api/scores for the scoreboard, /api/meta for
// the game's sizes); this only words them in English or French.

import { WORDS } from "./words.js";

export const FACES = ["skull", "monkey", "parrot", "sword", "coin", "diamond"];
export const DEFAULT_LETTERS = "kmpscd";  // the API's JSON always uses these
export const SKULL = 0;
export const SHOWN = 10;                 // options shown before "show all"
const STORE = "mille-sabords.v1";

export let META = null;  // /api/meta: cards, faces, letters, variants, default rules
export let W = WORDS.en;
export function setMeta(meta) { META = meta; }
export function setWords(lang) { W = WORDS[lang] || WORDS.en; }

const saved = (() => { try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch (e) { return {}; } })();
// S: what is kept in the browser (localStorage): the settings, the scoreboard, the practice game.
export const S = Object.assign({
  lang: null, mode: "table", players: null, current: 0, variants: {}, notation: "default",
  objective: "points", need: 1000, card: "captain", practice: null,
}, saved);
export function save() { try { localStorage.setItem(STORE, JSON.stringify(S)); } catch (e) { /* private mode */ } }

// ui: what the page holds while open. turn: {card, params, entries, state}, the turn followed
// (at the table or in practice), replayed by /api/turn; position: a one-off advice; scores:
// /api/scores of the scoreboard (whose turn is final, what beats the leader, the goal).
export const ui = { turn: null, position: null, pad: [0, 0, 0, 0, 0, 0], chest: [0, 0, 0, 0, 0, 0], showAll: false, tiles: [], scores: null, scoresKey: null };

// hooks.render: redraws the whole page (set by app.js, called by practice.js).
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

// -- numbers and dice in words -------------------------------------------------------------------

export function num(x, digits) {
  return x.toLocaleString(S.lang === "fr" ? "fr-FR" : "en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
}
export function pct(p, digits) { return num(100 * p, digits); }
export function counts(letters) {
  const c = [0, 0, 0, 0, 0, 0];
  for (const ch of letters || "") c[DEFAULT_LETTERS.indexOf(ch)] += 1;
  return c;
}
export function lettersOf(c) { return c.map((n, face) => DEFAULT_LETTERS[face].repeat(n)).join(""); }
export function faceWord(face, n) { return W.face[face][n === 1 ? 0 : 1]; }
function listWords(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${W.and} ${items[items.length - 1]}`;
}
export function diceWords(letters, skipSkulls) {
  const items = [];
  counts(letters).forEach((n, face) => { if (n && !(skipSkulls && face === SKULL)) items.push(`${n} ${faceWord(face, n)}`); });
  return items.length ? listWords(items) : W.nothing;
}
export function notationLetters() { return META.letters[S.notation] || META.letters.default; }
export function inNotation(letters) {  // the API's letters -> the letters of the chosen notation
  const to = notationLetters();
  return Array.from(letters || "").map((ch) => to[DEFAULT_LETTERS.indexOf(ch)]).join("");
}
export function cardName(id) { return W.cards[id] || id; }
export function cardMeta(id) { return META.cards.find((c) => c.id === id); }
export function frenchColon(text) { return S.lang === "fr" ? text.replace(/([^ ]): /g, "$1 : ") : text; }

// -- the API ---------------------------------------------------------------------------------------

export class ApiError extends Error {
  constructor(message, entry) { super(message); this.entry = entry; }
}
export async function api(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === false) continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x)); else q.append(k, String(v));
  }
  const response = await fetch(`${path}?${q}`, { headers: { accept: "application/json" } });
  let body;
  try { body = await response.json(); } catch (e) { throw new ApiError(`HTTP ${response.status}`); }
  if (!response.ok) throw new ApiError(body.error || `HTTP ${response.status}`, body.entry);
  return body;
}
export function variantParams() {
  return Object.entries(S.variants).map(([k, v]) => `${k}=${v === true ? "on" : v === false ? "off" : v}`);
}
export function showError(e) { $("error").textContent = e ? (e.message || String(e)) : ""; }

// -- the scoreboard and the objective ---------------------------------------------------------------

export function players() {
  if (!S.players) S.players = [{ name: null, total: 0 }, { name: null, total: 0 }];
  return S.players;
}
export function playerName(i) { return players()[i].name || W.playerName(i + 1); }
// A typed number of points: a whole number of the game's unit, none below 0 (a setting's value,
// not a total moved by a turn: /api/scores moves those).
export function unitsOf(text) {
  const n = Math.round((+text || 0) / META.unit);
  return n > 0 ? n * META.unit : 0;
}
// The scoreboard as the server reads it (/api/scores), asked again when the totals, the player
// to move or the rules change; `after` ({points} or {deduction}) asks for the totals after a turn.
export async function scores(after) {
  const key = JSON.stringify([players().map((p) => p.total), S.current, variantParams()]);
  const params = { total: players().map((p) => p.total), mover: S.current, variant: variantParams() };
  if (after) return api("/api/scores", { ...params, ...after });
  if (ui.scoresKey !== key) { ui.scores = await api("/api/scores", params); ui.scoresKey = key; }
  return ui.scores;
}
export async function goalParams() {
  if (S.mode === "practice" || S.objective === "points") return {};
  if (S.objective === "need") return { need: S.need };
  const board = await scores();
  return board.goal || {};
}

// -- the turn followed: its entries, replayed by the server ------------------------------------------

export function moveEntry(o) {
  if (o.action === "stop") return "stop";
  if (o.sorceress) return `reroll ${inNotation(o.reroll)}`;
  return `keep ${o.keep.length ? inNotation(o.keep) : "nothing"}`;
}
export async function newTurn(card) {
  return { card, params: { card, variant: variantParams(), notation: S.notation, ...(await goalParams()) }, entries: [], state: null };
}
export function resetTurn() {
  ui.turn = null; ui.position = null; ui.pad = [0, 0, 0, 0, 0, 0]; ui.chest = [0, 0, 0, 0, 0, 0];
  ui.showAll = false; showError(null);
}
// Ask the server for the turn's state after its entries; an entry refused is dropped (with the
// ones after it) and its message shown. Returns whether every entry was taken.
export async function replay() {
  const turn = ui.turn;
  try {
    turn.state = turn.entries.length ? await api("/api/turn", { ...turn.params, entry: turn.entries }) : null;
    showError(null);
    return true;
  } catch (e) {
    if (e.entry !== undefined) {
      turn.entries.splice(e.entry);
      turn.state = turn.entries.length ? await api("/api/turn", { ...turn.params, entry: turn.entries }).catch(() => null) : null;
    }
    showError(e);
    return false;
  }
}

// -- the answer in words ---------------------------------------------------------------------------

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
export function worth(a, o) {
  if (a.objective === "win") return W.worthWin(pct(o.value, 2));
  if (a.objective === "need") return W.worthNeed(pct(o.value, 1), a.need);
  return W.worthPoints(num(o.value, 1));
}
export function regretText(a, o) {
  return W.regret(a.objective === "points" ? num(o.regret, 1) : `${pct(o.regret, 2)} %`);
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
    return `${W.stopMove(a.points)}${a.objective === "need" ? W.stopNeed(a.need, best.value >= 1) : ""}.`;
  }
  return frenchColon(`${moveWords(a, best)}: ${worth(a, best)}, ${W.bustRisk(pct(best.p_bust, 1))}.`);
}

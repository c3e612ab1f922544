// mille-sabords: what the page's modules share: the saved settings, the API, the turn followed,
// and the wording of the server's answers. Every number comes from the server's JSON API (the
// command line's --json answers); this only words them in English or French.

import { WORDS } from "./words.js";

export const FACES = ["skull", "monkey", "parrot", "sword", "coin", "diamond"];
export const DEFAULT_LETTERS = "kmpscd";  // the API's JSON always uses these
export const SKULL = 0;
export const TIE = 1e-9;                 // the solver's tolerance for a best move
export const SHOWN = 8;                  // options shown before "show all"
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
// (at the table or in practice), replayed by /api/turn; position: a one-off advice.
export const ui = { turn: null, position: null, pad: [0, 0, 0, 0, 0, 0], chest: [0, 0, 0, 0, 0, 0], showAll: false, tiles: [] };

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
export function target() { return +(S.variants.target || META.rules.target); }
export function goalParams() {
  const ps = players();
  if (S.mode === "practice" || S.objective === "points") return {};
  if (S.objective === "need") return { need: S.need };
  if (ps.length !== 2) return {};
  const me = ps[S.current].total, opp = ps[1 - S.current].total;
  return { me, opp, final: opp >= target() };
}

// -- the turn followed: its entries, replayed by the server ------------------------------------------

export function moveEntry(o) {
  if (o.action === "stop") return "stop";
  if (isSorceress(o)) return `reroll ${inNotation(o.reroll)}`;
  return `keep ${o.keep.length ? inNotation(o.keep) : "nothing"}`;
}
export function newTurn(card) {
  return { card, params: { card, variant: variantParams(), notation: S.notation, ...goalParams() }, entries: [], state: null };
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

export function isSorceress(o) { return o.action === "reroll" && o.reroll.includes(DEFAULT_LETTERS[SKULL]); }
// The move of an option: the rerolled dice by number (the sentence), or named (`named`).
export function moveWords(a, o, named) {
  if (o.action === "stop") return W.stopMove(a.points);
  const keep = o.keep.length ? diceWords(o.keep) : "";
  const others = o.reroll.length - (isSorceress(o) ? 1 : 0);
  const rolled = named ? diceWords(o.reroll, true) : W.dice(others);
  if (isSorceress(o)) return W.sorceress(keep, others ? rolled : "");
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
    const skulls = counts(a.dice)[SKULL] + (card.skulls || 0);
    if (card.battle_swords) return W.bustBattle(skulls, a.points);
    if (card.chest && a.chest) return W.bustChest(skulls, a.points);
    return W.bust(skulls, a.points);
  }
  const best = a.options[0];
  if (best.action === "stop") {
    return `${W.stopMove(a.points)}${a.objective === "need" ? W.stopNeed(a.need, best.value >= 1) : ""}.`;
  }
  return frenchColon(`${moveWords(a, best)}: ${worth(a, best)}, ${W.bustRisk(pct(best.p_bust, 1))}.`);
}

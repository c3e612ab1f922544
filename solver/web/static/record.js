// mille-sabords: the game record the page keeps (docs/record.md): every turn scored at the table,
// with the turn helper (the card, each roll's dice and each decision, as /api/turn gives them) or
// as its points alone (a score typed in, a player passing), and the practice game's turns. A
// record is what `sabords review` and /api/review read; it is saved to a file, opened from one,
// or shared as a link when it is short.
//
// S.record: the table's game since its record began ({start: {totals, mover}, turns}); a new
// game, a total typed by hand, a player added or removed, or a turn out of seat order starts it
// again from the totals of then. Each score added keeps the record's length, so that undoing the
// score takes its turns back too.

import { $, META, S, api, hooks, playerName, players, save, say, t, ui, variantParams } from "./core.js";
import { frDe } from "./words.js";

export const FORMAT = "mille-sabords game record";
export const VERSION = 1;
const LINK_MOST = 1800;  // characters of a link that holds a whole record

// The record starts again (from the totals of the next turn scored).
export function restartRecord() { S.record = null; save(); }
export function recordLength() { return S.record ? S.record.turns.length : 0; }
// Undoing a score: the record as it was before it.
export function recordBack(length) {
  if (S.record && length !== undefined && length !== null) S.record.turns = S.record.turns.slice(0, length);
}

function nextSeat(record) {
  const turns = record.turns;
  return turns.length ? (turns[turns.length - 1].player + 1) % record.start.totals.length : record.start.mover;
}

// A turn scored at the table (before the scoreboard moves): `g` the graded turn of the turn
// helper (its card and rolls are the helper's), or an outcome alone ({outcome, points,
// deduction}: a score typed in, a pass).
export function noteTurn(player, g) {
  const n = players().length;
  if (!S.record || S.record.start.totals.length !== n || nextSeat(S.record) !== player) {
    S.record = { start: { totals: players().map((p) => p.total), mover: player }, turns: [] };
  }
  const turn = { player };
  const st = ui.state;
  if (st && st.graded === g && st.card && Array.isArray(st.rolls) && st.rolls.length) {
    turn.card = st.card;
    turn.rolls = st.rolls;
  }
  if (g.outcome === "island") turn.deduction = g.deduction || 0;
  else {
    turn.points = g.points || 0;
    if (g.outcome === "magic") turn.magic = true;
  }
  S.record.turns.push(turn);
}

// The rules of the variants chosen and their hash, as the server gives them.
async function rulesOf() {
  const r = await api("/api/rules", { variant: variantParams() });
  return { rules: r.rules, rules_hash: r.rules_hash };
}

// The table's game as a record (the totals now, with no turn, when nothing was scored).
export async function tableRecord() {
  const record = S.record && S.record.start.totals.length === players().length ? S.record
    : { start: { totals: players().map((p) => p.total), mover: S.current }, turns: [] };
  return {
    format: FORMAT, version: VERSION, ...(await rulesOf()),
    players: players().map((_, i) => ({ name: playerName(i).slice(0, 40) })),
    start: record.start, source: "the page's scoreboard", turns: record.turns,
  };
}

// The practice game as a record: against the solver (two players, the solver playing to win), or
// alone for a need. `you` and `solver`: the players' names in the page's language.
export async function practiceRecord(p, you, solver) {
  const turns = p.log.map((e) => {
    const turn = { player: p.kind === "win" ? e.who : 0, card: e.card };
    if (Array.isArray(e.rolls) && e.rolls.length) turn.rolls = e.rolls;
    if (e.outcome === "island") turn.deduction = e.deduction || 0;
    else {
      turn.points = e.points || 0;
      if (e.outcome === "magic") turn.magic = true;
    }
    return turn;
  });
  const head = { format: FORMAT, version: VERSION, ...(await rulesOf()), source: "the page's practice" };
  if (p.kind !== "win") return { ...head, players: [{ name: you }], need: p.need, turns };
  const first = p.first ?? (p.log.length ? p.log[0].who : p.mover);
  return { ...head, players: [{ name: you }, { name: solver, policy: "win" }], start: { totals: [0, 0], mover: first }, turns };
}

// -- a record to a file, from a file, as a link ---------------------------------------------------

export function saveFile(record, name) {
  const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}
export function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}
// The record in a link's fragment (never sent to a server): base64url of its JSON, or null when
// the link would be too long to share.
export function linkOf(record) {
  const bytes = new TextEncoder().encode(JSON.stringify(record));
  let text = "";
  bytes.forEach((b) => { text += String.fromCharCode(b); });
  const code = btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const link = `${location.origin}${location.pathname}#review=${code}`;
  return link.length <= LINK_MOST ? link : null;
}
// The record of a link's fragment (#review=...), or null.
export function recordOfLink(hash) {
  const m = /^#review=([A-Za-z0-9_-]+)$/.exec(hash || "");
  if (!m) return null;
  try {
    const text = atob(m[1].replace(/-/g, "+").replace(/_/g, "/"));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(text, (c) => c.charCodeAt(0))));
  } catch (e) { return { unreadable: true }; }
}

// -- a turn scored without the turn helper ---------------------------------------------------------

const QW = {
  en: { summary: "Score a turn without the helper", label: (name) => `${name}'s points this turn (a lost battle: −300)`,
    add: (name) => `Add them to ${name}`, island: "Skull Island: take them from the others",
    bad: (text, unit) => `“${text}” is not a number of points: a multiple of ${unit}, a minus before a loss.` },
  fr: { summary: "Compter un tour sans l'aide", label: (name) => `Les points ${frDe(name)} ce tour (une bataille perdue : −300)`,
    add: (name) => `Les ajouter à ${name}`, island: "Île de la Tête de Mort : les retirer aux autres",
    bad: (text, unit) => `« ${text} » n'est pas un nombre de points : un multiple de ${unit}, un moins devant une perte.` },
};
function quickPoints(signed) {
  const text = $("quick-points").value.trim().replace("\u2212", "-");
  const ok = signed ? /^-?\d+$/.test(text) : /^\d+$/.test(text);
  const n = Number(text);
  if (!ok || n % META.unit || Math.abs(n) > 100000) {
    const w = QW[S.lang] || QW.en;
    say("quick-error", w.bad($("quick-points").value.trim(), META.unit));
    $("quick-points").setAttribute("aria-invalid", "true");
    return null;
  }
  return n;
}
export function renderQuickScore() {
  const w = QW[S.lang] || QW.en;
  const name = playerName(S.current);
  say("quick-summary", w.summary);
  say("quick-label", w.label(name));
  $("quick-add").textContent = t(w.add(name));
  $("quick-island").textContent = t(w.island);
  $("quick-score").hidden = !!(S.game && S.game.over);
}
// `scoreTurn(g, done)`: the scoreboard's (board.js), which records the turn as its outcome alone,
// through app.js's question when a turn under way would be dropped.
export function quickScoreAction(scoreTurn) {
  const score = (island) => {
    say("quick-error", "");
    $("quick-points").removeAttribute("aria-invalid");
    const n = quickPoints(!island);
    if (n === null) return;
    const g = island ? { outcome: "island", deduction: n } : { outcome: "stop", points: n };
    scoreTurn(g, () => { $("quick-points").value = ""; hooks.render(); });
  };
  $("quick-add").addEventListener("click", () => score(false));
  // Enter in the points field adds them, as Enter in the dice field reads the dice
  $("quick-points").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); score(false); } });
  $("quick-island").addEventListener("click", () => score(true));
}

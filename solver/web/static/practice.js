// mille-sabords: practice. Against the solver: a whole two-player game, the solver playing to
// win (the server's game table and its policies: /api/turn with the advised move at every
// step), the page drawing the cards from a shuffled deck and rolling every die; or alone, every
// turn played for a need of N points. The player taps the dice to keep, then rerolls the others
// or stops; every decision is graded by the server in what it cost (the probability of winning,
// or of reaching N, lost against the best move), and the game ends with the worst decisions,
// their mean and their total, as Verhoeff's Yahtzee proficiency test grades a game.
//
// Everything is kept in the browser (S.practice): the deck, the totals, the turn being played
// with the dice already rolled (a roll is made once, kept before it is sent: a reload or a retry
// sends the same dice), and every grade.

import {
  $, DEFAULT_LETTERS, META, S, SKULL, W, api, cardName, diceWords, el, hooks, moveWords, pct, save, say, t, ui, variantParams, work,
} from "./core.js";
import { faceIcon } from "./faces.js";
import { gradedTable, shortMove } from "./graded.js";

const YOU = 0, SOLVER = 1;
const NEED_TURNS = 10;  // a need-N practice: this many turns
const WORST = 5;        // the worst decisions listed at the end

function randomInt(n) {
  const x = new Uint32Array(1);
  crypto.getRandomValues(x);
  return x[0] % n;  // n <= 35: the bias is below 1e-8
}
function rollDice(n) { let s = ""; for (let i = 0; i < n; i++) s += DEFAULT_LETTERS[randomInt(6)]; return s; }
function shuffled() {
  const deck = [];
  for (const c of META.cards) for (let i = 0; i < c.count; i++) deck.push(c.id);
  for (let i = deck.length - 1; i > 0; i--) { const j = randomInt(i + 1); [deck[i], deck[j]] = [deck[j], deck[i]]; }
  return deck;
}

export function newPractice() {
  const kind = S.practiceKind === "need" ? "need" : "win";
  S.practice = {
    kind, need: S.practiceNeed, deck: shuffled(), next: 0, totals: kind === "win" ? [0, 0] : [0],
    mover: kind === "win" ? randomInt(2) : YOU, game: null, turns: 0, turn: null, solverLines: [], last: null, log: [],
  };
  S.practice.first = S.practice.mover;  // who moved first, for the game's record
  ui.pstate = null; ui.tiles = [];
  save();
}
function over(p) { return p.kind === "win" ? !!(p.game && p.game.over) : p.turns >= NEED_TURNS; }
function draw(p) {
  if (p.next >= p.deck.length) { p.deck = shuffled(); p.next = 0; }
  return p.deck[p.next];
}
// The dice of the next roll: made once, kept with the turn until the server has taken them.
function pendingRoll(turn, n) {
  if (!turn.pending || turn.pending.length !== n) { turn.pending = rollDice(n); save(); }
  return turn.pending;
}
function boardParams(p) {
  const g = p.game || {};
  return { total: p.totals, mover: p.mover, trigger: g.trigger ?? null, sudden: !!g.sudden, variant: variantParams() };
}
// The goal of the turn for its player: to win from the totals (the mover's view), or in sudden
// death the points that win at once; a need-N practice, N.
async function goalOf(p) {
  if (p.kind === "need") return { need: p.need };
  const board = await api("/api/scores", boardParams(p));
  return board.goal || { need: board.beat };
}
// The turn's entries with the player's move not yet taken by the server and its dice.
function pendingEntries(turn) {
  return turn.move ? [...turn.entries, turn.move, ...(turn.pending ? [turn.pending] : [])] : turn.entries;
}
async function send(turn, entries) {
  const state = await api("/api/turn", { ...turn.params, entry: entries });
  const more = entries.length > turn.entries.length;  // not a replay of the entries kept
  turn.entries = entries;
  if (more && entries[entries.length - 1] === turn.pending) turn.pending = null;  // taken
  if (more) turn.move = null;
  ui.pstate = state;
  save();
  return state;
}

// -- a turn --------------------------------------------------------------------------------------

function startTurn() {
  const p = S.practice;
  return work(async () => {
    if (!p.turn) {
      const card = draw(p);
      const goal = await goalOf(p);
      p.turn = { who: p.mover, card, params: { card, variant: variantParams(), ...goal }, entries: [], pending: null, lines: [] };
      p.next += 1;
      save();
    }
    const turn = p.turn;
    if (!turn.entries.length) await send(turn, [pendingRoll(turn, META.dice)]);
    await afterRoll(p);
    ui.focus = "practice-status";
  });
}
function setTiles() {
  const st = ui.pstate;
  ui.tiles = st && st.dice ? Array.from(st.dice).map((ch) => ({ face: DEFAULT_LETTERS.indexOf(ch), kept: false })) : [];
}
// After a roll: Skull Island rolls on by itself, the solver plays its move, the player's
// tiles are laid; a turn over is recorded.
async function afterRoll(p) {
  const turn = p.turn;
  for (let guard = 0; guard < 64; guard++) {
    const st = ui.pstate;
    if (st.phase === "island" || st.phase === "roll") {
      await send(turn, [...turn.entries, pendingRoll(turn, st.dice_expected.length ? st.dice_expected[0] : st.rolled)]);
    } else if (st.phase === "move" && turn.who === SOLVER) {
      const best = st.advice.options[0];
      turn.lines.push(W.solverMove(st.roll, diceWords(st.dice), moveWords(st.advice, best, true)));
      await send(turn, best.action === "stop" ? [...turn.entries, ""] : [...turn.entries, "", pendingRoll(turn, best.reroll.length)]);
    } else break;
  }
  if (ui.pstate.phase === "move") setTiles();
  if (ui.pstate.phase === "over") await record(p);
}
function sorceressFree() { return S.practice.turn.card === "sorceress" && !ui.pstate.sorceress_used; }
function playerMove(stop) {
  const p = S.practice, turn = p.turn;
  let entry = "stop", rolled = 0;
  if (!stop) {
    const letters = (pick) => ui.tiles.filter(pick).map((x) => DEFAULT_LETTERS[x.face]).join("");
    // a rescue (three skulls, the Sorceress unused) goes on only by her reroll: one skull
    const rescue = ui.pstate.advice && ui.pstate.advice.kind === "rescue";
    const skull = ui.tiles.some((x) => x.face === SKULL && x.kept);
    const rerolled = (rescue && !skull ? DEFAULT_LETTERS[SKULL] : "")
      + letters((x) => (x.face === SKULL ? skull && x.kept : !x.kept));
    const kept = letters((x) => x.face !== SKULL && x.kept);
    rolled = rerolled.length;
    // with the Sorceress unused (as in a rescue, or with her skull chosen) a move is named by
    // the dice rerolled: "keep ..." would leave open whether her skull is rerolled, two moves,
    // which the server refuses; nothing kept is named by the dice rerolled too
    entry = !kept || sorceressFree() ? `reroll ${rerolled}` : `keep ${kept}`;
  }
  turn.move = entry;  // kept with the dice it rerolls until the server has taken both
  if (!stop) pendingRoll(turn, rolled); else turn.pending = null;
  save();
  return work(async () => {
    await send(turn, pendingEntries(turn));
    await afterRoll(p);
    ui.focus = p.turn ? null : "practice-status";  // the move ended the turn: its result
  });
}
// The turn over: the totals moved as the rules say (the server's), the player's grades kept.
async function record(p) {
  const turn = p.turn, g = ui.pstate.graded;
  const outcome = g.outcome === "island" ? { deduction: g.deduction } : { points: g.points || 0 };
  const entry = { who: turn.who, card: turn.card, params: turn.params, entries: turn.entries, outcome: g.outcome, points: g.points, deduction: g.deduction, skulls: g.island_skulls, graded: turn.who === YOU ? g : null, lines: turn.lines, rolls: ui.pstate.rolls };
  if (p.kind === "win") {
    const after = await api("/api/scores", { ...boardParams(p), ...outcome, magic: g.outcome === "magic" });
    p.totals = after.totals; p.mover = after.mover;
    p.game = { trigger: after.trigger, sudden: after.sudden, over: after.over, winners: after.winners, won: after.won };
  }
  p.turns += 1;
  p.log.push(entry);
  p.last = entry;
  p.turn = null;
  ui.pstate = null; ui.tiles = [];
  save();
}

// -- drawing -------------------------------------------------------------------------------------

function renderTiles() {
  const st = ui.pstate;
  const p = S.practice;
  const moving = !!(st && st.phase === "move" && p.turn && p.turn.who === YOU);
  $("tiles").replaceChildren(...(moving ? ui.tiles : []).map((x, i) => {
    const face = W.face[x.face][0];
    const b = el("button", { type: "button", class: `tile${x.face === SKULL ? " skull" : ""}`, "aria-pressed": String(!!x.kept) },
      faceIcon(x.face), el("span", { "aria-hidden": "true", text: face }));
    if (x.face === SKULL) {
      const free = sorceressFree();
      b.disabled = !free;
      b.setAttribute("aria-label", t(free ? W.tileSorceress(face, x.kept) : W.tileSkull(face)));
      b.addEventListener("click", () => { ui.tiles.forEach((y, j) => { if (y.face === SKULL && j !== i) y.kept = false; }); x.kept = !x.kept; renderTiles(); $("tiles").children[i].focus(); });
    } else {
      b.setAttribute("aria-label", t(W.tileLabel(face, x.kept)));
      b.addEventListener("click", () => { x.kept = !x.kept; renderTiles(); $("tiles").children[i].focus(); });
    }
    return b;
  }));
  say("tiles-label", moving ? W.tilesHelp : "");
  $("practice-moves").hidden = !moving;
  $("practice-stop").disabled = !(moving && st.advice.options.some((o) => o.action === "stop"));
}
function whoName(who) { return who === YOU ? W.you : W.solver; }
function standing(p) {
  if (p.kind === "need") return W.needStanding(p.need, p.turns, NEED_TURNS, p.log.filter((e) => (e.points || 0) >= p.need).length);
  return W.standing(p.totals[YOU], p.totals[SOLVER]);
}
function status(p) {
  const st = ui.pstate;
  if (over(p)) return p.kind === "win" ? W.practiceWinner(p.game.winners.map(whoName), p.totals) : W.needOver(p.need, p.log.filter((e) => (e.points || 0) >= p.need).length, p.turns);
  if (p.turn && st) {
    const goal = p.turn.params.need !== undefined ? W.playingFor(p.turn.params.need) : p.turn.params.final ? W.finalTurnShort : "";
    // and the dice showing, which a screen reader hears here (the tiles are buttons below)
    const dice = st.dice && (st.phase === "move" || st.phase === "island") ? ` ${W.showing(st.phase === "island" ? p.turn.entries.length : st.roll, diceWords(st.dice))}` : "";
    return `${W.practiceTurn(p.turns + 1, whoName(p.turn.who), cardName(p.turn.card), goal)}${dice}`;
  }
  // between turns: how the last one ended, then who plays (the status is what is read out)
  return p.turns ? `${p.last ? `${resultText(p.last)} ` : ""}${W.practiceNext(whoName(p.mover))}` : W.practiceStart(whoName(p.mover));
}
function resultText(e) {
  return e.outcome === "island" ? W.resultIsland(whoName(e.who), e.skulls, e.deduction) : e.outcome === "magic" ? W.resultMagic(whoName(e.who), e.points) : e.outcome === "bust" ? W.resultBust(whoName(e.who), e.points) : W.resultStop(whoName(e.who), e.points);
}
function lastTurnView(p) {
  const e = p.last;
  if (!e) return [];
  const out = [];
  const result = resultText(e);
  out.push(el("h3", { text: t(W.lastTurn(whoName(e.who), cardName(e.card))) }));
  if (e.lines.length) out.push(el("ol", { class: "solver-lines" }, ...e.lines.map((line) => el("li", { text: t(line) }))));
  out.push(el("p", { class: "status", text: t(result) }));
  if (e.graded) out.push(...gradedTable(e.graded, W.yourGrades));
  return out;
}
function decisionsOf(p) {
  const out = [];
  p.log.forEach((e, turn) => { if (e.graded) e.graded.decisions.forEach((d) => out.push({ ...d, turn: turn + 1, card: e.card })); });
  return out;
}
function summary(p) {
  const decisions = decisionsOf(p);
  if (!decisions.length && !over(p)) return [];
  const unit = p.kind === "win" ? W.unitWin : W.unitNeed;
  const total = decisions.reduce((a, d) => a + d.cost, 0);
  const rows = [[W.practiceTurns, String(p.turns)], [W.practiceDecisions, String(decisions.length)],
    [W.practiceTotal(unit), pct(total, 2)], [W.practiceMean(unit), decisions.length ? pct(total / decisions.length, 3) : "–"]];
  const out = [el("h3", { text: t(over(p) ? W.practiceGraded : W.practiceSoFar) }),
    el("table", { class: "practice" }, el("tbody", {}, ...rows.map(([k, v]) => el("tr", {}, el("th", { scope: "row", text: t(k) }), el("td", { class: "num", text: v })))))];
  if (over(p)) {
    const worst = decisions.filter((d) => d.cost > 0).sort((a, b) => b.cost - a.cost).slice(0, WORST);
    out.push(el("h3", { text: t(W.worstHeading) }));
    if (!worst.length) out.push(el("p", { text: t(W.noMistake) }));
    else out.push(el("ol", { class: "decisions worst" }, ...worst.map((d) => el("li", { class: "decision" },
      el("div", { class: "roll", text: t(W.worstWhere(d.turn, cardName(d.card), d.roll, diceWords(d.dice))) }),
      el("div", { text: t(W.yours(shortMove(d.chosen))) }),
      el("div", { text: t(W.bestIs(shortMove(d.best))) }),
      el("div", { class: "cost", text: t(W.cost(pct(d.cost, 2), unit)) })))));
  }
  out.push(el("p", { class: "note", text: t(W.meanNote) }));
  return out;
}

export function renderPractice() {
  const practice = S.mode === "practice";
  $("practice-section").hidden = !practice;
  if (!practice) return;
  if (!S.practice) newPractice();
  const p = S.practice;
  say("practice-status", status(p));
  say("practice-standing", standing(p));
  const idle = !p.turn || over(p);
  $("practice-setup").hidden = !(over(p) || (!p.turns && !p.turn));
  for (const k of ["win", "need"]) $(`practice-${k}`).checked = S.practiceKind === k;
  $("practice-need-field").hidden = S.practiceKind !== "need";
  if ($("practice-need-n") !== document.activeElement) $("practice-need-n").value = String(S.practiceNeed);
  renderTiles();
  const next = $("practice-next");
  next.hidden = !idle || over(p);
  next.textContent = t(p.mover === SOLVER && p.kind === "win" ? W.solverPlays : p.turns ? W.yourTurn : W.firstTurn);
  $("practice-resume").hidden = !(p.turn && !ui.pstate);
  $("practice-last").replaceChildren(...(p.turn ? [] : lastTurnView(p)));
  $("practice-summary").replaceChildren(...summary(p));
}
export function resumePractice() {  // a reload: the turn kept, replayed by the server
  const p = S.practice;
  if (!p || !p.turn) return;
  if (!p.turn.entries.length) { startTurn(); return; }  // its first roll, made and kept
  work(async () => {
    try {
      await send(p.turn, pendingEntries(p.turn));  // a move not yet answered: with its dice
    } catch (e) {  // the move refused (not a failed request): the turn as it was, to move again
      if (!p.turn.move || ["offline", "busy", "http", "internal"].includes(e.kind)) throw e;
      p.turn.move = null; p.turn.pending = null; save();
      await send(p.turn, p.turn.entries);
    }
    if (ui.pstate.phase === "move") setTiles(); else await afterRoll(p);
  });
}
export function practiceAction() {
  $("practice-next").addEventListener("click", startTurn);
  $("practice-resume").addEventListener("click", resumePractice);
  $("practice-new").addEventListener("click", () => {
    const text = $("practice-need-n").value.trim();
    if (S.practiceKind === "need" && (!/^\d+$/.test(text) || Number(text) % META.unit)) {
      say("practice-need-error", W.badNeed(text, META.unit)); return;
    }
    const n = Number(text);
    if (S.practiceKind === "need") S.practiceNeed = n;
    newPractice(); hooks.render(); $("practice-next").focus();
  });
  for (const k of ["win", "need"]) $(`practice-${k}`).addEventListener("change", () => { S.practiceKind = k; save(); hooks.render(); });
  $("practice-reroll").addEventListener("click", () => playerMove(false));
  $("practice-stop").addEventListener("click", () => playerMove(true));
}

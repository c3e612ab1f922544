// mille-sabords: practice alone. The page draws the card from a shuffled 35-card deck and rolls
// the dice itself; the player taps the dice to keep, then rerolls the others or stops. The
// server follows and grades every turn (/api/turn), and the page sums the whole practice game:
// the mean cost per decision, as Verhoeff's Yahtzee proficiency test reports it.

import {
  $, DEFAULT_LETTERS, META, S, SKULL, W, api, cardName, el, frenchColon, hooks, inNotation,
  newTurn, num, replay, resetTurn, save, ui, variantParams,
} from "./core.js";
import { faceIcon } from "./faces.js";

function randomInt(n) {
  const x = new Uint32Array(1);
  crypto.getRandomValues(x);
  return x[0] % n;  // n <= 35: the bias is below 1e-8
}
function rollDice(n) { let s = ""; for (let i = 0; i < n; i++) s += DEFAULT_LETTERS[randomInt(6)]; return s; }

export function newPractice() {
  const deck = [];
  for (const c of META.cards) for (let i = 0; i < c.count; i++) deck.push(c.id);
  for (let i = deck.length - 1; i > 0; i--) { const j = randomInt(i + 1); [deck[i], deck[j]] = [deck[j], deck[i]]; }
  S.practice = { deck, next: 0, total: 0, turns: [], reached: false };
  save();
  resetTurn();
}
function finished(p) { return p.reached || p.next >= p.deck.length; }

export async function practiceTurn() {
  if (!S.practice || finished(S.practice)) newPractice();
  const p = S.practice;
  const card = p.deck[p.next];
  p.next += 1;
  save();
  ui.turn = await newTurn(card);
  ui.turn.entries.push(inNotation(rollDice(META.dice)));
  await replay();
  await islandRolls();
  setTiles();
  hooks.render();
  $("practice-status").focus({ preventScroll: false });
}
async function islandRolls() {  // Skull Island: no decision, the page rolls until it ends
  const turn = ui.turn;
  for (let guard = 0; turn.state && turn.state.phase === "island" && guard < 16; guard++) {
    turn.entries.push(inNotation(rollDice(turn.state.rolled)));
    if (!(await replay())) break;
  }
  if (turn.state && turn.state.phase === "over") await record();
}
function setTiles() {
  const st = ui.turn && ui.turn.state;
  ui.tiles = st && st.dice ? Array.from(st.dice).map((ch) => ({ face: DEFAULT_LETTERS.indexOf(ch), kept: false })) : [];
}
function sorceressFree() { return ui.turn.card === "sorceress" && !ui.turn.state.sorceress_used; }

function renderTiles() {
  const st = ui.turn && ui.turn.state;
  const moving = !!(st && st.phase === "move");
  $("tiles").replaceChildren(...ui.tiles.map((t, i) => {
    const face = W.face[t.face][0];
    const b = el("button", { type: "button", class: `tile${t.face === SKULL ? " skull" : ""}`, "aria-pressed": String(!!t.kept) },
      faceIcon(t.face), el("span", { "aria-hidden": "true", text: face }));
    if (t.face === SKULL) {
      const free = moving && sorceressFree();
      b.disabled = !free;
      b.setAttribute("aria-label", free ? W.tileSorceress(face, t.kept) : W.tileSkull(face));
      b.addEventListener("click", () => { ui.tiles.forEach((x, j) => { if (x.face === SKULL && j !== i) x.kept = false; }); t.kept = !t.kept; renderTiles(); $("tiles").children[i].focus(); });
    } else {
      b.disabled = !moving;
      b.setAttribute("aria-label", W.tileLabel(face, t.kept));
      b.addEventListener("click", () => { t.kept = !t.kept; renderTiles(); $("tiles").children[i].focus(); });
    }
    return b;
  }));
  $("tiles-label").textContent = moving ? W.tilesHelp : "";
  $("practice-reroll").hidden = $("practice-stop").hidden = !moving;
  $("practice-stop").disabled = !(moving && st.advice.options.some((o) => o.action === "stop"));
}

export async function practiceMove(stop) {
  const turn = ui.turn;
  let entry = "stop";
  if (!stop) {
    const letters = (pick) => ui.tiles.filter(pick).map((t) => DEFAULT_LETTERS[t.face]).join("");
    if (ui.tiles.some((t) => t.face === SKULL && t.kept)) {  // the Sorceress rerolls the skull tapped
      entry = `reroll ${inNotation(letters((t) => (t.face === SKULL ? t.kept : !t.kept)))}`;
    } else {
      const kept = letters((t) => t.face !== SKULL && t.kept);
      entry = `keep ${kept ? inNotation(kept) : "nothing"}`;
    }
  }
  turn.entries.push(entry);
  if (!(await replay())) { hooks.render(); return; }
  if (turn.state.phase === "roll") {
    turn.entries.push(inNotation(rollDice(turn.state.dice_expected[0])));
    await replay();
    setTiles();
  }
  if (turn.state.phase === "over") await record();
  hooks.render();
}
async function record() {  // the practice game's total after the turn, as the rules move it
  const turn = ui.turn, g = turn.state.graded, p = S.practice;
  if (turn.recorded) return;
  turn.recorded = true;
  const board = await api("/api/scores", { total: [p.total], points: g.points || 0, variant: variantParams() });
  p.total = board.totals[0];
  p.reached = board.at_target.length > 0;
  p.turns.push({ card: turn.card, points: g.points || 0, decisions: g.decisions.length, cost: g.total_cost });
  save();
}

export function renderPractice() {
  const practice = S.mode === "practice";
  $("practice-section").hidden = !practice;
  if (!practice) return;
  if (!S.practice) newPractice();
  const p = S.practice, st = ui.turn && ui.turn.state;
  $("practice-status").textContent = st
    ? frenchColon(W.practiceStatus(p.turns.length + (st.phase === "over" ? 0 : 1), p.deck.length - p.next, cardName(ui.turn.card)))
    : W.practiceStart;
  renderTiles();
  const over = !st || st.phase === "over";
  $("practice-next").hidden = !over || finished(p);
  $("practice-next").textContent = p.turns.length || st ? W.nextTurn : W.firstTurn;
  $("practice-new").hidden = !over;
  $("practice-summary").replaceChildren(...summary(p));
}
function summary(p) {
  if (!p.turns.length) return [];
  const decisions = p.turns.reduce((a, t) => a + t.decisions, 0);
  const cost = p.turns.reduce((a, t) => a + t.cost, 0);
  const rows = [[W.practiceTurns, String(p.turns.length)], [W.practicePoints, String(p.total)],
    [W.practiceDecisions, String(decisions)], [W.practiceCost, num(cost, 1)],
    [W.practiceMean, decisions ? num(cost / decisions, 2) : "–"]];
  const out = [el("h3", { text: W.practiceSummary }),
    el("table", { class: "practice" }, el("tbody", {}, ...rows.map(([k, v]) => el("tr", {}, el("th", { scope: "row", text: k }), el("td", { class: "num", text: v }))))),
    el("p", { class: "note", text: W.meanNote })];
  if (finished(p)) out.unshift(el("p", { class: "done", text: frenchColon(W.practiceOver(p.total)) }));
  return out;
}

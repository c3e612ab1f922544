// mille-sabords: the advisor's page. Hand-written ES modules, no build step, no dependency.
// This module draws the page and reads the player's taps: the scoreboard, the turn's card and
// objective, the rules, the dice pad, the ranked options, the turn followed and graded.
// core.js holds the state, the API and the wording; practice.js the practice game.

import {
  $, FACES, META, S, SHOWN, W, api, cardMeta, cardName, diceWords, el, frenchColon,
  hooks, inNotation, lettersOf, moveEntry, moveWords, newTurn,
  notationLetters, num, pct, playerName, players, regretText, replay, resetTurn, save, scores,
  sentence, setMeta, setWords, showError, ui, unitsOf, variantParams, worth,
} from "./core.js";
import { faceIcon } from "./faces.js";
import { newPractice, practiceMove, practiceTurn, renderPractice } from "./practice.js";

// -- the scoreboard -------------------------------------------------------------------------------

function renderBoard() {
  const ps = players();
  S.current = Math.min(S.current, ps.length - 1);
  $("players").replaceChildren(...ps.map((p, i) => {
    const now = i === S.current;
    const b = el("button", { type: "button", "aria-current": String(now), "aria-label": W.playerRow(playerName(i), p.total, now) },
      el("span", { text: (now ? "▶ " : "") + playerName(i) }), el("span", { text: String(p.total) }));
    b.addEventListener("click", () => { S.current = i; save(); renderAll(); });
    return el("li", {}, b);
  }));
  // the fields are rebuilt only when the players or the language change, so that typing a
  // total and moving on (Tab) keeps the focus where it goes
  const fields = $("player-fields");
  const shape = `${ps.length} ${S.lang}`;
  if (fields.dataset.shape === shape) {
    fields.querySelectorAll(".player-fields").forEach((row, i) => {
      const [name, total_] = row.querySelectorAll("input");
      if (name !== document.activeElement) name.value = ps[i].name || "";
      if (total_ !== document.activeElement) total_.value = String(ps[i].total);
      row.querySelector("button").setAttribute("aria-label", W.remove(playerName(i)));
    });
    return;
  }
  fields.dataset.shape = shape;
  fields.replaceChildren(...ps.map((p, i) => {
    const name = el("input", { type: "text", value: p.name || "", placeholder: W.playerName(i + 1), "aria-label": W.nameOf(i + 1) });
    name.addEventListener("change", () => { p.name = name.value.trim() || null; save(); renderAll(); });
    const total = el("input", { type: "number", step: String(META.unit), min: "0", inputMode: "numeric", value: String(p.total), "aria-label": W.totalOf(i + 1) });
    total.addEventListener("change", () => { p.total = unitsOf(total.value); save(); renderAll(); });
    const remove = el("button", { type: "button", text: "✕", "aria-label": W.remove(playerName(i)), disabled: ps.length <= 1 });
    remove.addEventListener("click", () => { ps.splice(i, 1); save(); renderAll(); });
    return el("div", { class: "player-fields" }, name, total, remove);
  }));
}
// -- the objective --------------------------------------------------------------------------------

function renderObjective() {
  const ps = players();
  if (ps.length !== 2 && S.objective === "win") S.objective = "points";
  for (const id of ["points", "need", "win"]) $(`obj-${id}`).checked = S.objective === id;
  $("obj-win").disabled = ps.length !== 2;
  $("need-field").hidden = S.objective !== "need";
  $("need").value = String(S.need);
  $("win-field").hidden = S.objective !== "win";
  $("many-players").hidden = ps.length <= 2;
  $("many-players").textContent = W.manyPlayers;
  // what the rules make of the scoreboard (the final turn, what beats the leader): the server's
  scores().then(renderScores).catch(showError);
}
function renderScores(board) {
  const ps = players();
  if (ps.length === 2 && board.goal) {
    const me = S.current, opp = 1 - S.current;
    $("win-totals").textContent = frenchColon(W.winTotals(playerName(me), ps[me].total, playerName(opp), ps[opp].total, board.goal.final));
  }
  const beat = $("beat-leader");
  beat.hidden = !(ps.length > 2 && board.beat !== null);
  if (!beat.hidden) {
    beat.textContent = frenchColon(W.beatLeader(board.beat, playerName(board.leader)));
    beat.onclick = () => { S.objective = "need"; S.need = board.beat; save(); resetTurn(); renderAll(); };
  }
}

// -- the rules ------------------------------------------------------------------------------------

function renderVariants() {
  $("variants").replaceChildren(...META.variants.map((v) => {
    let input;
    if (v.choices.length) {
      input = el("select", {}, ...v.choices.map((c) => el("option", { value: String(c), text: W.values[String(c)] || String(c) })));
    } else {
      input = el("input", { type: "number", step: String(META.unit), min: String(META.unit), inputMode: "numeric" });
    }
    input.id = `v-${v.name}`;
    input.value = String(v.name in S.variants ? S.variants[v.name] : v.default);
    input.addEventListener("change", () => {
      let x = input.value;
      if (typeof v.default === "boolean") x = x === "true";
      else if (typeof v.default === "number") x = Math.round(+x || v.default);
      if (x === v.default) delete S.variants[v.name]; else S.variants[v.name] = x;
      save(); resetTurn(); renderAll(); updateRules();
    });
    return el("div", { class: "field" }, el("label", { htmlFor: `v-${v.name}`, text: W.variantNames[v.name] || v.name }), input);
  }));
}
async function updateRules() {
  try {
    const r = await api("/api/rules", { variant: variantParams() });
    $("rules-summary").textContent = `${r.description === "default rules" ? W.defaultRules : r.description} · ${r.rules_hash}`;
  } catch (e) { showError(e); }
}

// -- the dice pads ----------------------------------------------------------------------------------

function expected() {
  const st = ui.turn && ui.turn.state;
  if (!st || st.phase === "move" || st.phase === "over") return [META.dice];
  return st.dice_expected.length ? st.dice_expected : [META.dice];
}
const total = (c) => c.reduce((a, b) => a + b, 0);
// One row per face: the letter, a large button adding a die (its name says the face and the
// count), a button taking one off. `most(face)`: the largest count the face may reach.
function padRows(padId, c, faces, most, addLabel, subLabel, changed) {
  const letters = notationLetters();
  return faces.map((face) => {
    const add = el("button", { type: "button", class: "add", "data-face": String(face), "aria-label": addLabel(face, c[face]), disabled: c[face] >= most(face) },
      faceIcon(face), el("span", { class: "name", text: W.face[face][1] }), el("span", { class: "n", text: String(c[face]) }));
    add.addEventListener("click", () => { c[face] += 1; changed(); focusFace(padId, face, "add"); });
    const sub = el("button", { type: "button", class: "sub", "data-face": String(face), text: "−", "aria-label": subLabel(face, c[face]), disabled: c[face] === 0 });
    sub.addEventListener("click", () => { c[face] -= 1; changed(); focusFace(padId, face, "sub"); });
    return el("div", { class: "face" }, el("span", { class: "letter", "aria-hidden": "true", text: letters[face] }), add, sub);
  });
}
function focusFace(padId, face, kind) {
  const find = (k) => $(padId).querySelector(`button.${k}[data-face="${face}"]`);
  const b = find(kind);
  if (b && !b.disabled) b.focus(); else { const other = find(kind === "add" ? "sub" : "add"); if (other) other.focus(); }
}
function renderPad() {
  const want = expected(), most = Math.max(...want), fewest = Math.min(...want);
  const pad = ui.pad, n = total(pad);
  $("pad").replaceChildren(...padRows("pad", pad, FACES.map((_, f) => f), (face) => pad[face] + most - n, W.add, W.sub, renderPad));
  $("dice-count").textContent = W.count(n, want.length > 1 && n > fewest ? most : fewest);
  $("typed-label").textContent = W.typedLabel(notationLetters());
  $("go").disabled = !want.includes(n);
  // the chest card, a position in the middle of a turn: the dice on the chest, among the dice
  const chest = ui.chest;
  const room = (face) => Math.min(chest[face] + META.dice - total(chest), n ? pad[face] : META.dice);
  FACES.forEach((_, f) => { chest[f] = Math.min(chest[f], n ? pad[f] : META.dice); });
  $("chest-pad").replaceChildren(...padRows("chest-pad", chest, [1, 2, 3, 4, 5], room, W.chestAdd, W.chestSub, renderPad));
  $("chest-count").textContent = W.chestCount(total(chest));
}
function padLetters() { return inNotation(lettersOf(ui.pad)); }

// -- the answer -----------------------------------------------------------------------------------

function renderAdvice(a, where) {
  $("answer-section").hidden = !a;
  if (!a) return;
  $("sentence").textContent = frenchColon(sentence(a));
  $("position-line").textContent = frenchColon(where);
  $("notes").replaceChildren(...a.notes.map((n) => {
    const text = W.notes[n.code];
    return el("li", { text: text === undefined ? n.text : typeof text === "function" ? text(diceWords(n.keep)) : text });
  }));
  $("rules-line").textContent = frenchColon(W.rulesLine(Object.keys(S.variants).length ? variantParams().join(", ") : W.defaultRules, a.rules_hash));
  const options = a.options;
  const canTake = !!(ui.turn && ui.turn.state && ui.turn.state.phase === "move" && S.mode === "table");
  const shown = ui.showAll ? options : options.slice(0, SHOWN);
  $("options").replaceChildren(...shown.map((o, i) => optionItem(a, o, i, options, canTake)));
  $("more").hidden = ui.showAll || options.length <= SHOWN;
  $("more").textContent = W.moreOptions(options.length);
}
function optionItem(a, o, i, options, canTake) {
  const parts = [worth(a, o)];
  if (a.objective === "win" && o.expected_points !== null && o.expected_points !== undefined) parts.push(W.worthPoints(num(o.expected_points, 1)));
  if (o.action !== "stop") parts.push(W.bustRisk(pct(o.p_bust, 1)));
  parts.push(regretText(a, o));
  const badges = el("div", { class: "badges" });
  const tied = o.ties;  // the ranks of the options of the same value, the server's
  if (o.best) badges.append(el("span", { class: "badge best", text: `★ ${W.best}` }));
  if (tied.length) badges.append(el("span", { class: "badge tie", text: W.tie(tied.slice(0, 3).join(", ") + (tied.length > 3 ? "…" : "")) }));
  const li = el("li", { class: `option${o.best ? " best" : ""}` },
    el("div", { class: "move", text: `${i + 1}. ${frenchColon(moveWords(a, o, true))}` }),
    el("div", { class: "figures", text: frenchColon(parts.join(" · ")) }));
  const foot = el("div", { class: "foot" }, badges);
  if (canTake) {
    const take = el("button", { type: "button", text: W.take, class: o.best ? "take primary" : "take", "aria-label": frenchColon(W.takeLabel(i + 1, moveWords(a, o, true))) });
    take.addEventListener("click", () => choose(o));
    foot.append(take);
  }
  li.append(foot);
  return li;
}

// -- following a turn -------------------------------------------------------------------------------

async function enterDice(text) {
  if (!ui.turn) ui.turn = await newTurn($("card").value);
  ui.turn.entries.push(text);
  const ok = await replay();
  if (!ui.turn.entries.length) ui.turn = null;
  if (ok) { ui.pad = [0, 0, 0, 0, 0, 0]; ui.showAll = false; }
  renderAll();
  if (ok) focusAfter();
}
async function choose(o) {
  ui.turn.entries.push(moveEntry(o));
  await replay();
  ui.showAll = false;
  renderAll();
  focusAfter();
}
function focusAfter() {  // where the eye and the screen reader go next
  const st = ui.turn && ui.turn.state;
  const id = !st ? "dice-h" : st.phase === "move" ? "sentence" : st.phase === "over" ? "turn-status" : "dice-h";
  const target_ = $(id);
  target_.scrollIntoView({ block: "start" });
  target_.focus({ preventScroll: true });
}
async function adviseOnce() {
  const typed = $("typed").value.trim();
  const text = total(ui.pad) ? padLetters() : typed;
  const card = $("card").value;
  try {
    const turn = await newTurn(card);
    ui.position = await api("/api/advise", {
      ...turn.params, dice: text, first: false,
      sorceress_used: card === "sorceress" && $("sorceress-used").checked,
      chest: card === "chest" && total(ui.chest) ? inNotation(lettersOf(ui.chest)) : null,
    });
    $("typed").value = "";
    showError(null);
  } catch (e) { ui.position = null; showError(e); }
  ui.showAll = false;
  renderAll();
  if (ui.position) focusAfter();
}
function midTurn() { return !ui.turn && $("not-first").checked; }
function go() {
  if (midTurn()) { adviseOnce(); return; }
  ui.position = null;
  enterDice(padLetters());
}
function typedDice() {
  const text = $("typed").value.trim();
  if (!text) return;
  if (midTurn()) { ui.pad = [0, 0, 0, 0, 0, 0]; adviseOnce(); return; }
  $("typed").value = "";
  ui.position = null;
  enterDice(text);
}
function lastMove(st) {
  const d = st.graded.decisions;
  return d.length ? d[d.length - 1].chosen : null;
}
function renderTurn() {
  const turn = ui.turn, st = turn && turn.state;
  const practice = S.mode === "practice";
  $("setup").disabled = !!(turn && turn.entries.length);
  $("card-field").hidden = practice;
  $("objective-field").hidden = practice;
  const phase = st ? st.phase : "roll";
  $("dice-section").hidden = practice || phase === "move" || phase === "over";
  $("position-box").hidden = !!(turn && turn.entries.length);
  const card = $("card").value;
  $("sorceress-field").hidden = card !== "sorceress";
  $("chest-field").hidden = card !== "chest";
  if (!st) $("dice-h").textContent = W.roll1;
  else if (phase === "island") $("dice-h").textContent = frenchColon(W.island(st.rolled));
  else $("dice-h").textContent = frenchColon(W.rollN(st.roll + 1, st.rolled));
  $("dice-stays").textContent = st && st.stays.length ? frenchColon(W.stays(diceWords(st.stays))) : "";
  $("go").textContent = midTurn() ? W.goPosition : st ? W.goEnter : W.goAdvise;
  // the advice: of the position showing while a move is awaited, or of a one-off position
  let where = "";
  if (st && phase === "move") {
    where = W.showing(st.roll, diceWords(st.dice));
    if (st.chest !== null && cardMeta(turn.card).chest) where += ` ${W.onChest(diceWords(st.chest))}`;
  } else if (ui.position) where = W.position(diceWords(ui.position.dice));
  renderAdvice(st ? (phase === "move" && !practice ? st.advice : null) : ui.position, where);
  // the turn's status and its grading
  $("turn-section").hidden = !st;
  if (!st) return;
  $("undo").hidden = practice;
  $("undo").disabled = !turn.entries.length;
  const g = st.graded;
  let status = W.status[phase] || "";
  const moved = lastMove(st);
  if (phase === "roll" && moved && st.advice) status = `${W.moved(moveWords(st.advice, moved, true))} ${status}`;
  if (phase === "island") status = `${W.islandGoes(g.island_skulls)} ${status}`;
  if (phase === "over") status = W.over[g.outcome === "magic" ? "magic" : g.outcome](g.outcome === "island" ? g.island_skulls : g.points, g.deduction);
  $("turn-status").textContent = frenchColon(status);
  $("graded").replaceChildren(...(phase === "over" ? gradedTable(g) : []));
  const scoreButton = $("score-turn");
  scoreButton.hidden = practice || phase !== "over";
  if (!scoreButton.hidden) {
    const name = playerName(S.current);
    scoreButton.textContent = frenchColon(g.outcome === "island" ? W.islandScore(g.deduction, name) : W.addScore(g.points, name));
  }
  $("new-turn").hidden = practice;
}
// The graded turn: each decision taken, the best one, and its cost; then the turn's cost.
export function gradedTable(g) {
  const out = [el("h3", { text: W.graded })];
  if (!g.decisions.length) { out.push(el("p", { text: W.gradedNone })); return out; }
  const points = g.unit === "points";
  const unit = points ? W.unitPoints : W.unitPercent;
  const amount = (x) => (points ? num(x, 1) : pct(x, 2));
  out.push(el("ol", { class: "decisions" }, ...g.decisions.map((d) => el("li", { class: d.best_move ? "decision best" : "decision" },
    el("div", { class: "roll", text: frenchColon(W.decision(d.roll, diceWords(d.dice))) }),
    el("div", { text: frenchColon(W.yours(shortMove(d.chosen))) }),
    d.best_move ? el("div", { class: "took-best", text: W.tookBest })
      : el("div", {}, el("div", { text: frenchColon(W.bestIs(shortMove(d.best))) }),
        el("div", { class: "cost", text: frenchColon(W.cost(amount(d.cost), unit)) }))))));
  out.push(el("p", { class: "total-cost", text: frenchColon(W.totalCost(amount(g.total_cost), unit)) }));
  return out;
}
function shortMove(o) { return o.action === "stop" ? W.stop : frenchColon(moveWords({ points: null }, o, true)); }
async function scoreTurn() {
  const g = ui.turn.state.graded;
  let after;
  try {  // the totals after the turn and the next player, as the rules move them: the server's
    after = await scores(g.outcome === "island" ? { deduction: g.deduction } : { points: g.points });
  } catch (e) { showError(e); return; }
  players().forEach((p, i) => { p.total = after.totals[i]; });
  S.current = after.mover;
  save(); resetTurn(); renderAll();
  $("board-h").scrollIntoView({ block: "start" });
}

// -- the whole page ---------------------------------------------------------------------------------

function applyWords() {
  document.documentElement.lang = S.lang;
  for (const e of document.querySelectorAll("[data-t]")) { const v = W[e.dataset.t]; if (typeof v === "string") e.textContent = v; }
  for (const e of document.querySelectorAll("[data-t-label]")) { const v = W[e.dataset.tLabel]; if (typeof v === "string") e.setAttribute("aria-label", v); }
  const lang = $("lang");
  lang.textContent = W.langButton;
  lang.lang = S.lang === "fr" ? "en" : "fr";
  const select = $("card");
  const chosen = select.value || S.card;
  select.replaceChildren(...META.cards.map((c) => el("option", { value: c.id, text: cardName(c.id) })));
  select.value = chosen;
  $("notation").value = S.notation;
  renderVariants();
}
function renderAll() {
  $("mode-table").setAttribute("aria-pressed", String(S.mode === "table"));
  $("mode-practice").setAttribute("aria-pressed", String(S.mode === "practice"));
  $("board-section").hidden = S.mode !== "table";
  renderBoard();
  renderObjective();
  renderTurn();
  renderPad();
  renderPractice();
}
hooks.render = renderAll;
function setLang(lang) { S.lang = lang; setWords(lang); save(); applyWords(); renderAll(); updateRules(); }
function changed(update) { return () => { update(); save(); resetTurn(); renderAll(); }; }

async function start() {
  setMeta(await (await fetch("/api/meta")).json());
  if (!S.lang) S.lang = (navigator.languages || [navigator.language || "en"]).find((l) => /^(fr|en)\b/i.test(l))?.slice(0, 2).toLowerCase() || "en";
  setWords(S.lang);
  $("version").textContent = `mille-sabords ${META.version}`;
  applyWords();
  $("loading").hidden = true;
  $("lang").addEventListener("click", () => setLang(S.lang === "fr" ? "en" : "fr"));
  $("mode-table").addEventListener("click", changed(() => { S.mode = "table"; }));
  $("mode-practice").addEventListener("click", changed(() => { S.mode = "practice"; if (!S.practice) newPractice(); }));
  $("next-player").addEventListener("click", () => { S.current = (S.current + 1) % players().length; save(); renderAll(); });
  $("add-player").addEventListener("click", () => { players().push({ name: null, total: 0 }); save(); renderAll(); });
  $("new-game").addEventListener("click", changed(() => { players().forEach((p) => { p.total = 0; }); S.current = 0; }));
  $("card").addEventListener("change", changed(() => { S.card = $("card").value; }));
  for (const id of ["points", "need", "win"]) $(`obj-${id}`).addEventListener("change", changed(() => { S.objective = id; }));
  $("need").addEventListener("change", changed(() => { S.need = unitsOf($("need").value); }));
  $("notation").addEventListener("change", changed(() => { S.notation = $("notation").value; }));
  $("not-first").addEventListener("change", () => { ui.position = null; renderAll(); });
  $("sorceress-used").addEventListener("change", () => { ui.position = null; renderAll(); });
  $("clear").addEventListener("click", () => { ui.pad = [0, 0, 0, 0, 0, 0]; ui.chest = [0, 0, 0, 0, 0, 0]; $("typed").value = ""; renderPad(); });
  $("go").addEventListener("click", go);
  $("typed-go").addEventListener("click", typedDice);
  $("typed").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); typedDice(); } });
  $("more").addEventListener("click", () => { ui.showAll = true; renderAll(); });
  $("undo").addEventListener("click", async () => {
    if (!ui.turn) return;
    ui.turn.entries.pop();
    await replay();
    if (!ui.turn.entries.length) ui.turn = null;
    renderAll();
  });
  $("new-turn").addEventListener("click", () => { resetTurn(); renderAll(); });
  $("score-turn").addEventListener("click", scoreTurn);
  $("practice-next").addEventListener("click", practiceTurn);
  $("practice-new").addEventListener("click", () => { newPractice(); renderAll(); });
  $("practice-reroll").addEventListener("click", () => practiceMove(false));
  $("practice-stop").addEventListener("click", () => practiceMove(true));
  for (const id of ["sentence", "dice-h", "turn-status"]) $(id).tabIndex = -1;
  for (const id of ["board-section", "setup-section"]) $(id).hidden = false;
  renderAll();
  updateRules();
  document.body.dataset.ready = "true";
}

start().catch(showError);

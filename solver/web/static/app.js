// mille-sabords: the advisor's page. Hand-written ES modules, no build step, no dependency.
// This module draws the page and reads the player's taps: the turn's card and objective, the
// rules, the dice pad, the ranked options, the turn followed and graded. store.js keeps what a
// reload resumes, core.js holds the API and the wording, board.js the scoreboard, practice.js
// the practice game against the solver.

import {
  $, FACES, META, S, SHOWN, W, api, capital, cardMeta, cardName, clearFieldErrors, diceWords, el, guardTaps,
  boardKey, counts, DEFAULT_LETTERS, goalParams, hooks, inNotation, notationLetters, SKULL, knownChances, lettersOf, lostText, moveEntry, moveWords, num, pct, playerName,
  lossWords, players, save, savedMeta, say, scores, seatsText, sentence, setMeta, setWords, showError, t, ui,
  rulesWords, setRulesWin, variantParams, winChances, winCounts, winFor, winGoal, winHow, winMaking, work, worth,
} from "./core.js";
import { answerConfirm, boardStatus, chancesNote, fieldError, MOST_PLAYERS, newGame, nextPlayer, paintChances, points, renderBoard, renderConfirm, scoreTurn, turnUnderWay, undoScore, ask } from "./board.js";
import { faceIcon } from "./faces.js";
import { gradedTable } from "./graded.js";
import { practiceAction, renderPractice, resumePractice } from "./practice.js";
import { quickScoreAction, renderQuickScore } from "./record.js";
import { renderReview, reviewAction } from "./review.js";
import { WORDS } from "./words.js";

const zeros = () => [0, 0, 0, 0, 0, 0];

// -- the objective --------------------------------------------------------------------------------

function renderObjective() {
  const ps = players();
  const over = !!(S.game && S.game.over);
  const winOk = winFor(ps.length) && !over;
  // Win set aside while it cannot answer (the game over, a table it lacks) comes back with it:
  // undoing the winning score left the page on points, silently (a blind player's trial)
  if (!winOk && S.objective === "win") { S.objective = "points"; S.winKept = true; }
  else if (winOk && S.winKept && S.objective === "points") { S.objective = "win"; S.winKept = false; }
  for (const id of ["points", "need", "win"]) $(`obj-${id}`).checked = S.objective === id;
  $("obj-win").disabled = !winOk;
  $("need-field").hidden = S.objective !== "need";
  if ($("need") !== document.activeElement && !$("need").getAttribute("aria-invalid")) $("need").value = String(S.need);
  $("win-field").hidden = S.objective !== "win";
  const making = ps.length >= 3 ? winMaking() : null;
  const note = over ? W.winOver : !winFor(ps.length) ? (making ? W.winNeedsThree(ps.length, making) : winCounts().length || !Object.keys(S.variants).length ? W.winPlayers(ps.length, winCounts(), Object.keys(S.variants).length > 0) : W.winTarget(META.max_game_target)) : "";
  say("many-players", note);
  $("many-players").hidden = !note;
  // every seat's chance on the scoreboard: none once the game is over or without Win, and why
  const key = boardKey();
  if (over) showChances({ key, note: W.chancesOver });
  else if (!winOk) showChances({ key, note: `${W.noChances} ${note}` });
  // what the rules make of the scoreboard (the final turn, what beats the leader, every seat's
  // chance): the server's, drawn if the scoreboard is still the one asked about
  if (chancesAgain && chancesAgain.key !== key) noRetry();  // (another question now)
  askScores(key, winOk);
}
function askScores(key, winOk) {
  scores().then((board) => { if (boardKey() === key) renderScores(board, key); }).catch((e) => {
    if (winOk && boardKey() === key) chancesFailed(key, e, () => askScores(key, winOk));
  });
}
// Chances that did not come for want of an answer (offline, the server busy, a gateway's 502 to
// 504: not the server's own 503s, which say it has no table, or a solve that stopped, which
// asking again would start again) are asked again while the scoreboard is the one asked about:
// after 1, 2, 4 ... 32 s (at least the server's Retry-After), and at once when the device comes
// back online. Meanwhile the failure stays said, with when it is asked again; when the answer
// comes, the note's place stays (empty) until the scoreboard changes: nothing moves with no
// tap. (Before: nothing was asked again until the player tapped.) The note's "in N s" counts
// down, once a second: the note is no live region, so nothing is read aloud as it counts; a
// screen reader that reads the note reads the seconds left.
const CHANCES_RETRIES = 6;
let chancesAgain = null;  // { key, attempt, error, again, timer, tick }: the failure and its retry
function noRetry() {
  if (chancesAgain) { clearTimeout(chancesAgain.timer); clearInterval(chancesAgain.tick); }
  chancesAgain = null;
}
function countDown() {
  const c = ui.chances;
  if (!chancesAgain || !c || !c.due || c.key !== chancesAgain.key) return;
  const note = chancesNote(c);
  if ($("chances-note").textContent !== t(note)) say("chances-note", note);
}
function chancesFailed(key, e, again) {
  // (one request shares its failure with every render that asked meanwhile: counted once)
  if (chancesAgain && chancesAgain.key === key && chancesAgain.error === e) return;
  const attempt = chancesAgain && chancesAgain.key === key ? chancesAgain.attempt + 1 : 0;
  noRetry();
  const unanswered = e.kind === "offline" || e.kind === "busy" || (e.kind === "http" && e.status >= 502 && e.status <= 504);
  // (after the last retry, only the device's return online asks again)
  const wait = unanswered && attempt < CHANCES_RETRIES ? Math.max(e.retryAfter || 0, 2 ** attempt) : null;
  // (the deadline read before the timers start: no tick finds more seconds left than it should)
  const due = wait ? Date.now() + 1000 * wait : null;
  if (unanswered) {
    const timer = wait && setTimeout(() => retryChances(key), 1000 * wait);
    const tick = wait && wait > 1 ? setInterval(countDown, 1000) : null;
    chancesAgain = { key, attempt, error: e, again, timer, tick };
  }
  const why = e.kind === "busy" ? W.chancesBusy : capital(e.message || String(e));
  showChances({ key, error: why, again: wait, due });
}
function retryChances(key) {
  if (chancesAgain && chancesAgain.key === key) {  // (the count ends, asked or not)
    clearInterval(chancesAgain.tick);
    chancesAgain.tick = null;
  }
  if (!chancesAgain || chancesAgain.key !== key || boardKey() !== key || S.mode !== "table") return;
  chancesAgain.timer = null;
  chancesAgain.again();
}
function chancesOnline() {
  if (!chancesAgain || boardKey() !== chancesAgain.key || S.mode !== "table") return;
  clearTimeout(chancesAgain.timer);
  chancesAgain.attempt = -1;  // (retries afresh if this fails too)
  retryChances(chancesAgain.key);
}
function renderScores(board, key) {
  const ps = players();
  sayNew("board-status", boardStatus());  // the final round, as the server now says
  const beat = $("beat-leader");
  beat.hidden = !(board.beat !== null && board.beat !== undefined && !(winFor(ps.length) && winGoal(board)));
  if (!beat.hidden) {
    beat.textContent = t(board.sudden ? W.winAtOnce(board.beat) : W.beatLeader(board.beat, playerName(board.leader)));
    beat.onclick = () => { S.objective = "need"; S.needBeat = true; S.winKept = false; S.need = board.beat; save(); resetTurn(); hooks.render(); };
  }
  // the points that beat the leader are each player's own: asked again for the player to play
  if (S.objective === "need" && S.needBeat && !S.turn) {
    if (board.beat === null || board.beat === undefined) { S.objective = "points"; S.needBeat = false; save(); hooks.render(); return; }
    if (S.need !== board.beat) { S.need = board.beat; save(); hooks.render(); return; }
  }
  const goal = winGoal(board);
  if (!goal || !winFor(ps.length) || S.mode !== "table") {  // (practice: not this table's game)
    // no chance to come: said why, unless it already is (the game over, Win not offered)
    const c = ui.chances && ui.chances.key === key ? ui.chances : {};
    if (!c.note) showChances(S.mode !== "table" ? { key, none: true } : { key, note: board.over ? W.chancesOver : W.noChances });
    return;
  }
  // the mover's win question in words (Win's line), then every seat's chance, the same answer
  // (in the words of the moment: the language may have changed while the answer came)
  const others = () => goal.opp.map((x, k) => `${playerName((board.mover + k + 1) % ps.length)} ${x}`);
  const text = () => W.winTotals(playerName(board.mover), goal.me, others(), goal.final, goal.sudden);
  const line = (w) => { if (S.objective === "win") winLine(text(), w, ps.length); };
  const known = knownChances(goal);
  line(known);
  if (known) { noRetry(); showChances({ key, w: known, mover: board.mover }); return; }
  // (asked again after a failure: the failure stays said until the answer)
  const failed = ui.chances && ui.chances.key === key && ui.chances.error;
  if (!failed) showChances({ key, pending: true });
  const ask = () => winChances(goal).then((w) => {
    if (boardKey() !== key) return;  // the scoreboard has changed since: its own answer comes
    noRetry();
    showChances({ key, w, mover: board.mover });
    line(w);
  }).catch((e) => {
    if (boardKey() !== key) return;
    // (Win's line no longer busy: its totals are read, the failure said under the scoreboard)
    $("win-totals").setAttribute("aria-busy", "false");
    chancesFailed(key, e, ask);
  });
  ask();
}
// (a live region written only when its words change: a question asked again with no tap is
// not read out again)
function sayNew(id, text) { if ($(id).textContent !== t(text || "")) say(id, text); }
// (the chances of the scoreboard asked about: a failure's note that its answer replaces keeps
// its place, empty, until the scoreboard changes)
function showChances(chances) {
  const was = ui.chances && ui.chances.key === chances.key ? ui.chances : null;
  if (was && chances.w && (was.room || was.error)) chances.room = was.room || chancesNote(was);
  ui.chances = chances;
  paintChances();
}
// Win's line: the mover's totals, then their chance, which keeps its place while it comes: the
// sentence the answer will say (exact or near-optimal, as the server said of these rules), its
// number "00.0", neither shown nor read; the number and its "%" never apart, and the number
// with hidden zeros glued to the sentence's last word always five characters (digits are all
// as wide), so the line wraps the same before and after: the dice pad below stays put when the
// chance comes (it moved a line down after "Next player"). With a card of the deck picked, the
// chance on drawing it follows (the answer's `cards`: `sabords winprob`'s "after drawing"),
// its place kept the same way, both numbers' hidden zeros at the line's end (after the first
// sentence they showed as a gap before the second). A live region, written only where its
// words change: a card picked adds its sentence alone, read alone (the whole line was read
// again at each card).
const SLOT = 5;  // "100.0"
function winLine(text, w, n) {
  const exact = w ? w.exact !== false : (winHow(n) || { exact: n <= 3 }).exact;
  const card = S.card && (cardMeta(S.card) || {}).count > 0 ? S.card : null;
  const drawn = w && card && w.cards ? w.cards[card] : undefined;
  // (a card the answer has no chance for, none shown: its place is not kept either)
  const withCard = !!card && (!w || drawn !== undefined);
  const now = chanceNumber(w ? w.win : null);
  const box = $("win-totals");
  const said = JSON.stringify([S.lang, text, exact, now]);
  if (box.dataset.said !== said) {
    box.dataset.said = said;
    box.dataset.card = "";
    // while its chance comes, busy, so that it is read once, with its chance (it was read
    // twice after each score, without the chance and then with it)
    box.setAttribute("aria-busy", String(!w));
    box.replaceChildren(t(text), " ", chanceWords(exact ? W.chanceNow : W.chanceNowNear, w ? w.win : null, "win-chance", 0),
      el("span", { class: "card-part" }));
  }
  const cardSaid = JSON.stringify([S.lang, withCard ? card : null, drawn === undefined ? null : pct(drawn, 1)]);
  if (box.dataset.card === cardSaid) return;
  box.dataset.card = cardSaid;
  box.querySelector(".win-chance .pct-pad").textContent = withCard ? "" : "0".repeat(Math.max(0, SLOT - now.length));
  box.querySelector(".card-part").replaceChildren(...(withCard ? [" ", chanceWords(W.chanceWithCard, w ? drawn : null, "card-chance", SLOT - now.length)] : []));
}
function chanceNumber(p) { return p !== null && p !== undefined ? pct(p, 1) : `0${pct(0, 1)}`; }  // (its place: "00.0")
// One sentence of Win's line with its chance `p` (null: coming, its place kept), in a span of
// class `cls` ("coming" added while it comes); `more` hidden zeros after its own.
function chanceWords(words, p, cls, more) {
  const mark = "\u0001";
  const [before, after] = t(words(mark)).split(mark);
  const number = chanceNumber(p);
  const [, percent, rest] = after.match(/^(\s*%)([^]*)$/);
  const pad = el("span", { class: "pct-pad", "aria-hidden": "true", text: "0".repeat(Math.max(0, SLOT - number.length) + more) });
  const cut = rest.lastIndexOf(" ");  // (the sentence's last word, with the padding)
  const tail = cut < 0 ? [] : [rest.slice(0, cut + 1)];
  const last = cut < 0 ? rest : rest.slice(cut + 1);
  const chance = el("span", { class: "nowrap" }, el("span", { class: "pct-slot", text: number }), percent, ...(cut < 0 ? [last, pad] : []));
  return el("span", { class: p !== null && p !== undefined ? cls : `${cls} coming` },
    before, chance, ...tail, ...(cut < 0 ? [] : [el("span", { class: "nowrap" }, last, pad)]));
}
// -- the rules ------------------------------------------------------------------------------------

function renderVariants() {
  $("variants").replaceChildren(...META.variants.map((v) => {
    let input;
    const error = `v-${v.name}-error`;
    if (v.choices.length) {
      input = el("select", {}, ...v.choices.map((c) => el("option", { value: String(c), text: W.values[String(c)] || String(c) })));
    } else {
      input = el("input", { type: "text", inputMode: "numeric", autocomplete: "off", "aria-describedby": v.name === "target" ? "target-error" : error });
    }
    input.id = `v-${v.name}`;
    input.value = String(v.name in S.variants ? S.variants[v.name] : v.default);
    input.addEventListener("change", () => {
      let x = input.value;
      clearFieldErrors();
      if (typeof v.default === "boolean") x = x === "true";
      else if (typeof v.default === "number") {
        x = points(x, META.unit, META.max_target);
        if (x === null) { fieldError("target", W.badTarget(input.value, META.unit, META.max_target)); input.setAttribute("aria-invalid", "true"); return; }
      }
      if (x === v.default) delete S.variants[v.name]; else S.variants[v.name] = x;
      save(); resetTurn(); hooks.render(); updateRules();
    });
    const parts = [el("label", { htmlFor: `v-${v.name}`, text: W.variantNames[v.name] || v.name }), input];
    if (v.name === "target") parts.push(el("p", { id: "target-error", class: "field-error", "aria-live": "assertive" }));
    return el("div", { class: "field" }, ...parts);
  }));
}
// What the server makes of the rules chosen (their hash, Win for how many players). An answer
// that did not come (offline, busy, the server's fault) is asked again a few seconds later
// while the rules are still these: else Win would stay unknown for them until the next change.
// One question at a time: a new call (other rules, the language) ends the retries of the last.
const RULES_RETRIES = 6;  // asked again after 1, 2, 4 ... 32 s: about a minute in all
let rulesAsked = 0;
async function updateRules(attempt = 0, asked = ++rulesAsked) {
  const variants = variantParams();
  const current = () => asked === rulesAsked && JSON.stringify(variantParams()) === JSON.stringify(variants);
  try {
    const r = await api("/api/rules", { variant: variants });
    if (!current()) return;  // an answer for rules no longer chosen
    say("rules-summary", rulesWords());
    say("rules-hash", W.rulesHash(r.rules_hash));
    if (r.win) { setRulesWin(variants, r.win); renderObjective(); }
  } catch (e) {
    if (!current()) return;
    say("rules-summary", rulesWords());
    // asked again only if no answer came (the rules refused are refused again)
    const unanswered = e.kind === "offline" || e.kind === "busy" || (e.status !== null && e.status >= 500);
    if (!unanswered || attempt >= RULES_RETRIES) return;
    const wait = 1000 * Math.min(60, Math.max(e.retryAfter || 0, 2 ** attempt));
    setTimeout(() => { if (current()) updateRules(attempt + 1, asked); }, wait);
  }
}

// -- the dice pads ----------------------------------------------------------------------------------

function expected() {
  const st = ui.state;
  if (!S.turn || !st || st.phase === "move" || st.phase === "over") return [META.dice];
  return st.dice_expected.length ? st.dice_expected : [META.dice];
}
const total = (c) => c.reduce((a, b) => a + b, 0);
// One row per face: the letter, a large button adding a die (its name says the face and the
// count), a button taking one off. `most(face)`: the largest count the face may reach.
function padRows(padId, c, faces, most, addLabel, subLabel, changed) {
  const letters = notationLetters();
  return faces.map((face) => {
    const add = el("button", { type: "button", class: "add", "data-face": String(face), "aria-label": t(addLabel(face, c[face])), disabled: c[face] >= most(face) },
      faceIcon(face), el("span", { class: "name", text: W.face[face][1] }), el("span", { class: "n", text: String(c[face]) }));
    add.addEventListener("click", () => { c[face] += 1; ui.tapped = true; changed(); focusFace(padId, face, "add"); });
    const sub = el("button", { type: "button", class: "sub", "data-face": String(face), text: "−", "aria-label": t(subLabel(face, c[face])), disabled: c[face] === 0 });
    sub.addEventListener("click", () => { c[face] -= 1; ui.tapped = true; changed(); focusFace(padId, face, "sub"); });
    return el("div", { class: "face" }, el("span", { class: "letter", "aria-hidden": "true", text: letters[face] }), add, sub);
  });
}
function focusFace(padId, face, kind) {
  const find = (k) => $(padId).querySelector(`button.${k}[data-face="${face}"]`);
  const b = find(kind);
  if (b && !b.disabled) b.focus(); else { const other = find(kind === "add" ? "sub" : "add"); if (other) other.focus(); }
}
// The dice mended on the pad: an error about the dice typed before is no longer about them (it
// stayed, read as the pad's: a blind player's trial)
function padChanged() {
  S.pad = ui.pad; save();
  if ($("dice-error").textContent) { say("dice-error", ""); $("typed").removeAttribute("aria-invalid"); }
  renderPad();
}
function renderPad() {
  const want = expected(), most = Math.max(...want), fewest = Math.min(...want);
  const pad = ui.pad, n = total(pad);
  $("pad").replaceChildren(...padRows("pad", pad, FACES.map((_, f) => f), (face) => pad[face] + most - n, W.add, W.sub, padChanged));
  // the counts are read aloud as a die is tapped, not when the pad empties after an answer
  // ("0 of 8 dice" followed every answer and the end of the turn)
  for (const id of ["dice-count", "chest-count"]) $(id).setAttribute("aria-live", ui.tapped ? "polite" : "off");
  ui.tapped = false;
  // (3 dice tapped where 2 were rerolled: "3 of 8 dice" and Enter disabled said no why)
  say("dice-count", want.length > 1 && n > fewest && n < most ? W.countEither(n, fewest, most)
    : W.count(n, want.length > 1 && n > fewest ? most : fewest));
  say("typed-label", W.typedLabel(notationLetters()));
  $("go").disabled = !want.includes(n);
  // the chest card, a position in the middle of a turn: the dice on the chest, among the dice
  const chest = ui.chest;
  const room = (face) => Math.min(chest[face] + META.dice - total(chest), n ? pad[face] : META.dice);
  FACES.forEach((_, f) => { chest[f] = Math.min(chest[f], n ? pad[f] : META.dice); });
  $("chest-pad").replaceChildren(...padRows("chest-pad", chest, [1, 2, 3, 4, 5], room, W.chestAdd, W.chestSub, renderPad));
  say("chest-count", W.chestCount(total(chest)));
}
function padLetters() { return inNotation(lettersOf(ui.pad)); }

// -- the answer -----------------------------------------------------------------------------------

const NOTE_ORDER = ["chest_ignored", "chest_unknown", "chest_on_stop", "chest_keep"];
function renderAdvice(a, where) {
  $("answer-section").hidden = !a;
  if (!a) return;
  say("sentence", sentence(a));
  say("position-line", where);
  const notes = [...a.notes].sort((x, y) => NOTE_ORDER.indexOf(x.code) - NOTE_ORDER.indexOf(y.code));
  const near = a.game && a.game.exact === false ? [nearNote(a.game.loss)] : [];
  // a bust or Skull Island, playing to win: every seat's chance after it (the turn that moves
  // them most said none: a blind player's trial), as the command line's `players` line
  const seats = !(a.options || []).length ? seatsText(a.players) : null;
  const after = seats ? [el("li", { text: t(W.afterTurn(seats)) })] : [];
  const items = [...after, ...near, ...notes.map((n) => {
    const text = W.notes[n.code];
    return el("li", { text: t(text === undefined ? n.text : typeof text === "function" ? text(diceWords(n.keep)) : text) });
  })];
  // drawn again only when its words change: a tap on the near-optimal note's summary keeps its
  // focus through the renders that follow (a screen reader's place on the page)
  const said = items.map((li) => li.textContent).join("\n");
  if ($("notes").dataset.said !== said) { $("notes").replaceChildren(...items); $("notes").dataset.said = said; }
  say("rules-line", W.rulesLine(rulesWords()));
  say("answer-hash", W.rulesHash(a.rules_hash));
  const options = a.options || [];
  const canTake = !!(S.turn && ui.state && ui.state.phase === "move");
  const shown = ui.showAll ? options : options.slice(0, SHOWN);
  $("options").replaceChildren(...shown.map((o, i) => optionItem(a, o, i, canTake)));
  $("more").hidden = ui.showAll || options.length <= SHOWN;
  $("more").textContent = t(W.moreOptions(options.length));
}
// Near-optimal advice in a word, what was measured of it a tap away (open as the player left
// it: the notes are drawn again at every render)
function nearNote(loss) {
  const box = el("details", { class: "near-note", open: !!ui.nearOpen },
    el("summary", { text: t(W.nearOptimalAdvice) }), el("p", { class: "note", text: t(W.nearOptimalWhy(lossWords(loss))) }));
  box.addEventListener("toggle", () => { ui.nearOpen = box.open; });
  return el("li", { class: "near" }, box);
}
function optionItem(a, o, i, canTake) {
  const parts = [worth(a, o)];
  if (a.objective === "win" && o.expected_points !== null && o.expected_points !== undefined) parts.push(W.worthPoints(num(o.expected_points, 1)));
  if (o.action !== "stop") parts.push(W.bustRisk(pct(o.p_bust, 1)));
  const lost = lostText(a, o);
  if (lost) parts.push(lost);
  const badges = el("div", { class: "badges" });
  const tied = o.ties;  // the ranks of the options of the same value, the server's
  // (the star for the eye: "black star" is noise to a screen reader; ", " between the badges
  // for it, which ran them together: "meilleurà égalité")
  if (o.best) badges.append(el("span", { class: "badge best" }, el("span", { "aria-hidden": "true", text: "★ " }), W.best));
  if (o.best && tied.length) badges.append(el("span", { class: "sr-only", text: ", " }));
  if (tied.length) badges.append(el("span", { class: "badge tie", text: t(W.tie(tied.slice(0, 3).join(", ") + (tied.length > 3 ? "…" : ""))) }));
  const li = el("li", { class: `option${o.best ? " best" : ""}` },
    el("div", { class: "move", text: t(`${i + 1}. ${moveWords(a, o, true)}`) }),
    el("div", { class: "figures", text: t(parts.join(" · ")) }));
  const seats = seatsText(o.players);
  if (seats) li.append(el("div", { class: "figures seats", text: t(seats) }));
  const foot = el("div", { class: "foot" }, badges);
  if (canTake) {
    const take = el("button", { type: "button", text: W.take, class: o.best ? "take primary" : "take", "aria-label": t(`${W.takeLabel(i + 1, moveWords(a, o, true))}, ${worth(a, o)}`) });  // (what it is worth: a blind player tabbing through the buttons heard the moves alone)
    take.addEventListener("click", () => choose(o));
    foot.append(take);
  }
  li.append(foot);
  return li;
}

// -- following a turn -------------------------------------------------------------------------------

// A turn is the player's to play at the scoreboard's totals (`board`): its chances are in that
// seat order, and are named after it.
async function newTurn() {
  return { card: S.card, board: boardKey(), params: { card: S.card, variant: variantParams(), notation: S.notation, ...(await goalParams()) }, entries: [] };
}
// Once the scoreboard moves on (a score added or undone, another player to play, a player
// added), a turn followed or a position asked is another seat order's: dropped. (An old turn's
// chances were shown under the names of the next player's seat order.)
function dropStale() {
  if (S.mode !== "table") return;
  const key = boardKey();
  if (S.turn && S.turn.board !== undefined && S.turn.board !== key) resetTurn();
  if (ui.position && ui.positionBoard !== key) ui.position = null;
}
// The notation changed while a turn is followed: its entries written again in the new letters,
// from the rolls the server read (the 8 dice showing after each and the move that followed, in
// the API's letters), each move as solver/advice/review.py enters a record's; kept only if the
// server reads the same turn from them. Otherwise the turn stays in its letters (the page reads
// and shows those until the next turn).
function entriesOf(rolls) {
  const out = [];
  for (const r of rolls) {
    out.push(inNotation(r.dice));
    if (r.stop) out.push("stop");
    if (r.stop || r.keep === undefined) continue;
    const rest = counts(r.dice), keep = counts(r.keep);
    rest[SKULL] = 0;
    keep.forEach((n, face) => { rest[face] -= n; });
    const rerolled = lettersOf(rest) + (r.sorceress ? DEFAULT_LETTERS[SKULL] : "");
    out.push(rerolled ? `reroll ${inNotation(rerolled)}` : `keep ${inNotation(r.keep)}`);
  }
  return out;
}
function renotateTurn() {
  const turn = S.turn, st = ui.state;
  if (!turn || !st || !turn.entries.length || turn.params.notation === S.notation) return;
  const was = turn.params.notation;
  work(async () => {
    turn.params.notation = S.notation;  // (inNotation writes the new letters)
    let state = null;
    try {
      const entries = entriesOf(st.rolls);
      state = await api("/api/turn", { ...turn.params, entry: entries });
      if (JSON.stringify(state.rolls) !== JSON.stringify(st.rolls) || state.phase !== st.phase) { state = null; return; }
      turn.entries = entries;
      ui.state = state;
      ui.island = null;
      await islandAdvice();
    } finally {
      if (!state) turn.params.notation = was;
      save();
    }
  });
}
export function resetTurn() {
  ui.resuming = false;
  S.turn = null; ui.state = null; ui.island = null; ui.position = null; ui.pad = zeros(); ui.chest = zeros(); S.pad = null;
  ui.showAll = false; showError(null); save();
}
// One more entry of the turn (the dice of a roll, a move): asked of the server with the entries
// so far; kept only when the server has taken it (a refused or unanswered entry records nothing).
function addEntry(entry, after) {
  return work(async () => {
    const turn = S.turn || await newTurn();
    const entries = [...turn.entries, entry];
    const state = await api("/api/turn", { ...turn.params, entry: entries });
    turn.entries = entries;
    S.turn = turn;
    ui.state = state;
    await islandAdvice();
    ui.position = null;
    ui.showAll = false;
    if (after) after();
    save();
    ui.focus = focusAfter();
  });
}
function enterDice(text) {
  if (!S.card) { fieldError("card", W.pickCard); $("card").focus(); return; }
  addEntry(text, () => { ui.pad = zeros(); S.pad = null; $("typed").value = ""; });
}
function choose(o) { addEntry(moveEntry(o, ui.state)); }
function focusAfter() {  // where the eye and the screen reader go next
  const st = ui.state;
  return !st ? "dice-h" : st.phase === "move" ? "sentence" : st.phase === "over" ? "turn-status" : "dice-h";
}
function undoEntry() {
  if (!S.turn) return;
  const entries = S.turn.entries.slice(0, -1);
  // (the turn's only entry undone: the turn starts again, the focus on its first roll, where it
  // fell to the page's body, nothing said: a blind player's trial)
  if (!entries.length) { resetTurn(); ui.focus = "dice-h"; hooks.render(); return; }
  work(async () => {
    ui.state = await api("/api/turn", { ...S.turn.params, entry: entries });
    S.turn.entries = entries;
    save();
  });
}
// A reload: the turn kept, replayed by the server. "The entries are kept: replayed when the
// server answers" is said only when the server is slow to answer (offline, say): it was said on
// every reload, just before the turn itself (a blind player's trial).
// (window.sabordsResumeQuiet: a test's own wait)
const RESUME_QUIET_MS = 2000;
function resumeTurn(quiet = false) {
  ui.resuming = false;
  if (!S.turn || !S.turn.entries.length) return;
  ui.resuming = quiet;
  // slow: the status alone is written (a whole render while the request is out would draw
  // enabled controls in place of the disabled ones)
  const slow = quiet && setTimeout(() => {
    ui.resuming = false;
    if (S.turn && !ui.state) say("turn-status", W.waiting(S.turn.entries.length));
  }, window.sabordsResumeQuiet || RESUME_QUIET_MS);
  work(async () => {
    try {
      ui.state = await api("/api/turn", { ...S.turn.params, entry: S.turn.entries });
      await islandAdvice();
      ui.focus = focusAfter();
    } finally { clearTimeout(slow); ui.resuming = false; }
  });
}
// Skull Island: its advice, each opponent's expected loss from the skulls showing now, as
// `sabords advise --first` says it of those dice (the island's later rolls: the loss from
// there; before, the first roll's figure stayed, under the dice of a later roll).
async function islandAdvice() {
  const st = ui.state;
  if (!st || st.phase !== "island") { ui.island = null; return; }
  if (!ui.island || ui.island.dice !== st.dice) ui.island = await api("/api/advise", { ...S.turn.params, dice: inNotation(st.dice), first: true });  // (in the letters of the turn's notation)
}
function adviseOnce(text) {
  if (!S.card) { fieldError("card", W.pickCard); return; }
  const card = S.card;
  work(async () => {
    const turn = await newTurn();
    ui.positionBoard = boardKey();
    ui.position = await api("/api/advise", {
      ...turn.params, dice: text, first: false,
      sorceress_used: card === "sorceress" && $("sorceress-used").checked,
      chest: card === "chest" && total(ui.chest) ? inNotation(lettersOf(ui.chest)) : null,
    });
    $("typed").value = "";
    ui.showAll = false;
    ui.focus = "sentence";
  });
}
function midTurn() { return !S.turn && $("not-first").checked; }
function go() {
  if (midTurn()) { adviseOnce(total(ui.pad) ? padLetters() : $("typed").value.trim()); return; }
  enterDice(padLetters());
}
// Typed dice that count a face more times than the game has dice ("9 singes"): the page says
// so itself (no notation has a die count above the number of dice).
function tooManyDice(text) {
  const most = Math.max(0, ...Array.from(text.matchAll(/\d+/g), (m) => Number(m[0])));
  if (most <= META.dice) return false;
  fieldError("dice", W.tooManyDice(text, META.dice));
  $("typed").setAttribute("aria-invalid", "true");
  return true;
}
function typedDice() {
  const text = $("typed").value.trim();
  if (!text) return;
  clearFieldErrors();
  if (tooManyDice(text)) return;
  if (midTurn()) { adviseOnce(text); return; }
  enterDice(text);
}
// A score in words ("Add 300 points to Anne", "Take 300 points from Anne", "Skull Island: take
// 300 points from each opponent of Anne"): the turn's button, a quick score's question.
function scoreWords(g, name) {
  return g.outcome === "island" ? W.islandScore(g.deduction, name)
    : (g.points || 0) < 0 ? W.takeScore(-g.points, name) : W.addScore(g.points || 0, name);
}
function lastMove(st) {
  const d = st.graded.decisions;
  return d.length ? d[d.length - 1].chosen : null;
}
function renderTurn() {
  const turn = S.turn, st = ui.state;
  const practice = S.mode === "practice";  // (the Review view hides the rest of the page itself)
  const following = !!(turn && turn.entries.length);
  $("setup-section").hidden = practice;
  $("setup").disabled = following;
  $("setup-summary").hidden = !following;
  if (following) say("setup-summary", W.setupSummary(cardName(turn.card), W.objectiveName[turn.params.need !== undefined ? "need" : turn.params.me !== undefined ? "win" : "points"], turn.params.need));
  $("setup-body").hidden = following;
  const phase = st ? st.phase : following ? "waiting" : "roll";
  $("dice-section").hidden = practice || phase === "move" || phase === "over" || phase === "waiting";
  $("position-box").hidden = following;
  const card = S.card;
  $("sorceress-field").hidden = card !== "sorceress";
  $("chest-field").hidden = card !== "chest";
  if (!following || !st) say("dice-h", W.roll1);
  else if (phase === "island") say("dice-h", W.island(st.rolled));
  else if (st.rolled !== null && st.rolled !== undefined) say("dice-h", W.rollN(st.roll + 1, st.rolled));  // (none while a move is awaited: the pad is hidden)
  say("dice-stays", following && st && st.stays.length ? W.stays(diceWords(st.stays)) : "");
  $("go").textContent = t(midTurn() ? W.goPosition : following ? W.goEnter : W.goAdvise);
  // the advice: of the position showing while a move is awaited (Skull Island's too), or of a
  // one-off position
  let where = "";
  if (following && st && (phase === "move" || phase === "island")) {
    where = W.showing(phase === "island" ? turn.entries.length : st.roll, diceWords(st.dice));  // (an island's rolls: the server's roll stays 1)
    if (st.chest !== null && cardMeta(turn.card).chest) where += ` ${W.onChest(diceWords(st.chest))}`;
  } else if (ui.position) where = W.position(diceWords(ui.position.dice));
  const advice = practice ? null : following && st ? (phase === "move" ? st.advice : phase === "island" ? ui.island : null) : ui.position;
  // a turn's advice: how its game was solved is the turn's (`game`, playing to win)
  renderAdvice(advice && st && st.game && !advice.game ? { ...advice, game: st.game } : advice, where);
  // the turn's status and its grading
  $("turn-section").hidden = practice || !following;
  if (practice || !following) return;
  $("undo").disabled = !turn.entries.length;
  if (!st) { say("turn-status", ui.resuming ? "" : W.waiting(turn.entries.length)); $("graded").replaceChildren(); $("score-turn").hidden = true; return; }
  const g = st.graded;
  let status = W.status[phase] || "";
  const moved = lastMove(st);
  if (phase === "roll" && moved && st.advice) status = `${W.moved(moveWords(st.advice, moved, true))} ${status}`;
  if (phase === "island") status = turn.entries.length > 1 ? `${W.islandGoes(g.island_skulls)} ${status}` : `${W.islandStarts(g.island_skulls)} ${status}`;
  if (phase === "over") status = W.over[g.outcome === "magic" ? "magic" : g.outcome](g.outcome === "island" ? g.island_skulls : g.points, g.deduction);
  // a turn that the dice ended (a bust, Skull Island's last roll): that roll, before the end
  const last = st.rolls && st.rolls.length ? st.rolls[st.rolls.length - 1] : null;
  if (phase === "over" && (g.outcome === "bust" || g.outcome === "island") && last) status = `${W.showing(st.rolls.length, diceWords(last.dice))} ${status}`;
  say("turn-status", status);
  $("graded").replaceChildren(...(phase === "over" ? gradedTable(g) : []));
  const scoreButton = $("score-turn");
  scoreButton.hidden = phase !== "over" || !!(S.game && S.game.over);
  if (!scoreButton.hidden) {
    const name = playerName(S.current);
    scoreButton.textContent = t(scoreWords(g, name));
  }
}
// -- the whole page ---------------------------------------------------------------------------------

function applyWords() {
  document.documentElement.lang = S.lang;
  document.title = t(W.docTitle);
  for (const e of document.querySelectorAll("[data-t]")) { const v = W[e.dataset.t]; if (typeof v === "string") e.textContent = t(v); }
  for (const e of document.querySelectorAll("[data-t-label]")) { const v = W[e.dataset.tLabel]; if (typeof v === "string") e.setAttribute("aria-label", t(v)); }
  const lang = $("lang");
  lang.textContent = W.langButton;
  lang.lang = S.lang === "fr" ? "en" : "fr";
  $("card").replaceChildren(el("option", { value: "", text: t(W.pickCardOption) }), ...META.cards.map((c) => el("option", { value: c.id, text: t(cardName(c.id)) })));
  $("notation").replaceChildren(...Object.entries(META.letters).map(([name, letters]) => el("option", { value: name, text: t(W.notationName[name](letters.split("").join(" "))) })));
  renderVariants();
}
function renderSetup() {
  $("card").value = S.card || "";
  $("notation").value = S.notation;
  wholeCard();
}
// The card chosen, whole, under its menu when the closed menu cannot show all of it (large
// text on a narrow phone cut "Pirate ship: 4 swords, 1000" to "Pirate ship: 4", and the three
// ships looked alike). Hidden from screen readers: the menu's value already says it whole.
const measure = document.createElement("canvas").getContext("2d");
function wholeCard() {
  const menu = $("card");
  const text = menu.selectedIndex > 0 ? menu.options[menu.selectedIndex].text : "";
  const style = getComputedStyle(menu);
  measure.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 1.5 * parseFloat(style.fontSize);  // the arrow
  const cut = !!text && menu.clientWidth > 0 && measure.measureText(text).width > room;
  say("card-whole", cut ? text : "");
  $("card-whole").hidden = !cut;
}
function renderAll() {
  // one mode pressed: the Review's view, while it is open, is the one (renderReview)
  $("mode-table").setAttribute("aria-pressed", String(!ui.review && S.mode === "table"));
  $("mode-practice").setAttribute("aria-pressed", String(!ui.review && S.mode === "practice"));
  $("board-section").hidden = S.mode !== "table";
  renderSetup();
  renderBoard();
  dropStale();
  renderObjective();
  renderTurn();
  renderPad();
  renderPractice();
  renderQuickScore();
  renderReview();
  renderConfirm();
  if (ui.focus && !ui.busy) {
    const target = $(ui.focus);
    ui.focus = null;
    if (target && !target.closest("[hidden]")) { target.scrollIntoView({ block: "start" }); target.focus({ preventScroll: true }); }
  }
}
hooks.render = renderAll;
function setLang(lang) { S.lang = lang; setWords(lang); save(); applyWords(); renderAll(); updateRules(); }
function changed(update) { return () => { update(); save(); resetTurn(); renderAll(); }; }

let serverDown = false;  // /api/meta did not answer though the device is online
function offline(on) {
  $("offline").hidden = !(on || serverDown);
  if (on) say("offline", W.offlinePage); else if (serverDown) say("offline", W.unreachablePage);
  else say("offline", "");  // (hidden: emptied, so that going offline again is read out again)
}
async function start() {
  guardTaps();
  let meta = null;
  try { const r = await fetch("/api/meta", { cache: "no-store" }); if (r.ok) meta = await r.json(); } catch (e) { /* offline */ }
  serverDown = !meta && navigator.onLine !== false;
  if (meta) setMeta(meta); else { meta = savedMeta(); if (!meta) throw new Error(WORDS[(navigator.language || "en").slice(0, 2)] ? WORDS[(navigator.language || "en").slice(0, 2)].offlineFirst : WORDS.en.offlineFirst); setMeta(meta); }
  if (!S.lang) S.lang = (navigator.languages || [navigator.language || "en"]).find((l) => /^(fr|en)\b/i.test(l))?.slice(0, 2).toLowerCase() || "en";
  setWords(S.lang);
  $("version").textContent = `mille-sabords ${META.version}`;
  if (S.pad) ui.pad = S.pad;
  applyWords();
  $("loading").hidden = true;
  offline(!navigator.onLine);
  window.addEventListener("offline", () => offline(true));
  window.addEventListener("online", () => {
    offline(false); chancesOnline();
    // a turn kept and not yet replayed (a reload while offline): replayed now, as the page said
    if (S.mode === "table" && S.turn && S.turn.entries.length && !ui.state && !ui.busy) resumeTurn();
  });
  window.addEventListener("resize", wholeCard);
  $("lang").addEventListener("click", () => setLang(S.lang === "fr" ? "en" : "fr"));
  $("mode-table").addEventListener("click", changed(() => { S.mode = "table"; }));
  $("mode-practice").addEventListener("click", () => { S.mode = "practice"; save(); showError(null); renderAll(); });
  // (a turn under way is dropped: asked first, as a tap on another player's row)
  const pass = () => { resetTurn(); nextPlayer(); renderAll(); };
  $("next-player").addEventListener("click", () => (turnUnderWay() ? ask(W.confirmPass, pass) : pass()));
  $("add-player").addEventListener("click", () => {  // (said in the scoreboard's status)
    if (players().length < MOST_PLAYERS) { players().push({ name: null, total: 0 }); S.last = ["playerAdded", players().length - 1]; }
    S.game = null; S.record = null; save(); renderAll();
    // the fifth: the button disabled under the focus, which fell to the page's body (a blind
    // player lost their place): the focus on the new player's row
    if ($("add-player").disabled) { const rows = $("players").querySelectorAll("li > button"); if (rows.length) rows[rows.length - 1].focus(); }
  });
  // (the scoreboard moved back drops a turn under way: asked first, as every such tap is)
  $("undo-score").addEventListener("click", () => (turnUnderWay() ? ask(W.confirmUndo, undoScore) : undoScore()));
  $("board-box").addEventListener("toggle", paintChances);  // (the folded line's chances)
  $("new-game").addEventListener("click", newGame);
  $("new-game-over").addEventListener("click", newGame);
  $("confirm-yes").addEventListener("click", () => answerConfirm(true));
  $("confirm-no").addEventListener("click", () => answerConfirm(false));
  // the question as a dialog is answered: Escape says no, and Tab stays on its two buttons
  // (Escape did nothing, and Tab left it open behind)
  $("confirm").addEventListener("keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); answerConfirm(false); return; }
    if (e.key !== "Tab") return;
    e.preventDefault();
    (document.activeElement === $("confirm-yes") ? $("confirm-no") : $("confirm-yes")).focus();
  });
  $("card").addEventListener("change", changed(() => { S.card = $("card").value || null; }));
  for (const id of ["points", "need", "win"]) $(`obj-${id}`).addEventListener("change", changed(() => { S.objective = id; S.needBeat = false; S.winKept = false; }));
  $("need").addEventListener("change", () => {
    clearFieldErrors();
    const n = points($("need").value, 0);
    if (n === null) { fieldError("need", W.badNeed($("need").value, META.unit)); $("need").setAttribute("aria-invalid", "true"); return; }
    $("need").removeAttribute("aria-invalid");
    S.need = n; S.needBeat = false; save(); resetTurn(); renderAll();
  });
  $("notation").addEventListener("change", () => { S.notation = $("notation").value; ui.position = null; save(); renotateTurn(); renderAll(); });
  $("not-first").addEventListener("change", () => { ui.position = null; renderAll(); });
  $("sorceress-used").addEventListener("change", () => { ui.position = null; renderAll(); });
  $("clear").addEventListener("click", () => { ui.pad = zeros(); ui.chest = zeros(); S.pad = null; save(); $("typed").value = ""; renderPad(); });
  $("go").addEventListener("click", go);
  $("typed-go").addEventListener("click", typedDice);
  $("typed").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); typedDice(); } });
  // every option shown: the focus on the first one that was not (the button goes away: the focus
  // fell to the page's body, the player's place lost: a blind player's trial)
  $("more").addEventListener("click", () => {
    ui.showAll = true; renderAll();
    const next = $("options").children[SHOWN];
    if (next) { next.tabIndex = -1; next.focus(); }
  });
  $("undo").addEventListener("click", undoEntry);
  // "Skip to the dice": the focus on the dice' heading, or where the turn is when the dice are
  // not asked for (the section hidden); a link to a section left it on the page's body (a blind
  // player's trial)
  document.querySelector("a.skip").addEventListener("click", (e) => {
    const to = [$("dice-section").hidden ? null : "dice-h", S.mode === "table" ? focusAfter() : null]
      .map((id) => id && $(id)).find((x) => x && x.offsetParent !== null);
    if (!to) return;  // (the link's own way)
    e.preventDefault();
    to.focus();
  });
  $("new-turn").addEventListener("click", () => ask(W.confirmNewTurn, () => { resetTurn(); ui.focus = "dice-h"; }));
  $("score-turn").addEventListener("click", () => scoreTurn(ui.state.graded, () => { S.turn = null; ui.state = null; ui.pad = zeros(); }));
  practiceAction();
  reviewAction();
  // a quick score during a turn followed drops the turn (the scoreboard moves): asked first, as
  // a row or "Next player" asks (it dropped the turn unsaid: a blind player's trial)
  quickScoreAction((g, done) => {
    const go = () => scoreTurn(g, () => { resetTurn(); done(); });
    if (!turnUnderWay()) return go();
    ask(W.confirmScore(t(scoreWords(g, playerName(S.current)))), go);
  });
  for (const id of ["sentence", "dice-h", "turn-status", "board-status", "practice-status"]) $(id).tabIndex = -1;
  // the last score's words ("600 points added to Anne") were news before the reload: the
  // scoreboard's status, a live region, read them again as the page opened (a blind player's
  // trial); it says where the game is
  S.last = null;
  ui.resuming = !!(S.turn && S.turn.entries.length);  // (resumeTurn, below: from the first render)
  renderAll();
  updateRules();
  resumeTurn(true);
  resumePractice();
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => { /* served without one */ });
  document.body.dataset.ready = "true";
}

start().catch((e) => { say("loading", capital(e.message || String(e))); });

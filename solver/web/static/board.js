// mille-sabords: the table's scoreboard: the players, whose turn it is, a turn's score added
// in one tap (and undone), the end of the game and its winner, as /api/scores says; removing a
// player and a new game ask first.

import {
  $, META, S, W, api, boardKey, boardParams, el, hooks, lossWords, pct, playerName, players, reveal, save, say, t, ui, winHow, work,
} from "./core.js";
import { noteTurn, recordBack, recordLength } from "./record.js";

const HISTORY = 20;  // scores that can be undone, one after the other
export const FEWEST_PLAYERS = 2, MOST_PLAYERS = 5;  // the game is for 2 to 5 (RULES.md)
const NOW = "● ";  // the player to play (not ▶, which looks like the fold of a <details>)
const NBSP = "\u00a0";

// ui.confirm: a question awaiting the player's answer ({text, yes}).
// `back`: where the focus goes after the answer, found then (a row drawn anew meanwhile), if
// not what asked
export function ask(text, yes, back) { ui.confirm = { text, yes, back: back || document.activeElement }; hooks.render(); $("confirm-yes").focus(); }
export function renderConfirm() {
  const c = ui.confirm;
  $("confirm").hidden = !c;
  if (!c) return;
  say("confirm-text", c.text);
}
export function answerConfirm(yes) {
  const c = ui.confirm;
  ui.confirm = null;
  if (yes && c) c.yes();
  hooks.render();
  // the focus back on what asked (the question's buttons are gone: it was on the page's body),
  // unless the answer put it elsewhere; what asked gone too, on the scoreboard's status
  const at = document.activeElement;
  if (at && at !== document.body && !$("confirm").contains(at)) return;
  const back = c && (typeof c.back === "function" ? c.back() : c.back);
  (back && back !== document.body && back.isConnected && back.offsetParent !== null ? back : $("board-status")).focus();
}

function snapshot() {
  return { totals: players().map((p) => p.total), current: S.current, game: S.game, card: S.card, last: S.last || null, record: recordLength() };
}
function winnersText(g) {
  const names = g.winners.map(playerName);
  const total = players()[g.winners[0]].total;
  return names.length === 1 ? W.wins(names[0], total, g.won !== null && g.won !== undefined) : W.shareWin(names, total);
}
// What just happened on the scoreboard, kept as what to say ([key, amount, seat], [key, seat]
// or [key]) and worded when shown, in the page's language then (kept as a sentence, it stayed
// English after "Français": a blind player's trial).
function lastText(last) {
  if (typeof last === "string") return last;  // (kept so by an older page)
  const [key, ...args] = last;
  const w = W[key];
  if (typeof w !== "function") return w || "";
  return args.length === 1 ? w(playerName(args[0])) : w(args[0], playerName(args[1]));
}
export function boardStatus() {
  const g = S.game || {};
  const ps = players();
  if (g.over) return winnersText(g);
  const parts = [];
  if (S.last) parts.push(lastText(S.last));
  if (g.sudden && ui.scores) parts.push(W.suddenDeath(ui.scores.target));
  else if (ui.scores && ui.scores.final) {
    if (Array.isArray(S.last) && S.last[3] === "trigger") parts.push(W.finalRoundStarts(playerName(S.last[2]), ui.scores.target, players().length === 2));
    parts.push(W.finalTurn(playerName(S.current)));
    // nobody at the target any more: who triggered the final round, which still goes on (a
    // trial of a table of four wondered why, after Skull Island)
    const sc = ui.scores;
    if (!(sc.at_target || []).length && sc.trigger !== null && sc.trigger !== undefined) parts.push(W.triggerBelow(playerName(sc.trigger), sc.target));
  }
  parts.push(W.toPlay(playerName(S.current), ps[S.current].total));
  return parts.join(" ");
}

export function renderBoard() {
  const ps = players();
  const g = S.game || {};
  S.current = Math.min(S.current, ps.length - 1);
  say("board-status", boardStatus());
  $("board-status").classList.toggle("won", !!g.over);
  // the scoreboard is one line while a turn is followed (the dice pad comes first), open at the
  // end of the game; otherwise as the player left it
  const folded = !!(S.turn && S.turn.entries.length);
  const box = $("board-box");
  const fold = folded ? "folded" : g.over ? "over" : "free";
  if (box.dataset.fold !== fold) { if (fold !== "free") box.open = fold === "over"; box.dataset.fold = fold; }
  $("players").replaceChildren(...ps.map((p, i) => {
    const now = i === S.current && !g.over;  // (the game over: nobody's turn)
    const won = g.over && g.winners.includes(i);
    // the player's chance of winning (paintChances): a bar, for the eye only, and its number
    const chance = el("span", { class: "chance", hidden: true },
      el("span", { class: "bar", "aria-hidden": "true" }, el("span", { class: "fill" })), el("span", { class: "pct" }));
    const b = el("button", { type: "button", "aria-current": String(now), "aria-describedby": "row-hint" },
      el("span", { text: (now ? NOW : "") + (won ? "★ " : "") + playerName(i) }), el("span", { text: String(p.total) }), chance);
    b.addEventListener("click", () => {  // the player to play; the focus stays on their row
      const row = () => $("players").querySelectorAll("li > button")[i];
      const pick = () => {
        S.current = i; S.last = null; save(); hooks.render();
        if (row()) row().focus({ preventScroll: true });
      };
      // a turn under way is another player's then, dropped: asked first (a tap while exploring
      // the rows threw it away, unsaid and beyond undo: a blind player's trial); the focus back
      // on the row after either answer (the rows are drawn anew)
      if (i !== S.current && turnUnderWay()) ask(W.confirmPlayer(playerName(i)), pick, row);
      else pick();
    });
    return el("li", {}, b);
  }));
  paintChances();
  $("undo-score").hidden = !S.history.length;
  if (S.history.length) $("undo-score").textContent = t(W.undoScore);
  $("next-player").hidden = !!g.over;
  $("new-game-over").hidden = !g.over;  // where the winner is announced
  $("add-player").disabled = ps.length >= MOST_PLAYERS;
  say("players-note", ps.length >= MOST_PLAYERS ? W.playersRange(FEWEST_PLAYERS, MOST_PLAYERS) : "");
  $("players-note").hidden = ps.length < MOST_PLAYERS;
  // the fields are rebuilt only when the players or the language change, so that typing a
  // total and moving on (Tab) keeps the focus where it goes
  const fields = $("player-fields");
  const shape = `${ps.length} ${S.lang}`;
  if (fields.dataset.shape === shape) {
    fields.querySelectorAll(".player-fields").forEach((row, i) => {
      const [name, total] = row.querySelectorAll("input");
      if (name !== document.activeElement) name.value = ps[i].name || "";
      if (total !== document.activeElement) total.value = String(ps[i].total);
      row.querySelector("button").setAttribute("aria-label", W.remove(playerName(i)));
      row.querySelector("button").disabled = ps.length <= FEWEST_PLAYERS;
    });
    return;
  }
  fields.dataset.shape = shape;
  fields.replaceChildren(...ps.map((p, i) => {
    const name = el("input", { type: "text", value: p.name || "", placeholder: W.playerName(i + 1), "aria-label": W.nameOf(i + 1) });
    name.addEventListener("change", () => { p.name = name.value.trim() || null; save(); hooks.render(); });
    const total = el("input", { type: "text", inputMode: "numeric", value: String(p.total), "aria-label": W.totalOf(i + 1), "aria-describedby": "board-error" });
    total.addEventListener("change", () => {
      const n = points(total.value, 0);
      if (n === null) { fieldError("board", W.badTotal(total.value, META.unit)); total.setAttribute("aria-invalid", "true"); return; }
      p.total = n; S.game = null; S.last = null; S.record = null; save(); hooks.render();
    });
    const remove = el("button", { type: "button", text: "✕", "aria-label": W.remove(playerName(i)), disabled: ps.length <= FEWEST_PLAYERS });
    remove.addEventListener("click", () => ask(W.confirmRemove(playerName(i)), () => {
      ps.splice(i, 1); S.game = null; S.history = []; S.last = null; S.record = null; save();
    }));
    return el("div", { class: "player-fields" }, name, total, remove);
  }));
}

// Why no chance is shown: the scoreboard's chances `c` (app.js): none to come, or a failure
// (a sentence of its own) and when it is asked again: the seconds left until `c.due` (at least
// 1: at 0 it is being asked), else `c.again`.
export function chancesNote(c) {
  if (c.note || !c.error) return c.note || "";
  const why = /[.!?…]$/.test(c.error) ? c.error : `${c.error}.`;
  const left = c.due ? Math.min(c.again, Math.max(1, Math.ceil((c.due - Date.now()) / 1000))) : c.again;
  return `${W.chancesFailed(why)}${c.again ? ` ${W.chancesAgain(left)}` : ""}`;
}
// Every seat's chance of winning now, on the scoreboard (ui.chances, set by app.js for the
// scoreboard of `key`: the /api/winprob answer `w` of its goal, whose `players` are in seat
// order from the `mover`; or a `note` saying why there are none, an `error`, or `pending`): in
// each player's row a bar and its number (the row's accessible name says it), in the folded
// line too, and whether they are exact or near-optimal, with how far near-optimal chances were
// measured from exact play a tap away. Drawn again in place when the answer comes.
export function paintChances() {
  const ps = players();
  const g = S.game || {};
  const c = ui.chances && ui.chances.key === boardKey() ? ui.chances : {};
  const w = c.w && c.w.players && c.w.players.length === ps.length ? c.w : null;
  const seats = w ? ps.map((_, i) => w.players[(i - c.mover + ps.length) % ps.length].win) : null;
  const shown = (i) => t(`${pct(seats[i], 1)} %`);
  // The folded line says each chance too, kept on the line of its total ("(9 %)" never cut
  // before its "%"), "(… %)" while it comes, or "(? %)" if it failed, each as wide as "(100 %)"
  // (the line as long: what is below it, the dice pad, stays where it is; the placeholders are
  // not read aloud); open, the rows say them (and the line does not grow when they come).
  const reserved = !seats && !c.note && !c.none;
  const folded = !$("board-box").open;
  const summary = $("board-summary");
  summary.replaceChildren(...ps.flatMap((p, i) => {
    // the mark of the player to play: for the eye a dot, for a screen reader words (it read
    // the dot as "black circle")
    const now = i === S.current && !g.over;
    const mark = now ? [el("span", { "aria-hidden": "true", text: NOW })] : [];
    const said = now ? [el("span", { class: "sr-only", text: t(W.toPlayMark) })] : [];
    const head = t(`${i ? " · " : ""}`);
    const name = t(`${playerName(i)} `);
    if (!folded || (!seats && !reserved)) return [head, ...mark, name, String(p.total), ...said];
    const chance = el("span", {
      class: "chance-inline", text: t(seats ? `(${pct(seats[i], 0)}${NBSP}%)` : `(${c.error ? "?" : "…"}${NBSP}%)`),
      ...(seats ? {} : { "aria-hidden": "true" }),
    });
    return [head, ...mark, name, el("span", { class: "nowrap" }, `${p.total}${NBSP}`, chance), ...said];
  }));
  // heard, the line says what its numbers are, as the rows do ("Alice: 600 points, 24.3 %
  // chance of winning"); it read "Alice 600 (24 %) · Bob 300 (21 %)", numbers without meaning
  summary.setAttribute("aria-label", t(ps.map((p, i) => W.playerRow(playerName(i), p.total, i === S.current && !g.over,
    !!(g.over && g.winners.includes(i)), folded && seats ? pct(seats[i], 1) : null)).join("; ")));
  // While the chances are still to come (not yet asked, or asked) their lines keep their place,
  // empty, and so does the line that says how they were found: drawn when the answer comes,
  // they must not move the buttons below under a finger. A failed answer keeps them too (its
  // note says why); none to come (the game over, Win not offered: `note`; practice: `none`)
  // takes them away.
  $("players").querySelectorAll("li > button").forEach((b, i) => {
    if (i >= ps.length) return;
    const now = i === S.current && !g.over;
    const won = !!(g.over && g.winners.includes(i));
    b.setAttribute("aria-label", t(W.playerRow(playerName(i), ps[i].total, now, won, seats ? pct(seats[i], 1) : null)));
    const chance = b.querySelector(".chance");
    chance.hidden = !seats && !reserved;
    chance.classList.toggle("coming", reserved);
    chance.querySelector(".fill").style.width = seats ? `${100 * seats[i]}%` : "0";
    chance.querySelector(".pct").textContent = seats ? shown(i) : t(`${pct(0, 1)} %`);  // (its height)
  });
  // (below the buttons: a failed answer's note moves none of them)
  const note = chancesNote(c);
  const room = !note && c.room;  // (a failure's place, kept empty once its answer came)
  say("chances-note", note || room || "");
  $("chances-note").hidden = !note && !room;
  $("chances-note").style.visibility = room ? "hidden" : "";
  // exact or near-optimal, and how far near-optimal chances were measured: the answer's, or
  // while it comes what the server said of these rules (/api/rules), the same words (else
  // exact for two and three players, the tables the server is sure to have)
  const how = w ? { exact: w.exact !== false, loss: w.loss } : winHow(ps.length) || { exact: ps.length <= 3, loss: null };
  $("chances-how").hidden = !w && !reserved;
  if ($("chances-how").hidden) return;
  say("chances-word", how.exact ? W.chancesExact : W.chancesNear);
  say("chances-measured", how.exact ? W.exactHow(ps.length) : how.loss ? `${W.nearHow} ${lossWords(how.loss)}` : W.nearHow);
}

// A number of points typed in a field: a whole number of the game's unit, at least `least` and
// at most `most` (null if it is not one: "-300" and "abc" are refused, not read as 0).
export function points(text, least, most) {
  const s = String(text).trim();
  if (!/^\d+$/.test(s)) return null;
  const n = Number(s);
  if (n % META.unit || n < least || (most !== undefined && n > most)) return null;
  return n;
}
export function fieldError(field, message) {
  say(`${field}-error`, "");  // (the same error again is read again: say() writes changes only)
  say(`${field}-error`, message);
  reveal($(`${field}-error`));
}

// The turn's score added to the scoreboard (its points, or Skull Island's deduction), as the
// rules move the totals: the server's; then the next player, a fresh card, and the focus on the
// scoreboard's status, which says what happened.
export function scoreTurn(g, done) {
  return work(async () => {
    const seat = S.current;
    const wasFinal = !!(S.game && (S.game.trigger !== null && S.game.trigger !== undefined));
    const after = await api("/api/scores", {
      ...boardParams(), ...(g.outcome === "island" ? { deduction: g.deduction } : { points: g.points || 0 }), magic: g.outcome === "magic",
    });
    S.history.push(snapshot());
    S.history = S.history.slice(-HISTORY);
    noteTurn(S.current, g);  // the game's record (record.js), before the totals move
    players().forEach((p, i) => { p.total = after.totals[i]; });
    S.current = after.mover;
    S.game = { trigger: after.trigger, sudden: after.sudden, over: after.over, winners: after.winners, won: after.won };
    ui.scores = after; ui.scoresKey = JSON.stringify(boardParams());  // the scoreboard now
    S.last = g.outcome === "island" ? ["islandDone", g.deduction, seat] : (g.points || 0) < 0 ? ["tookScore", -g.points, seat] : ["addedScore", g.points || 0, seat];
    // this score reached the target: the final round starts (said, as why the turns are final)
    if (!wasFinal && after.final && after.trigger === seat && !after.over) S.last.push("trigger");
    S.card = null;
    done();
    save();
    ui.focus = "board-status";
  });
}
// "Next player": the player to play passes. In the final round and in sudden death the turn
// ends with nothing scored, as the server moves the scoreboard (the game may end there; it can
// be undone); otherwise the next seat plays, as the table says (no server needed).
// A turn followed with entries and not over, which a change of the player to play drops (one
// over, a bust or a stop whose score the page offers to add, is not asked about).
export function turnUnderWay() { return !!(S.turn && S.turn.entries.length) && !(ui.state && ui.state.phase === "over"); }
export function nextPlayer() {
  const board = ui.scores;
  if (board && ui.scoresKey === JSON.stringify(boardParams()) && (board.final || board.sudden)) {
    // (said: the turn that ends with nothing went unsaid, only the next one's: a blind
    // player's trial)
    const seat = S.current;
    return scoreTurn({ outcome: "pass", points: 0 }, () => { S.last = ["passed", seat]; });
  }
  noteTurn(S.current, { outcome: "pass", points: 0 });  // recorded as a turn of no points
  S.current = (S.current + 1) % players().length; S.last = null; S.card = null; save();
  return Promise.resolve(true);
}
export function undoScore() {
  const last = S.history.pop();
  if (!last) return;
  players().forEach((p, i) => { if (i < last.totals.length) p.total = last.totals[i]; });
  S.current = last.current; S.game = last.game; S.card = last.card; S.last = ["undone"];
  recordBack(last.record);
  save();
  ui.focus = "board-status";
  hooks.render();
}
export function newGame() {
  ask(W.confirmNewGame, () => {
    players().forEach((p) => { p.total = 0; });
    S.current = 0; S.game = null; S.history = []; S.last = null; S.card = null; S.turn = null; S.record = null;
    ui.state = null;
    save();
  });
}

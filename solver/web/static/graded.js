// A graded turn: each decision taken, the best one and its cost (the turn helper and practice).
import { W, el, diceWords, moveWords, num, pct, t } from "./core.js";

// The graded turn: each decision taken, the best one, and its cost; then the turn's cost.
export function gradedTable(g, heading) {
  const out = [el("h3", { text: t(heading || W.graded) })];
  if (!g.decisions.length) { out.push(el("p", { text: t(W.gradedNone) })); return out; }
  const points_ = g.unit === "points";
  const unit = points_ ? W.unitPoints : g.objective === "win" ? W.unitWin : W.unitNeed;
  const amount = (x) => (points_ ? num(x, 1) : pct(x, 2));
  out.push(el("ol", { class: "decisions" }, ...g.decisions.map((d) => el("li", { class: d.best_move ? "decision best" : "decision" },
    el("div", { class: "roll", text: t(W.decision(d.roll, diceWords(d.dice))) }),
    el("div", { text: t(W.yours(shortMove(d.chosen))) }),
    d.best_move ? el("div", { class: "took-best" }, el("span", { "aria-hidden": "true", text: "★ " }), t(W.tookBest))  // (the star for the eye)
      : el("div", {}, el("div", { text: t(W.bestIs(shortMove(d.best))) }),
        el("div", { class: "cost", text: t(W.cost(amount(d.cost), unit)) }))))));
  out.push(el("p", { class: "total-cost", text: t(W.totalCost(amount(g.total_cost), unit)) }));
  return out;
}
export function shortMove(o) { return o.action === "stop" ? W.stop : moveWords({ points: null }, o, true); }

// mille-sabords: what the page keeps in the browser (localStorage), so that a reload or a
// discarded tab resumes where the player was: the settings, the table's scoreboard (with how
// the game stands and the last score, to undo), the turn in progress (its card, its goal and
// its entries: the dice of each roll and each move) and the practice game (its deck, its
// totals, the turn being played with the dice already rolled, and every grade).

const STORE = "mille-sabords.v2";
const OLD_STORE = "mille-sabords.v1";

function load() {
  try {
    const now = JSON.parse(localStorage.getItem(STORE));
    if (now) return now;
    const old = JSON.parse(localStorage.getItem(OLD_STORE)) || {};
    // the first version kept the settings and the scoreboard; its practice was another game
    const { lang, mode, players, current, variants, notation, objective, need } = old;
    return { lang, mode, players, current, variants, notation, objective, need };
  } catch (e) { return {}; }
}

// S: what is kept. players: [{name, total}]; game: how the table's game stands, as /api/scores
// answered it last ({trigger, sudden, over, winners}); history: the scoreboards before each
// score added (the last one is undone); card: the card picked for the turn (null: pick one);
// turn: {card, params, entries} of the turn followed; pad: the dice tapped in, not yet entered;
// practice: the practice game (practice.js). needBeat: the need is the points that beat the
// leader, the scoreboard's for each player in turn (not a number typed). record: the table's game
// record (record.js); imported: the last game record opened from a file or a link (review.js).
// winKept: Win was the goal when it could no longer answer (the game over): it comes back with it.
export const S = Object.assign({
  lang: null, mode: "table", players: null, current: 0, game: null, history: [],
  variants: {}, notation: "default", objective: "points", need: 1000, needBeat: false, winKept: false, card: null,
  turn: null, pad: null, practice: null, practiceKind: "win", practiceNeed: 1000, record: null, imported: null,
}, Object.fromEntries(Object.entries(load()).filter(([, v]) => v !== undefined)));
if (!Array.isArray(S.history)) S.history = [];

export function save() {
  try { localStorage.setItem(STORE, JSON.stringify(S)); } catch (e) { /* private mode: kept while open */ }
}

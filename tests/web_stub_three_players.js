// The API of three players' games (issue 20) as a stub in the page: tests/test_web_browser.py.
// /api/meta says [2, 3]; an advice, a turn or a chance of winning asked with two opponents is
// the two-player answer for the first, with each seat's probability added (`players`).
const real = window.fetch;
window.fetch = async (url, options) => {
  const u = new URL(url, location.href);
  if (u.pathname === '/api/meta') {
    const meta = await (await real(url, options)).json();
    meta.win_players = [2, 3];
    return new Response(JSON.stringify(meta), {headers: {'content-type': 'application/json'}});
  }
  const opps = u.searchParams.getAll('opp');
  if (opps.length > 1 && ['/api/advise', '/api/turn', '/api/winprob'].includes(u.pathname)) {
    window.stubbed = (window.stubbed || []).concat([u.pathname + '?' + u.searchParams]);
    u.searchParams.delete('opp'); u.searchParams.append('opp', opps[0]);
    const answer = await (await real(u.toString(), options)).json();
    const seats = (p) => [p, (1 - p) * 0.6, (1 - p) * 0.4];
    if (answer.options) answer.options.forEach((o) => { o.players = seats(o.value); });
    if (answer.advice) answer.advice.options.forEach((o) => { o.players = seats(o.value); });
    if (u.pathname === '/api/winprob') answer.players = seats(answer.win).map((w, k) => ({total: 0, win: w}));
    return new Response(JSON.stringify(answer), {headers: {'content-type': 'application/json'}});
  }
  return real(url, options);
};

// The ladder pages (docs/LADDER.md): every ladder, one ladder's rating list, one bot.
// Bot names are chosen by their owners: every name is written as text (h() makes text
// nodes and attribute values, never HTML) and put in links with encodeURIComponent.
import { getJSON, h, setStatus } from "./protocol.js";
import { terminationText, timeControlText } from "./gameview.js";

const SVG = "http://www.w3.org/2000/svg";
const FAILURES = ["time", "illegal", "crash", "stall", "protocol"];
const REFRESH = 5000; // ms: the list is refitted every few seconds at most

function s(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function ladderHref(ladder) {
  return `/ladders/${encodeURIComponent(ladder)}`;
}

export function botHref(ladder, bot) {
  return `${ladderHref(ladder)}/bots/${encodeURIComponent(bot)}`;
}

function botApi(ladder, bot) {
  return `/api/ladders/${encodeURIComponent(ladder)}/bots/${encodeURIComponent(bot)}`;
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "-";
}

function day(seconds) {
  return new Date(seconds * 1000).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function elo(value) {
  return value === null || value === undefined ? "-" : value.toFixed(0);
}

function signed(value) {
  if (value === null || value === undefined) return "-";
  return `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(0)}`;
}

function table(headers, rows, empty, attrs = {}) {
  if (!rows.length) return h("p", { className: "muted" }, empty);
  return h("table", attrs, h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))), h("tbody", {}, rows));
}

function optionsText(options) {
  return Object.entries(options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
}

function termsText(doc) {
  const options = optionsText(doc.options);
  const game = options ? `${doc.game} (${options})` : doc.game;
  const tc = doc.move_time || doc.clock ? timeControlText(doc.move_time, doc.clock) : "";
  return [game, tc, `${doc.rated_games} rated games`].filter(Boolean).join(" · ");
}

// The 95% interval as text ("1,512 – 1,640") and as a bar on the list's common scale.
function intervalCell(row, low, high) {
  if (row.anchor) return h("td", { className: "interval" });
  if (row.margin === null) return h("td", { className: "interval muted" }, "no games");
  const lo = row.rating - row.margin;
  const hi = row.rating + row.margin;
  const width = 120;
  const x = (v) => (high > low ? ((v - low) / (high - low)) * (width - 8) + 4 : width / 2);
  const bar = s("svg", { viewBox: `0 0 ${width} 12`, width, height: 12, class: "interval-bar", "aria-hidden": "true" },
    s("line", { x1: x(lo), x2: x(hi), y1: 6, y2: 6 }),
    s("circle", { cx: x(row.rating), cy: 6, r: 3 }));
  return h("td", { className: "interval" }, bar, h("span", {}, `${elo(lo)} – ${elo(hi)}`));
}

function failureCells(failures) {
  return FAILURES.map((kind) => {
    const count = failures ? failures[kind] : 0;
    return h("td", { className: count ? "fail" : "fail muted", "data-failure": kind }, count ? count : "·");
  });
}

function ratingTable(doc) {
  const online = new Set(doc.now ? doc.now.bots : []);
  const rated = doc.ratings.filter((r) => r.margin !== null);
  const low = Math.min(...rated.map((r) => r.rating - r.margin));
  const high = Math.max(...rated.map((r) => r.rating + r.margin));
  const rows = doc.ratings.map((r) => h("tr", { "data-bot": r.bot },
    h("td", {}, r.rank),
    h("td", { className: "bot" },
      h("a", { href: botHref(doc.name, r.bot) }, r.bot),
      r.anchor ? h("span", { className: "anchor", title: `anchor: its rating is fixed at ${elo(r.rating)}` }, "anchor") : null,
      online.has(r.bot) ? h("span", { className: "online", title: "connected now" }, "●") : null),
    h("td", { className: "num rating" }, elo(r.rating)),
    h("td", { className: "num margin" }, r.anchor ? "fixed" : r.margin === null ? "-" : `±${r.margin.toFixed(0)}`),
    intervalCell(r, low, high),
    h("td", { className: "num" }, r.games),
    failureCells(r.failures)));
  return table(["#", "bot", "rating", "±", "95% interval", "games", ...FAILURES], rows,
    "No rated game yet: the list appears after the first games.", { id: "ratings", className: "ratings" });
}

function downloads(g) {
  return h("span", { className: "downloads" },
    h("a", { href: g.jsonl, download: "", className: "jsonl" }, "JSONL"),
    g.sgf ? [" ", h("a", { href: g.sgf, download: "", className: "sgf" }, "SGF")] : null);
}

function scoreText(g, bot) {
  if (!g.scores) return g.status === "aborted" ? "aborted" : "no result";
  if (bot !== undefined) {
    const seat = g.players.indexOf(bot);
    const mine = g.scores[seat];
    return mine === 1 ? "won" : mine === 0 ? "lost" : "draw";
  }
  return g.scores.map((x) => (x === 0.5 ? "½" : x)).join("-");
}

function playersCell(ladder, players, bot) {
  const parts = [];
  players.forEach((p, i) => {
    if (i) parts.push(" vs ");
    parts.push(p === bot ? h("strong", {}, p) : h("a", { href: botHref(ladder, p) }, p));
  });
  return h("td", { className: "players" }, parts);
}

function gamesTable(ladder, games, bot) {
  const rows = games.map((g) => h("tr", { "data-match": g.match },
    h("td", {}, when(g.ended_at)),
    playersCell(ladder, g.players, bot),
    h("td", { className: "score" }, scoreText(g, bot)),
    h("td", { title: g.reason || "" }, terminationText(g.termination)),
    h("td", { className: "num" }, g.plies),
    h("td", { className: "links" }, h("a", { href: `/replay/${encodeURIComponent(g.match)}` }, "replay"), " ",
      downloads(g))));
  return table(["ended", "players", bot === undefined ? "score" : "result", "how", "plies", ""], rows,
    "No game yet.", { className: "games" });
}

function playingSection(ladder, now) {
  const rows = (now ? now.playing : []).map((m) => h("tr", { "data-match": m.match },
    playersCell(ladder, m.players),
    h("td", { className: "num" }, m.ply),
    h("td", { className: "links" }, h("a", { href: `/watch/${encodeURIComponent(m.match)}` }, "watch"))));
  const waiting = now ? `${now.bots.length} bots connected, ${now.ready.length} ready` : "";
  return h("section", { className: "card", id: "playing" }, h("h2", {}, "Playing now"),
    h("p", { className: "muted" }, waiting),
    table(["players", "ply", ""], rows, "No game is being played."));
}

// --- every ladder ------------------------------------------------------------------

export async function showLadders(app) {
  const refresh = async () => {
    try {
      const { ladders } = await getJSON("/api/ladders");
      const rows = ladders.map((l) => h("tr", { "data-ladder": l.name },
        h("td", {}, h("a", { href: ladderHref(l.name) }, l.name)),
        h("td", {}, termsText(l)),
        h("td", { className: "num" }, l.bots),
        h("td", { className: "num" }, l.playing),
        h("td", {}, when(l.fitted_at))));
      app.replaceChildren(h("h1", {}, "Ladders"), h("section", { className: "card", id: "ladders" },
        table(["ladder", "terms", "bots", "playing", "rated at"], rows,
          "This server runs no ladder (arena serve --ladder GAME).")));
    } catch (error) {
      app.replaceChildren(h("p", { className: "error" }, error.message));
    }
  };
  await refresh();
  setInterval(refresh, REFRESH);
}

// --- one ladder --------------------------------------------------------------------

export async function showLadder(app, name) {
  const refresh = async () => {
    try {
      const doc = await getJSON(`/api/ladders/${encodeURIComponent(name)}`);
      setStatus(`ladder ${doc.name} · rated ${when(doc.fitted_at)}`);
      const terms = doc.advantage === null ? "" :
        `first-move advantage ${signed(doc.advantage)} Elo · draw Elo ${elo(doc.draw_elo)}`;
      app.replaceChildren(
        h("p", { className: "crumbs" }, h("a", { href: "/ladders" }, "Ladders"), " / "),
        h("h1", {}, `Ladder ${doc.name}`),
        h("p", { className: "meta muted", id: "terms" }, termsText(doc)),
        h("section", { className: "card" }, h("h2", {}, "Ratings"),
          h("p", { className: "muted", id: "model" }, terms),
          doc.error ? h("p", { className: "error" }, `the last fit failed: ${doc.error}`) : null,
          ratingTable(doc)),
        playingSection(doc.name, doc.now),
        h("section", { className: "card", id: "recent" }, h("h2", {}, "Latest games"),
          gamesTable(doc.name, doc.recent)));
    } catch (error) {
      app.replaceChildren(h("p", { className: "error" }, error.message));
    }
  };
  await refresh();
  setInterval(refresh, REFRESH);
}

// --- one bot -----------------------------------------------------------------------

// The rating over time: a line through the points, the 95% band around it, a dot per point
// (its tooltip: when, the rating, its margin, the bot's games by then); the first and last
// point's dates under it.
export function ratingChart(history) {
  const width = 640, height = 200, left = 48, right = 12, top = 10, bottom = 26;
  const points = history.filter((p) => p.rating !== null);
  const chart = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", role: "img",
    "aria-label": "rating over time", "data-points": points.length });
  if (!points.length) return chart;
  const lows = points.map((p) => p.rating - (p.margin ?? 0));
  const highs = points.map((p) => p.rating + (p.margin ?? 0));
  let low = Math.min(...lows), high = Math.max(...highs);
  if (high - low < 20) { low -= 10; high += 10; }
  // evenly spaced: the points sit at equal steps of the ladder's games, not of time
  const x = (i) => left + (width - left - right) * (points.length > 1 ? i / (points.length - 1) : 0.5);
  const y = (v) => top + (height - top - bottom) * (1 - (v - low) / (high - low));
  const xy = points.map((p, i) => [x(i), y(p.rating)]);
  const fmt = (n) => n.toFixed(1);
  const band = [...points.map((p, i) => `${fmt(xy[i][0])},${fmt(y(highs[i]))}`),
    ...points.map((p, i) => `${fmt(xy[i][0])},${fmt(y(lows[i]))}`).reverse()];
  const line = xy.map(([px, py], i) => `${i ? "L" : "M"}${fmt(px)},${fmt(py)}`).join(" ");
  chart.append(
    s("line", { x1: left, x2: width - right, y1: y(low), y2: y(low), class: "axis" }),
    s("line", { x1: left, x2: left, y1: top, y2: height - bottom, class: "axis" }),
    s("text", { x: left - 6, y: y(high) + 4, "text-anchor": "end", class: "tick" }, high.toFixed(0)),
    s("text", { x: left - 6, y: y(low), "text-anchor": "end", class: "tick" }, low.toFixed(0)),
    s("text", { x: left, y: height - 8, class: "tick" }, points[0].time ? day(points[0].time) : ""),
    s("text", { x: width - right, y: height - 8, "text-anchor": "end", class: "tick" },
      points.at(-1).time ? day(points.at(-1).time) : ""),
    s("polygon", { points: band.join(" "), class: "band" }),
    s("path", { d: line, class: "line", "data-points": points.length }),
    ...points.map((p, i) => s("circle", { cx: fmt(xy[i][0]), cy: fmt(xy[i][1]), r: 3, class: "dot" },
      s("title", {}, `${p.time ? when(p.time) : ""}: ${elo(p.rating)}` +
        `${p.margin === null ? "" : ` ±${p.margin.toFixed(0)}`} after ${p.games} games`))));
  return chart;
}

// A bot the server hosts (--ladder-resident): "resident · 2 restarts · last exit: exit code 3";
// "waiting to restart" between an exit and the next start.
export function residentText(resident) {
  const restarts = `${resident.restarts} ${resident.restarts === 1 ? "restart" : "restarts"}`;
  return ["resident", resident.running ? null : "waiting to restart", restarts,
    resident.last_exit ? `last exit: ${resident.last_exit}` : null].filter(Boolean).join(" · ");
}

export async function showLadderBot(app, name, bot) {
  const refresh = async () => {
    try {
      const doc = await getJSON(botApi(name, bot));
      const row = doc.rating;
      const headline = row === null ? "not rated yet" :
        row.anchor ? `${elo(row.rating)} (anchor)` :
        `${elo(row.rating)} ± ${row.margin === null ? "-" : row.margin.toFixed(0)}`;
      const interval = row && row.margin !== null && !row.anchor ?
        `95% interval ${elo(row.rating - row.margin)} – ${elo(row.rating + row.margin)} · ` : "";
      const opponents = doc.by_opponent.map((o) => h("tr", { "data-opponent": o.opponent },
        h("td", {}, h("a", { href: botHref(name, o.opponent) }, o.opponent)),
        h("td", { className: "num" }, o.games),
        h("td", { className: "num wdl" }, `${o.wins} / ${o.draws} / ${o.losses}`),
        h("td", { className: "num" }, `${(o.score * 100).toFixed(0)}%`)));
      const failures = doc.failures || {};
      const failed = FAILURES.map((kind) => h("tr", { "data-failure": kind },
        h("th", {}, kind), h("td", { className: "num" }, failures[kind] ?? 0)));
      app.replaceChildren(
        h("p", { className: "crumbs" }, h("a", { href: "/ladders" }, "Ladders"), " / ",
          h("a", { href: ladderHref(name) }, name), " / "),
        h("h1", {}, h("span", { className: "bot-name" }, doc.bot), " ",
          h("span", { className: "bot-rating", id: "rating" }, headline)),
        h("p", { className: "meta muted" }, interval,
          row ? `rank ${row.rank} · ${row.games} rated games · ` : "",
          doc.connected ? "connected now" : "not connected",
          doc.resident ? [" · ", h("span", { id: "resident" }, residentText(doc.resident))] : null),
        h("section", { className: "card", id: "history" }, h("h2", {}, "Rating over time"),
          doc.history.length ? ratingChart(doc.history) : h("p", { className: "muted" }, "No rating yet.")),
        h("div", { className: "grid2" },
          h("section", { className: "card", id: "opponents" }, h("h2", {}, "Results by opponent"),
            table(["opponent", "games", "W / D / L", "score"], opponents, "No rated game yet.")),
          h("section", { className: "card", id: "failures" }, h("h2", {}, "Failures"),
            h("table", { className: "failures" }, h("tbody", {}, failed)))),
        h("section", { className: "card", id: "games" }, h("h2", {}, "Games"),
          gamesTable(name, doc.recent, doc.bot)));
    } catch (error) {
      app.replaceChildren(h("p", { className: "error" }, error.message));
    }
  };
  await refresh();
  setInterval(refresh, REFRESH);
}

// The lobby: live matches, open seeks and rooms, recent results, tournaments (refreshed).
import { getJSON, h, resultText, setStatus } from "./protocol.js";

function optionsText(options) {
  const items = Object.entries(options || {}).map(([k, v]) => `${k}=${v}`);
  return items.length ? items.join(", ") : "";
}

function gameLabel(game, options) {
  const text = optionsText(options);
  return text ? `${game} (${text})` : game;
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "-";
}

function table(headers, rows, empty) {
  if (!rows.length) return h("p", { className: "muted" }, empty);
  return h("table", {}, h("tr", {}, headers.map((x) => h("th", {}, x))), rows);
}

function liveSection(live) {
  const rows = live.matches.map((m) => h("tr", { "data-match": m.match },
    h("td", {}, h("a", { href: `/watch/${encodeURIComponent(m.match)}` }, m.match)),
    h("td", {}, gameLabel(m.game, m.options)),
    h("td", {}, m.players.join(" vs ")),
    h("td", {}, m.ply),
    h("td", {}, m.tournament || "")));
  return h("section", { className: "card", id: "live" }, h("h2", {}, "Live matches"),
    table(["match", "game", "players", "ply", "tournament"], rows, "No match is being played."));
}

function seeksSection(live) {
  const rows = live.seeks.map((s) => {
    const params = new URLSearchParams({ game: s.game, options: JSON.stringify(s.options), move_time: s.move_time });
    return h("tr", {}, h("td", {}, gameLabel(s.game, s.options)), h("td", {}, `${s.move_time}s`),
      h("td", {}, s.players.join(", ")), h("td", {}, h("a", { href: `/play?${params}` }, "accept")));
  });
  const rooms = live.rooms.map((r) => h("tr", {}, h("td", {}, r.room), h("td", {}, gameLabel(r.game, r.options)),
    h("td", {}, r.seats.map((s) => s || "free").join(" / "))));
  return h("section", { className: "card", id: "seeks" }, h("h2", {}, "Open seeks"),
    table(["game", "move time", "waiting", ""], rows, "Nobody is seeking."),
    rooms.length ? h("div", {}, h("h2", {}, "Rooms"), table(["room", "game", "seats"], rooms, "")) : null,
    h("p", {}, h("a", { href: "/play" }, "Seek a game or play an engine →")));
}

function recentSection(recent) {
  if (recent === null) return h("section", { className: "card" }, h("h2", {}, "Recent results"),
    h("p", { className: "muted" }, "This server keeps no records."));
  const rows = recent.map((m) => h("tr", { "data-match": m.id },
    h("td", {}, when(m.ended_at)),
    h("td", {}, gameLabel(m.game, m.options)),
    h("td", {}, m.players.join(" vs ")),
    h("td", {}, resultText(m.scores, m.winner, m.players)),
    h("td", {}, m.termination || ""),
    h("td", {}, h("a", { href: `/replay/${encodeURIComponent(m.id)}` }, "replay"))));
  return h("section", { className: "card", id: "recent" }, h("h2", {}, "Recent results"),
    table(["ended", "game", "players", "result", "how", ""], rows, "No finished match yet."));
}

export function standingsTable(doc) {
  const rows = doc.standings.map((s) => h("tr", {},
    h("td", {}, s.rank), h("td", {}, s.name), h("td", {}, s.games), h("td", {}, `${s.wins}/${s.draws}/${s.losses}`),
    h("td", {}, s.points), h("td", {}, s.elo === null ? "-" : s.elo.toFixed(0)),
    h("td", {}, s.elo_margin === null ? "-" : `±${s.elo_margin.toFixed(0)}`)));
  return table(["#", "player", "games", "W/D/L", "points", "Elo", "95%"], rows, "No games yet.");
}

export function crossTable(doc) {
  const names = doc.standings.map((s) => s.name);
  const rows = names.map((row) => h("tr", {}, h("th", {}, row), names.map((col) => {
    if (row === col) return h("td", { className: "cross muted" }, "×");
    const cell = (doc.crosstable[row] || {})[col];
    return h("td", { className: "cross" }, cell && cell.games ? `${cell.points}/${cell.games}` : "");
  })));
  return names.length ? h("table", { className: "crosstable" }, h("tr", {}, h("th", {}), names.map((n) => h("th", {}, n))), rows) : null;
}

function tournamentCard(doc) {
  const progress = doc.total ? `${doc.finished}/${doc.total} games` : `${doc.finished} games`;
  return h("div", { className: "tournament", "data-tournament": doc.id },
    h("h2", {}, h("a", { href: `/tournament/${encodeURIComponent(doc.id)}` }, doc.id), " ",
      h("span", { className: "muted" }, `${gameLabel(doc.game, doc.options)} · ${doc.status} · ${progress}`)),
    h("div", { className: "grid2" }, standingsTable(doc), crossTable(doc)));
}

async function tournamentsSection(list) {
  if (list === null) return null;
  const docs = await Promise.all(list.slice(0, 3).map((t) => getJSON(`/api/tournaments/${encodeURIComponent(t.id)}`)
    .catch(() => null)));
  const cards = docs.filter((d) => d).map(tournamentCard);
  return h("section", { className: "card", id: "tournaments" }, h("h1", {}, "Tournaments"),
    cards.length ? cards : h("p", { className: "muted" }, "No tournament yet."));
}

export async function showLobby(app) {
  const server = await getJSON("/api/server");
  setStatus(`${server.server} · ${server.status.connections} connections`);
  const refresh = async () => {
    try {
      const [live, recent, tournaments] = await Promise.all([
        getJSON("/api/live"),
        server.records ? getJSON("/api/matches?status=finished&limit=15").then((r) => r.matches) : null,
        server.records ? getJSON("/api/tournaments").then((r) => r.tournaments) : null,
      ]);
      const tour = await tournamentsSection(tournaments);
      app.replaceChildren(h("h1", {}, "Lobby"),
        h("div", { className: "grid2" }, liveSection(live), seeksSection(live)), recentSection(recent), tour);
    } catch (error) {
      setStatus(`lobby: ${error.message}`);
    }
  };
  await refresh();
  setInterval(refresh, (server.lobby_refresh || 2) * 1000);
}

export async function showTournament(app, id) {
  const refresh = async () => {
    try {
      const doc = await getJSON(`/api/tournaments/${encodeURIComponent(id)}`);
      const games = doc.games.map((g) => h("tr", {}, h("td", {}, g.index ?? ""), h("td", {}, g.seats.join(" vs ")),
        h("td", {}, g.scores ? g.scores.join("-") : g.status), h("td", {}, g.termination || ""),
        h("td", {}, h("a", { href: g.status === "running" ? `/watch/${g.match}` : `/replay/${g.match}` },
          g.status === "running" ? "watch" : "replay"))));
      app.replaceChildren(h("section", { className: "card" }, tournamentCard(doc), h("h2", {}, "Games"),
        table(["#", "seats", "score", "how", ""], games, "No games yet.")));
    } catch (error) {
      app.replaceChildren(h("p", { className: "error" }, error.message));
    }
  };
  await refresh();
  setInterval(refresh, 3000);
}

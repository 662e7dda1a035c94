// A finished (stored) game: /replay/ID, and /watch/ID once the match has ended. Step through
// it, jump to a ply, link to a ply (?ply=N).
import { drawBoard } from "./boards.js";
import {
  drawEvalBar, drawMoveList, fill, gameLayout, loadSeatNames, playerRows, resultLine, seatLabels, showPlayerInfo,
  showResult, timeControlText,
} from "./gameview.js";
import { getJSON, h, moveInfoText } from "./protocol.js";

export async function showReplay(app, id) {
  let doc;
  try {
    doc = await getJSON(`/api/matches/${encodeURIComponent(id)}`);
  } catch (error) {
    app.replaceChildren(h("p", { className: "error" }, error.message));
    return;
  }
  showFinished(app, doc, { base: `/replay/${encodeURIComponent(doc.match.id)}`, seatNames: await loadSeatNames() });
}

function when(seconds) {
  const date = new Date(seconds * 1000);
  return h("time", { datetime: date.toISOString() }, date.toLocaleString(undefined,
    { dateStyle: "medium", timeStyle: "short" }));
}

function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

// The stored game `doc` (GET /api/matches/ID) at `base` (its address: /replay/ID, or
// /watch/ID for a watched match, which names a ply only when it shows another than the last).
export function showFinished(app, doc, { base, seatNames, watched = false }) {
  const record = doc.match, moves = doc.moves, states = doc.states || [];
  const labels = seatLabels(seatNames || {}, record.game, record.players.length);
  const last = Math.max(0, states.length - 1);
  const wanted = parseInt(new URLSearchParams(location.search).get("ply") || String(last), 10);
  let ply = Math.min(Math.max(Number.isFinite(wanted) ? wanted : last, 0), last);

  const view = gameLayout(app, "");
  view.title.append(watched ? `${record.game} · ${record.id}` : `Replay ${record.id}`, " ",
    h("span", { className: "muted" }, watched ? (record.status === "running" ? "not being played" : "finished")
      : record.game));
  const options = Object.entries(record.options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
  const clock = record.extra && record.extra.clock;
  fill(view.meta, ...[
    options ? `${record.game} (${options})` : record.game,
    timeControlText(record.move_time, clock),
    when(record.started_at),
    record.ended_at ? `${duration(record.ended_at - record.started_at)}` : null,
    record.tournament ? h("a", { href: `/tournament/${encodeURIComponent(record.tournament)}` },
      `tournament ${record.tournament}`) : null,
  ].filter(Boolean).flatMap((part, i) => (i ? [" · ", part] : [part])));

  const rows = playerRows(view.players, { game: record.game, players: record.players, labels, you: null });
  rows.forEach(({ clock: box }, seat) => {  // each player's thinking time in all
    const used = moves.filter((m) => m.seat === seat).reduce((sum, m) => sum + (m.think_time || 0), 0);
    box.textContent = `${used.toFixed(1)}s`;
    box.title = "time spent thinking in all";
  });
  const line = resultLine(record, record.players, labels);
  showResult(view.result, line, watched ? [" ", h("a", { href: `/replay/${encodeURIComponent(record.id)}` }, "replay")]
    : null);

  const slider = h("input", { type: "range", min: 0, max: last, value: ply, id: "ply-slider",
    "aria-label": "ply" });
  const label = h("span", { id: "ply-label" });
  const info = h("div", { className: "muted move-info", id: "move-info" });
  const link = h("a", { id: "ply-link" }, "link to this ply");
  const button = (text, id, target) => h("button", { id, onclick: () => go(target()) }, text);
  fill(view.controls,
    h("div", { className: "controls" },
      button("« first", "first", () => 0), button("‹ prev", "prev", () => ply - 1),
      button("next ›", "next", () => ply + 1), button("last »", "last", () => last)),
    h("div", { className: "controls" }, slider, label),
    info,
    h("p", {}, link),
    doc.replay_error ? h("p", { className: "error" }, doc.replay_error) : null);

  function go(target) {
    ply = Math.min(Math.max(target, 0), last);
    const move = ply > 0 ? moves[ply - 1] : null;
    drawBoard(view.board, { game: record.game, state: states[ply], legal: null, onMove: null,
      last: move ? move.move : null });
    slider.value = ply;
    label.textContent = `ply ${ply} / ${last}` + (move ? ` · ${record.players[move.seat]} played ${move.notation}` +
      ` (${(move.think_time * 1000).toFixed(0)} ms)` : "");
    info.textContent = move ? moveInfoText(move) : "";
    const url = watched && ply === last ? base : `${base}?ply=${ply}`;
    link.href = url;
    history.replaceState(null, "", url);
    drawMoveList(view.moves, { moves, labels, current: ply, onPick: go });
    drawEvalBar(view.evalBar, { game: record.game, moves, ply, labels });
    showPlayerInfo(rows, moves, ply);
    const current = view.moves.querySelector(".current");
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement) return;  // the slider steps by itself
    if (event.key === "ArrowLeft") go(ply - 1);
    if (event.key === "ArrowRight") go(ply + 1);
  });
  go(ply);
}

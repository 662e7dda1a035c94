// Replay of a stored match: step, jump to a ply, link to a ply (?ply=N).
import { drawBoard } from "./boards.js";
import { getJSON, h, moveInfoText, resultText } from "./protocol.js";

export async function showReplay(app, id) {
  let doc;
  try {
    doc = await getJSON(`/api/matches/${encodeURIComponent(id)}`);
  } catch (error) {
    app.replaceChildren(h("p", { className: "error" }, error.message));
    return;
  }
  const record = doc.match, moves = doc.moves, states = doc.states || [];
  const last = Math.max(0, states.length - 1);
  const wanted = parseInt(new URLSearchParams(location.search).get("ply") || String(last), 10);
  let ply = Math.min(Math.max(Number.isFinite(wanted) ? wanted : last, 0), last);

  const board = h("div", { className: "board", id: "board" });
  const slider = h("input", { type: "range", min: 0, max: last, value: ply, id: "ply-slider" });
  const label = h("span", { id: "ply-label" });
  const info = h("div", { className: "muted move-info", id: "move-info" });
  const link = h("a", { id: "ply-link" }, "link to this ply");
  const moveList = h("div", { className: "moves", id: "moves" });
  const spans = moves.map((m, i) => h("span", { "data-ply": i + 1, onclick: () => go(i + 1),
    title: moveInfoText(m) || null }, `${i + 1}. ${m.notation}`));
  moveList.append(h("span", { "data-ply": 0, onclick: () => go(0) }, "start"), ...spans);

  function go(target) {
    ply = Math.min(Math.max(target, 0), last);
    const move = ply > 0 ? moves[ply - 1] : null;
    drawBoard(board, { game: record.game, state: states[ply], legal: null, onMove: null, last: move ? move.move : null });
    slider.value = ply;
    label.textContent = `ply ${ply} / ${last}` + (move ? ` · ${record.players[move.seat]} played ${move.notation}` +
      ` (${(move.think_time * 1000).toFixed(0)} ms)` : "");
    info.textContent = move ? moveInfoText(move) : "";
    const url = `/replay/${encodeURIComponent(record.id)}?ply=${ply}`;
    link.href = url;
    history.replaceState(null, "", url);
    for (const span of moveList.children) span.classList.toggle("current", Number(span.dataset.ply) === ply);
    const current = moveList.querySelector(".current");
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft") go(ply - 1);
    if (event.key === "ArrowRight") go(ply + 1);
  });
  const button = (text, id, target) => h("button", { id, onclick: () => go(target()) }, text);
  const result = record.scores
    ? `${resultText(record.scores, record.winner, record.players)} · ${record.termination}` +
      (record.reason ? ` · ${record.reason}` : "")
    : `no result (${record.status})`;
  app.replaceChildren(
    h("h1", {}, `Replay ${record.id}`, " ", h("span", { className: "muted" }, record.game)),
    h("div", { className: "match" }, board, h("div", { className: "side" },
      h("div", { className: "players" }, record.players.map((p, i) => h("div", {}, h("span", {}, `seat ${i}`), h("span", {}, p)))),
      h("div", { className: "result", id: "result" }, result),
      h("div", { className: "controls" },
        button("« first", "first", () => 0), button("‹ prev", "prev", () => ply - 1),
        button("next ›", "next", () => ply + 1), button("last »", "last", () => last)),
      h("div", { className: "controls" }, slider, label),
      info,
      h("p", {}, link),
      doc.replay_error ? h("p", { className: "error" }, doc.replay_error) : null,
      moveList)));
  go(ply);
}

// What the live page (/watch, /play) and the finished game (/watch of an ended match,
// /replay) show alike: the page's layout, the players with their colours, the result said
// once, the time control, clocks, the move list numbered by move, the engines' evaluation.
import { drawSwatch, seatColor } from "./boards.js";
import { getJSON, h, moveInfoText } from "./protocol.js";

let gamesLoaded = null;

// {name: seat_names} of every game the server knows (/api/games), asked once per page.
export function loadSeatNames() {
  if (gamesLoaded === null) {
    gamesLoaded = getJSON("/api/games")
      .then((games) => Object.fromEntries(games.map((g) => [g.name, g.seat_names])))
      .catch(() => ({}));
  }
  return gamesLoaded;
}

// The seats' names in `game` ("X", "O"; "Black", "White"), "seat N" where it names none.
export function seatLabels(names, game, count) {
  const known = names[game] || [];
  return Array.from({ length: count }, (_, i) => known[i] || `seat ${i}`);
}

// The page: a title, the board on the left, everything else beside it (under it when narrow).
export function gameLayout(app, title) {
  const view = {
    title: h("h1", {}, title),
    meta: h("p", { className: "muted meta", id: "meta" }),
    board: h("div", { className: "board", id: "board" }),
    players: h("div", { className: "players", id: "players", role: "group", "aria-label": "Players" }),
    evalBar: h("div", { className: "eval-bar", id: "eval-bar", hidden: true }),
    result: h("div", { className: "result", id: "result", hidden: true, role: "status" }),
    status: h("div", { className: "status", id: "status", "aria-live": "polite" }),
    controls: h("div", { className: "controls-box" }),
    moves: h("div", { className: "moves", id: "moves" }),
  };
  app.replaceChildren(view.title, view.meta, h("div", { className: "match" },
    h("div", { className: "board-col" }, view.board),
    h("div", { className: "side" }, view.players, view.evalBar, view.result, view.status, view.controls,
      h("h2", { className: "moves-title" }, "Moves"), view.moves)));
  return view;
}

// One row per player: its piece, its seat's name, its name, a clock, what its engine said.
export function playerRows(box, { game, players, labels, you }) {
  const rows = players.map((name, i) => {
    const row = h("div", { className: "player", "data-seat": i },
      h("span", { className: "who" }, drawSwatch(game, i, labels[i]),
        h("span", { className: "seat-name" }, labels[i]),
        h("span", { className: "name" }, name, i === you ? " (you)" : "")),
      h("span", { className: "clock", role: "timer", "aria-label": `${labels[i]} clock` }),
      h("div", { className: "info muted" }));
    return row;
  });
  fill(box, rows);
  return rows.map((row) => ({
    row,
    clock: row.querySelector(".clock"),
    info: row.querySelector(".info"),
  }));
}

// m:ss.s (always on a chess clock: `minutes`), else s.s s under a minute.
export function formatClock(seconds, minutes = false) {
  const tenths = Math.floor(Math.max(0, seconds) * 10);  // rounded down, as a clock runs
  const whole = Math.floor(tenths / 600);
  const rest = ((tenths - whole * 600) / 10).toFixed(1);
  return whole || minutes ? `${whole}:${rest.padStart(4, "0")}` : `${rest}s`;
}

// "5+3 clock" (minutes + seconds a move, as lichess writes it), else "1.5 s per move".
export function timeControlText(moveTime, clock) {
  if (clock) return `${+(clock.initial / 60).toFixed(2)}+${+clock.increment.toFixed(2)} clock`;
  return `${+moveTime.toFixed(3)} s per move`;
}

// "board_full" -> "board full"
export function terminationText(termination) {
  return String(termination || "").replaceAll("_", " ");
}

// The result once: {headline: "Draw · board full" | "mcts (X) wins · line", detail}; Go's
// says its margin too: "gnugo (White) wins · W+3.5 · score".
// `detail` is the server's reason where it says more than the headline ("rival ran out of
// time"), else "" (a board ending's reason, "draw (board_full)", only says it again).
// Go's result as SGF writes it: "B+3.5" by score, "W+R" by resignation, "B+T" on time,
// "W+F" by forfeit; "" for a draw or no result.
export function goResultText({ winner, termination, points }) {
  if (winner === null || winner === undefined) return "";
  const side = "BW"[winner];
  if (termination === "score" && Array.isArray(points)) return `${side}+${Math.abs(points[winner])}`;
  if (termination === "resignation") return `${side}+R`;
  if (termination === "timeout") return `${side}+T`;
  return `${side}+F`;
}

export function resultLine({ scores, winner, termination, reason, status, game, points }, players, labels) {
  if (!scores) {
    const why = status === "aborted" ? "Aborted, no result" : "No result";
    return { headline: termination ? `${why} · ${terminationText(termination)}` : why, detail: reason || "" };
  }
  const who = winner === null || winner === undefined ? "Draw" : `${players[winner]} (${labels[winner]}) wins`;
  const how = [game === "go" ? goResultText({ winner, termination, points }) : "", terminationText(termination)]
    .filter(Boolean).join(" · ");
  const headline = how ? `${who} · ${how}` : who;
  const said = reason || "";
  const board = termination && (said === `draw (${termination})` || said.endsWith(` wins (${termination})`));
  return { headline, detail: reason && !board ? reason : "" };
}

// `box`'s children: `children`, flattened, without the nulls (as `h` takes them).
export function fill(box, ...children) {
  box.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

// The result banner: the headline, the detail under it, then `extra` (a link).
export function showResult(box, line, ...extra) {
  box.hidden = false;
  fill(box, h("span", { className: "headline" }, line.headline),
    line.detail ? h("span", { className: "detail" }, line.detail) : null, extra);
}

// The mover's expected score (0 loss, 1 win) as 0.62.
export function evalText(value) {
  return value === null || value === undefined ? "" : value.toFixed(2);
}

// The move list, numbered by move: "1. X O", "2. X O" (a row a move, a column a seat).
// moves: [{notation, seat, eval, depth, visits, pv}]; `current` (a ply) is highlighted;
// `onPick(ply)` makes each move a button.
export function drawMoveList(box, { moves, labels, current = null, onPick = null }) {
  const seats = Math.max(2, labels.length);
  const head = h("tr", {}, h("th", { scope: "col" }, h("span", { className: "sr-only" }, "move")),
    labels.map((label) => h("th", { scope: "col" }, label)));
  const rows = [];
  for (let start = 0; start < moves.length; start += seats) {
    const cells = [];
    for (let k = 0; k < seats; k++) {
      const i = start + k;
      if (i >= moves.length) { cells.push(h("td", {})); continue; }
      const move = moves[i], ply = i + 1;
      const inner = [h("span", { className: "san" }, move.notation),
        move.eval !== null && move.eval !== undefined ? h("span", { className: "ev" }, evalText(move.eval)) : null];
      const attrs = { className: ply === current ? "mv current" : "mv", "data-ply": ply,
        title: moveInfoText(move) || null };
      cells.push(h("td", {}, onPick ? h("button", { type: "button", ...attrs, onclick: () => onPick(ply) }, inner)
        : h("span", attrs, inner)));
    }
    rows.push(h("tr", {}, h("th", { scope: "row", className: "num" }, `${start / seats + 1}.`), cells));
  }
  const table = h("table", { className: "move-table" }, h("caption", { className: "sr-only" }, "Moves"),
    h("thead", {}, head), h("tbody", {}, rows));
  box.replaceChildren(moves.length ? table : h("p", { className: "muted" }, "No move yet."));
}

// The last evaluation known at `ply` (the latest move up to it that carried one), seen from
// seat 0: a bar in the seats' colours. Hidden without one, or with more than two seats.
export function drawEvalBar(box, { game, moves, ply, labels }) {
  let value = null, mover = null;
  for (let i = Math.min(ply, moves.length) - 1; i >= 0; i--) {
    if (moves[i].eval !== null && moves[i].eval !== undefined) { value = moves[i].eval; mover = moves[i].seat; break; }
  }
  if (value === null || labels.length !== 2) { box.hidden = true; return; }
  const first = mover === 0 ? value : 1 - value;
  const percent = Math.round(first * 100);
  box.hidden = false;
  box.replaceChildren(
    h("div", { className: "eval-track", role: "meter", "aria-valuemin": 0, "aria-valuemax": 1,
      "aria-valuenow": first.toFixed(2), "aria-label": `expected score of ${labels[0]}`,
      style: `background: ${seatColor(game, 1)}` },
      h("div", { className: "eval-fill", style: `width: ${percent}%; background: ${seatColor(game, 0)}` })),
    h("div", { className: "eval-label" }, `${labels[0]} ${first.toFixed(2)} · ${labels[1]} ${(1 - first).toFixed(2)}`,
      h("span", { className: "muted" }, ` (the evaluation of ${labels[mover]}'s engine)`)));
}

// What each player's engine last said, up to `ply`, under its name.
export function showPlayerInfo(rows, moves, ply) {
  rows.forEach((r, seat) => {
    let text = "";
    for (let i = Math.min(ply, moves.length) - 1; i >= 0; i--) {
      if (moves[i].seat === seat) { text = moveInfoText(moves[i]); break; }
    }
    r.info.textContent = text;
  });
}

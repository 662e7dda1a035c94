// SVG boards for the built-in games, and a generic view for plug-in games.
// drawBoard(container, view) redraws from the state alone:
//   view = {game, state, legal: [moves] | null, onMove: move => void | null, last: move | null}
// Moves and states are the wire encodings of docs/PROTOCOL.md section 4.

const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

const STYLES = {
  tictactoe: { bg: "#ffffff", line: "#1d232b", piece: "mark" },
  ultimate: { bg: "#ffffff", line: "#8a94a0", piece: "mark" },
  gomoku: { bg: "#e3b76b", line: "#6b4a1a", piece: "stone", intersections: true },
  reversi: { bg: "#2e8b57", line: "#1b5e3a", piece: "disc" },
  connect4: { bg: "#2458c6", line: null, piece: "c4" },
};

// Go: its own board (stones on the intersections, star points, coordinates around it)
const GO = { bg: "#dcb35c", line: "#3b2a10", piece: "stone" };
// Go's column letters (no I), as GTP and docs/GAMES.md write vertices
const GO_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

export function hasRenderer(game) {
  if (game === "go") return true;
  return Object.prototype.hasOwnProperty.call(STYLES, game);
}

export function drawBoard(container, view) {
  container.replaceChildren();
  const state = view.state;
  if (!hasRenderer(view.game) || !state || !Array.isArray(state.board)) {
    drawGeneric(container, view);
    return;
  }
  if (view.game === "go") {
    drawGo(container, view);
    return;
  }
  const style = STYLES[view.game];
  const rows = state.board;
  const H = rows.length, W = rows[0].length;
  const size = Math.max(22, Math.min(64, Math.floor(520 / Math.max(W, H))));
  // the page's CSS scales the board to its column and the window's height (--aspect)
  container.style.setProperty("--aspect", String(W / H));
  const svg = el("svg", { viewBox: `0 0 ${W * size} ${H * size}`, width: W * size, height: H * size,
    "data-game": view.game, role: "img", "aria-label": `${view.game} board` }, container);
  el("rect", { x: 0, y: 0, width: W * size, height: H * size, fill: style.bg }, svg);
  if (view.game === "ultimate") drawUltimateBack(svg, state, size);
  drawGrid(svg, style, W, H, size);
  const cellOfMove = view.game === "connect4" ? (m) => connect4Cell(rows, m, true) : (m) => m;
  for (let r = 0; r < H; r++) {
    for (let c = 0; c < W; c++) {
      const ch = rows[r][c];
      const cx = c * size + size / 2, cy = r * size + size / 2;
      if (style.piece === "c4") el("circle", { cx, cy, r: size * 0.4, fill: "#f6f7f9" }, svg);
      if (ch === "X" || ch === "O") drawPiece(svg, style.piece, ch, cx, cy, size, r * W + c);
    }
  }
  if (view.game === "ultimate") drawUltimateWins(svg, state, size);
  if (view.last !== null && view.last !== undefined && view.last >= 0) {
    const cell = view.game === "connect4" ? connect4Cell(rows, view.last, false) : view.last;
    if (cell !== null) {
      const r = Math.floor(cell / W), c = cell % W;
      el("rect", { x: c * size + 2, y: r * size + 2, width: size - 4, height: size - 4, fill: "none",
        stroke: "#ff8c00", "stroke-width": 3, class: "last-move" }, svg);
    }
  }
  for (const move of view.legal || []) {
    if (typeof move !== "number" || move < 0) continue;
    const cell = cellOfMove(move);
    if (cell === null) continue;
    const r = Math.floor(cell / W), c = cell % W;
    const g = el("g", { class: "legal", "data-move": String(move) }, svg);
    if (view.game === "connect4") {
      el("rect", { x: c * size, y: 0, width: size, height: H * size, fill: "#ffffff", "fill-opacity": 0.08 }, g);
      el("circle", { cx: c * size + size / 2, cy: r * size + size / 2, r: size * 0.4, fill: "none",
        stroke: "#ffffff", "stroke-width": 3, "stroke-dasharray": "4 3" }, g);
    } else {
      el("rect", { x: c * size, y: r * size, width: size, height: size, fill: "#2f6fd6", "fill-opacity": 0.12 }, g);
      el("circle", { cx: c * size + size / 2, cy: r * size + size / 2, r: Math.max(3, size * 0.1), fill: "#2f6fd6",
        "fill-opacity": 0.7 }, g);
    }
    if (view.onMove) g.addEventListener("click", () => view.onMove(move));
  }
}

function drawGrid(svg, style, W, H, size) {
  if (!style.line) return;
  if (style.intersections) {
    for (let i = 0; i < W; i++) el("line", { x1: i * size + size / 2, y1: size / 2, x2: i * size + size / 2,
      y2: H * size - size / 2, stroke: style.line, "stroke-width": 1 }, svg);
    for (let j = 0; j < H; j++) el("line", { x1: size / 2, y1: j * size + size / 2, x2: W * size - size / 2,
      y2: j * size + size / 2, stroke: style.line, "stroke-width": 1 }, svg);
    return;
  }
  for (let i = 1; i < W; i++) el("line", { x1: i * size, y1: 0, x2: i * size, y2: H * size, stroke: style.line,
    "stroke-width": 1.5 }, svg);
  for (let j = 1; j < H; j++) el("line", { x1: 0, y1: j * size, x2: W * size, y2: j * size, stroke: style.line,
    "stroke-width": 1.5 }, svg);
}

function drawPiece(svg, kind, ch, cx, cy, size, cell) {
  const attrs = { class: `piece ${ch}`, "data-cell": String(cell) };
  if (kind === "mark") {
    const g = el("g", attrs, svg), d = size * 0.3;
    if (ch === "X") {
      el("line", { x1: cx - d, y1: cy - d, x2: cx + d, y2: cy + d, stroke: "#2f6fd6", "stroke-width": size * 0.1,
        "stroke-linecap": "round" }, g);
      el("line", { x1: cx - d, y1: cy + d, x2: cx + d, y2: cy - d, stroke: "#2f6fd6", "stroke-width": size * 0.1,
        "stroke-linecap": "round" }, g);
    } else {
      el("circle", { cx, cy, r: d, fill: "none", stroke: "#d63c2f", "stroke-width": size * 0.1 }, g);
    }
    return;
  }
  const colors = PIECE_COLORS[kind][ch];
  el("circle", { ...attrs, cx, cy, r: size * (kind === "stone" ? 0.44 : 0.4), fill: colors[0], stroke: colors[1],
    "stroke-width": 1.5 }, svg);
}

const PIECE_COLORS = {
  stone: { X: ["#111", "#000"], O: ["#fafafa", "#666"] },
  disc: { X: ["#111", "#000"], O: ["#fafafa", "#999"] },
  c4: { X: ["#e03a3a", "#a82020"], O: ["#f2c530", "#b8901a"] },
  mark: { X: ["#2f6fd6", "#2f6fd6"], O: ["#d63c2f", "#d63c2f"] },
};
// a seat of a game without a renderer (or past the second): a plain colour
const OTHER_SEATS = ["#2f6fd6", "#d63c2f", "#2e8b57", "#8e44ad", "#e67e22", "#16a085"];

// Seat `seat`'s colour on the board (the fill of its pieces): for an eval bar.
export function seatColor(game, seat) {
  if (game === "go" && seat < 2) return PIECE_COLORS.stone["XO"[seat]][0];
  if (hasRenderer(game) && seat < 2) return PIECE_COLORS[STYLES[game].piece]["XO"[seat]][0];
  return OTHER_SEATS[seat % OTHER_SEATS.length];
}

// A small picture of seat `seat`'s piece (its disc, stone or mark), labelled with `label`.
export function drawSwatch(game, seat, label, px = 20) {
  const size = 24;
  const svg = document.createElementNS(NS, "svg");
  for (const [k, v] of Object.entries({ viewBox: `0 0 ${size} ${size}`, width: px, height: px, role: "img",
    "aria-label": label, class: "swatch", "data-seat": String(seat) })) svg.setAttribute(k, v);
  const style = game === "go" && seat < 2 ? GO : hasRenderer(game) && seat < 2 ? STYLES[game] : null;
  if (style === null) {
    el("circle", { cx: 12, cy: 12, r: 9, fill: OTHER_SEATS[seat % OTHER_SEATS.length] }, svg);
    return svg;
  }
  if (style.piece === "c4") el("rect", { x: 0, y: 0, width: size, height: size, rx: 4, fill: style.bg }, svg);
  if (style.piece === "stone" || style.piece === "disc") {
    el("rect", { x: 0, y: 0, width: size, height: size, rx: 4, fill: style.bg }, svg);
  }
  drawPiece(svg, style.piece, "XO"[seat], 12, 12, size, -1);
  return svg;
}

// connect4: a column's landing cell (empty=true) or its top disc (empty=false)
function connect4Cell(rows, column, empty) {
  const H = rows.length, W = rows[0].length;
  if (column < 0 || column >= W) return null;
  if (empty) {
    for (let r = H - 1; r >= 0; r--) if (rows[r][column] === ".") return r * W + column;
  } else {
    for (let r = 0; r < H; r++) if (rows[r][column] !== ".") return r * W + column;
  }
  return null;
}

function drawUltimateBack(svg, state, size) {
  if (state.forced === null || state.forced === undefined) return;
  const br = Math.floor(state.forced / 3), bc = state.forced % 3;
  el("rect", { x: bc * 3 * size, y: br * 3 * size, width: 3 * size, height: 3 * size, fill: "#fff4c2",
    class: "forced" }, svg);
}

function drawUltimateWins(svg, state, size) {
  for (let i = 0; i <= 3; i++) {
    el("line", { x1: i * 3 * size, y1: 0, x2: i * 3 * size, y2: 9 * size, stroke: "#1d232b", "stroke-width": 4 }, svg);
    el("line", { x1: 0, y1: i * 3 * size, x2: 9 * size, y2: i * 3 * size, stroke: "#1d232b", "stroke-width": 4 }, svg);
  }
  const subs = state.sub_boards || [];
  for (let br = 0; br < 3; br++) {
    for (let bc = 0; bc < 3; bc++) {
      const ch = (subs[br] || "")[bc];
      if (ch !== "X" && ch !== "O") continue;
      const g = el("g", { opacity: 0.55, class: `won ${ch}` }, svg);
      el("rect", { x: bc * 3 * size + 2, y: br * 3 * size + 2, width: 3 * size - 4, height: 3 * size - 4,
        fill: "#ffffff", "fill-opacity": 0.6 }, g);
      drawPiece(g, "mark", ch, bc * 3 * size + 1.5 * size, br * 3 * size + 1.5 * size, 3 * size, -1);
    }
  }
}

// A plug-in game without a renderer: its board rows if it has them, else the state as JSON.
function drawGeneric(container, view) {
  const pre = document.createElement("pre");
  pre.className = "generic";
  const state = view.state;
  pre.textContent = state && Array.isArray(state.board) && state.board.every((r) => typeof r === "string")
    ? state.board.join("\n") + "\n\n" + JSON.stringify({ ...state, board: undefined })
    : JSON.stringify(state, null, 1);
  container.appendChild(pre);
}

// The star points of an n×n Go board (row, col): the 4-4 points (3-3 below 13×13), the
// centre of an odd board, and the edge midpoints from 15×15 up.
export function starPoints(n) {
  if (n < 7) return n % 2 ? [[(n - 1) / 2, (n - 1) / 2]] : [];
  const d = n >= 13 ? 3 : 2, far = n - 1 - d, mid = (n - 1) / 2;
  const lines = n % 2 ? (n >= 15 ? [d, mid, far] : [d, far]) : [d, far];
  const points = [];
  for (const r of lines) for (const c of lines) points.push([r, c]);
  if (n % 2 && n < 15) points.push([mid, mid]);
  return points;
}

// Go: the grid with its star points, letters above and below, numbers (from the bottom)
// left and right, the stones, the last stone marked, the legal points clickable, and under
// the board the captures (and each side's area once the game is over).
function drawGo(container, view) {
  const state = view.state, rows = state.board, n = rows.length;
  const size = Math.max(24, Math.min(56, Math.floor(600 / (n + 1))));
  // a margin wide enough for a two-digit number beside an edge stone
  const margin = Math.round(size * 1.3), span = (n - 1) * size + 2 * margin, edge = margin * 0.4;
  const at = (i) => margin + i * size;
  container.style.setProperty("--aspect", "1");
  const svg = el("svg", { viewBox: `0 0 ${span} ${span}`, width: span, height: span, "data-game": "go",
    "data-size": String(n), role: "img", "aria-label": `go board ${n}x${n}` }, container);
  el("rect", { x: 0, y: 0, width: span, height: span, fill: GO.bg }, svg);
  for (let i = 0; i < n; i++) {
    el("line", { x1: at(i), y1: at(0), x2: at(i), y2: at(n - 1), stroke: GO.line, "stroke-width": 1 }, svg);
    el("line", { x1: at(0), y1: at(i), x2: at(n - 1), y2: at(i), stroke: GO.line, "stroke-width": 1 }, svg);
  }
  for (const [r, c] of starPoints(n)) {
    el("circle", { cx: at(c), cy: at(r), r: Math.max(2.5, size * 0.1), fill: GO.line, class: "star" }, svg);
  }
  const font = Math.round(size * 0.38);
  for (let i = 0; i < n; i++) {
    const letter = GO_LETTERS[i], number = String(n - i);
    for (const [x, y, text, side] of [[at(i), edge, letter, "top"], [at(i), span - edge, letter, "bottom"],
      [edge, at(i), number, "left"], [span - edge, at(i), number, "right"]]) {
      const label = el("text", { x, y, "font-size": font, "text-anchor": "middle", "dominant-baseline": "central",
        fill: GO.line, "font-family": "system-ui, sans-serif", class: `coord ${side}` }, svg);
      label.textContent = text;
    }
  }
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const ch = rows[r][c];
      if (ch === "X" || ch === "O") drawPiece(svg, "stone", ch, at(c), at(r), size, r * n + c);
    }
  }
  // while people mark dead stones: the marked ones faded and crossed; with `onMark`, a
  // click on any stone toggles its chain
  const dead = new Set(view.dead || []);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const ch = rows[r][c], point = r * n + c;
      if (ch !== "X" && ch !== "O") continue;
      if (dead.has(point)) {
        const g = el("g", { class: "dead", "data-cell": String(point) }, svg);
        el("circle", { cx: at(c), cy: at(r), r: size * 0.46, fill: GO.bg, "fill-opacity": 0.55 }, g);
        const d = size * 0.22, stroke = ch === "X" ? "#111" : "#666";
        for (const [dx, dy] of [[d, d], [d, -d]]) {
          el("line", { x1: at(c) - dx, y1: at(r) - dy, x2: at(c) + dx, y2: at(r) + dy, stroke,
            "stroke-width": Math.max(2, size * 0.08) }, g);
        }
      }
      if (view.onMark) {
        const g = el("g", { class: "markable", "data-point": String(point),
          "aria-label": `${GO_LETTERS[c]}${n - r}` }, svg);
        el("rect", { x: at(c) - size / 2, y: at(r) - size / 2, width: size, height: size, fill: "#ffffff",
          "fill-opacity": 0 }, g);
        g.addEventListener("click", () => view.onMark(point));
      }
    }
  }
  const last = view.last;
  if (typeof last === "number" && last >= 0 && last < n * n) {
    const r = Math.floor(last / n), c = last % n;
    el("circle", { cx: at(c), cy: at(r), r: size * 0.2, fill: "none", "stroke-width": Math.max(2, size * 0.07),
      stroke: rows[r][c] === "X" ? "#fafafa" : "#111", class: "last-move", "data-cell": String(last) }, svg);
  }
  for (const move of view.legal || []) {
    if (typeof move !== "number" || move < 0 || move >= n * n) continue;
    const r = Math.floor(move / n), c = move % n;
    const g = el("g", { class: "legal", "data-move": String(move),
      "aria-label": `${GO_LETTERS[c]}${n - r}` }, svg);
    el("rect", { x: at(c) - size / 2, y: at(r) - size / 2, width: size, height: size, fill: "#ffffff",
      "fill-opacity": 0 }, g);
    el("circle", { cx: at(c), cy: at(r), r: size * 0.3, fill: "#2f6fd6", "fill-opacity": 0.18, class: "hint" }, g);
    if (view.onMove) g.addEventListener("click", () => view.onMove(move));
  }
  const captures = Array.isArray(state.captures) ? state.captures : [0, 0];
  const parts = [`captures: Black ${captures[0]}, White ${captures[1]}`];
  if (Array.isArray(state.area)) parts.push(`area: Black ${state.area[0]}, White ${state.area[1]}`);
  if (view.marking) {
    const m = view.marking, margin = m.points[0];
    const count = margin === 0 ? "0" : `${margin > 0 ? "B" : "W"}+${Math.abs(margin)}`;
    parts.push(`both passed: ${m.dead.length} dead marked`,
      `counted without them: Black ${m.area[0]}, White ${m.area[1]} · ${count}`);
  } else if (state.passes) parts.push(state.passes === 1 ? "last move: pass" : "both passed");
  const note = document.createElement("p");
  note.className = "board-note";
  note.id = "board-note";
  note.textContent = parts.join(" · ");
  container.appendChild(note);
}

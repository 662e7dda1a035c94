// A live match: spectate one (/watch/ID) or play one (/play) over the protocol WebSocket.
// /watch/ID of a match that has ended (or that ends while watched) shows the finished game
// at the same address (replay.js).
import { drawBoard, hasRenderer } from "./boards.js";
import {
  drawEvalBar, drawMoveList, formatClock, gameLayout, loadSeatNames, playerRows, resultLine, seatLabels,
  showPlayerInfo, showResult, timeControlText,
} from "./gameview.js";
import { ArenaSocket, getJSON, h } from "./protocol.js";
import { showFinished } from "./replay.js";

const SEAT_KEY = "arena.seat";  // {match, token, name}: a reload rejoins the seat
const NAME_KEY = "arena.name";

class LiveView {
  constructor(app, { onMove, onResign, onMarking, seatNames }) {
    this.onMove = onMove;
    // Go between people: `mark`, `accept`, `resume` while the dead stones are marked
    this.onMarking = onMarking || null;
    this.marking = null;
    this.seatNames = seatNames || {};
    this.view = gameLayout(app, "Match");
    Object.assign(this, { board: this.view.board, status: this.view.status, result: this.view.result });
    this.moveBox = h("form", { id: "move-box", hidden: true, onsubmit: (e) => this.submitTyped(e) },
      h("input", { name: "move", placeholder: "move as JSON, e.g. 4", size: 18, "aria-label": "your move (JSON)" }),
      " ", h("button", { type: "submit" }, "play"), h("div", { className: "legal-list" }));
    this.pass = h("button", { id: "pass", hidden: true, onclick: () => this.play(-1) }, "pass");
    this.resign = onResign ? h("button", { id: "resign", hidden: true, onclick: onResign }, "resign") : null;
    this.accept = h("button", { id: "accept", hidden: true, className: "primary",
      onclick: () => this.marking && this.onMarking({ type: "accept", dead: this.marking.dead }) }, "Accept");
    this.resume = h("button", { id: "resume", hidden: true,
      onclick: () => this.marking && this.onMarking({ type: "resume" }) }, "Resume");
    this.view.controls.replaceChildren(h("div", { className: "controls" }, this.pass, this.accept, this.resume,
      this.resign), this.moveBox);
    this.legal = null;
    this.rows = null;
    this.timer = setInterval(() => this.tick(), 100);
  }

  start(msg) {
    Object.assign(this, { id: msg.match, game: msg.game, names: msg.players, seat: msg.seat, state: msg.state,
      ply: msg.ply, moveTime: msg.time_control.move_time, ended: false, last: null, legal: null });
    this.labels = seatLabels(this.seatNames, msg.game, msg.players.length);
    // every move so far in the game's notation, as each update gives it (a server before
    // match_start.notations: the raw moves until the stored record names them); what the
    // engines said about them comes from the stored record
    const named = Array.isArray(msg.notations) && msg.notations.length === msg.moves.length;
    this.moves = msg.moves.map((m, i) => ({ move: m, seat: i % msg.players.length,
      notation: named ? msg.notations[i] : JSON.stringify(m), eval: null, depth: null, visits: null, pv: [] }));
    this.known = msg.moves.length;  // moves from before this page saw the match
    this.last = msg.moves.length ? msg.moves[msg.moves.length - 1] : null;
    this.lastSeat = msg.moves.length ? this.moves[this.moves.length - 1].seat : undefined;
    // with a chess clock (time_control.clock), both seats' remaining time is shown
    const clock = msg.time_control.clock;
    this.clocks = clock ? msg.players.map(() => clock.initial) : null;
    this.turnStart = performance.now();
    this.deadline = null;
    this.view.title.replaceChildren(`${msg.game} · ${msg.match}`, " ",
      h("span", { className: "muted" }, this.seat === null ? "watching live" : `you play seat ${this.seat}`));
    const options = Object.entries(msg.options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
    this.view.meta.textContent = [options ? `${msg.game} (${options})` : msg.game,
      timeControlText(this.moveTime, clock)].join(" · ");
    this.rows = playerRows(this.view.players, { game: msg.game, players: msg.players, labels: this.labels,
      you: this.seat });
    this.result.hidden = true;
    if (this.known) this.fillFromRecord();
    this.render();
  }

  // The moves played before this page saw the match, with what their engines said, from
  // the stored record (written about a second behind the game: asked again until it has them).
  async fillFromRecord() {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const doc = await getJSON(`/api/matches/${encodeURIComponent(this.id)}`);
        for (const m of doc.moves) {
          if (m.ply < this.known && this.moves[m.ply]) Object.assign(this.moves[m.ply], m);
        }
        this.renderMoves();
        if (doc.moves.length >= this.known) return;
      } catch { /* the record is optional: the moves stay without their info */ }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  toMove() {
    if (this.ended) return null;
    if (this.state && Number.isInteger(this.state.to_move)) return this.state.to_move;
    return this.lastSeat === undefined ? 0 : (this.lastSeat + 1) % this.names.length;
  }

  // Both people passed: the dead stones being agreed on (PROTOCOL.md "Go: dead stones").
  scoring(msg) {
    this.marking = msg;
    this.markingEnds = performance.now() + msg.time_left * 1000;
    this.legal = null;
    const mine = this.seat !== null && this.seat !== undefined;
    const names = this.names.map((name, i) => `${name} ${msg.accepted[i] ? "accepted" : "has not accepted"}`);
    this.setStatus(mine
      ? `Both passed: click a chain to mark it dead (or alive again), then Accept. ${names.join(", ")}.`
      : `Both passed: the players mark the dead stones. ${names.join(", ")}.`);
    this.render();
  }

  resumed(msg) {
    this.marking = null;
    this.setStatus(`${this.names[msg.seat]} resumed play.`);
    this.render();
  }

  update(msg) {
    this.marking = null;
    this.state = msg.state;
    this.ply = msg.ply;
    this.last = msg.move;
    this.lastSeat = msg.seat;
    this.moves.push({ move: msg.move, seat: msg.seat, notation: msg.notation, think_time: msg.think_time,
      eval: msg.eval ?? null, depth: msg.depth ?? null, visits: msg.visits ?? null, pv: msg.pv || [] });
    if (msg.clocks) this.clocks = msg.clocks;
    this.turnStart = performance.now();
    this.deadline = null;
    this.legal = null;
    this.render();
  }

  turn(msg) {
    this.state = msg.state;
    this.ply = msg.ply;
    this.legal = msg.legal_moves;
    if (msg.clocks) this.clocks = msg.clocks;
    this.turnStart = performance.now();
    this.deadline = performance.now() + msg.time_left * 1000;
    this.setStatus("Your move.");
    this.render();
  }

  end(msg) {
    this.ended = true;
    this.legal = null;
    this.marking = null;
    let mine = "";
    if (this.seat !== null && this.seat !== undefined) {
      mine = msg.winner === null ? " · draw" : msg.winner === this.seat ? " · you win" : " · you lose";
    }
    const line = resultLine({ ...msg, game: this.game }, this.names, this.labels);
    showResult(this.result, { ...line, headline: line.headline + mine }, " ",
      h("a", { href: `/replay/${encodeURIComponent(msg.match)}` }, "replay"));
    this.setStatus("");
    const mode = this.view.title.querySelector(".muted");
    if (mode && (this.seat === null || this.seat === undefined)) mode.textContent = "finished";
    this.render();
  }

  setStatus(text, error) {
    this.status.textContent = text;
    this.status.className = error ? "status error" : "status";
  }

  play(move) {
    if (!this.legal) return;
    this.legal = null;
    this.onMove(this.id, this.ply, move);
    this.setStatus("Sent.");
    this.render();
  }

  submitTyped(event) {
    event.preventDefault();
    const text = this.moveBox.elements.move.value.trim();
    let move;
    try { move = JSON.parse(text); } catch { move = text; }
    this.play(move);
  }

  render() {
    const mine = this.legal !== null;
    const marking = this.marking, marker = marking && this.onMarking && this.seat !== null && this.seat !== undefined;
    drawBoard(this.board, { game: this.game, state: this.state, legal: this.legal, last: this.last,
      onMove: mine ? (m) => this.play(m) : null, marking, dead: marking ? marking.dead : null,
      onMark: marker ? (point) => this.onMarking({ type: "mark", point }) : null });
    this.accept.hidden = !marker || marking.accepted[this.seat];
    this.resume.hidden = !marker;
    this.pass.hidden = !(mine && this.legal.includes(-1) && (this.game === "reversi" || this.game === "go"));
    if (this.resign) this.resign.hidden = this.ended || this.seat === null || this.seat === undefined;
    const generic = !hasRenderer(this.game);
    this.moveBox.hidden = !(mine && generic);
    if (mine && generic) {
      this.moveBox.querySelector(".legal-list").replaceChildren(...this.legal.slice(0, 200).map((m) =>
        h("button", { type: "button", onclick: () => this.play(m) }, JSON.stringify(m))));
    }
    this.renderMoves();
    this.tick();
  }

  renderMoves() {
    drawMoveList(this.view.moves, { moves: this.moves, labels: this.labels, current: this.moves.length });
    drawEvalBar(this.view.evalBar, { game: this.game, moves: this.moves, ply: this.moves.length, labels: this.labels });
    showPlayerInfo(this.rows, this.moves, this.moves.length);
    this.view.moves.scrollTop = this.view.moves.scrollHeight;
  }

  // Both seats' clocks: on a chess clock each seat's remaining time, the running one
  // counting down; on a per-move limit the mover's time left for this move, counting
  // down, and the others' full allowance for their next move.
  tick() {
    if (!this.rows) return;
    const seat = this.marking ? null : this.toMove();  // the clocks stop while marking
    const now = performance.now();
    const elapsed = (now - this.turnStart) / 1000;
    this.rows.forEach(({ row, clock }, i) => {
      const running = i === seat;
      let left;
      if (this.clocks) left = this.clocks[i] - (running ? elapsed : 0);
      else if (running && this.deadline !== null && i === this.seat) left = (this.deadline - now) / 1000;
      else left = this.moveTime - (running ? elapsed : 0);
      clock.textContent = formatClock(left, this.clocks !== null);
      clock.classList.toggle("running", running);
      clock.classList.toggle("low", running && left < 10 && left < (this.clocks ? 60 : this.moveTime) / 4);
      row.classList.toggle("to-move", running);
    });
  }
}

// After a match's end: the finished game from its record, once the record says it ended
// (a server that keeps no records, or a record not readable in time: the live view stays).
async function finishWhenStored(app, id, seatNames) {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const doc = await getJSON(`/api/matches/${encodeURIComponent(id)}`);
      if (doc.match.status !== "running") {
        showFinished(app, doc, { base: `/watch/${encodeURIComponent(id)}`, seatNames, watched: true });
        return;
      }
    } catch { /* not stored yet, or no records at all */ }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function showWatch(app, id) {
  const seatNames = await loadSeatNames();
  const view = new LiveView(app, { onMove: () => {}, seatNames });
  view.setStatus("Connecting…");
  const socket = new ArenaSocket({
    name: "web-spectator", role: "spectator",
    onOpen: () => socket.send({ type: "spectate", match: id }),
    onMessage: (msg) => {
      if (msg.type === "match_start") { view.start(msg); view.setStatus("Live."); }
      else if (msg.type === "update") view.update(msg);
      else if (msg.type === "scoring") view.scoring(msg);
      else if (msg.type === "resumed") view.resumed(msg);
      else if (msg.type === "match_end") {
        view.end(msg);
        socket.close();
        clearInterval(view.timer);
        if (msg.recorded) finishWhenStored(app, id, seatNames);
      } else if (msg.type === "error") {
        if (msg.code === "unknown_match") {
          socket.close();
          clearInterval(view.timer);
          showStored(app, id, seatNames);
        } else view.setStatus(`${msg.code}: ${msg.message}`, true);
      }
    },
    onClose: () => { if (!view.ended) view.setStatus("Connection lost.", true); },
  });
  socket.connect();
}

// /watch/ID of a match nobody is playing: its record, if there is one.
async function showStored(app, id, seatNames) {
  let doc;
  try {
    doc = await getJSON(`/api/matches/${encodeURIComponent(id)}`);
  } catch (error) {
    app.replaceChildren(h("p", {}, `Match ${id} is not being played, and `, h("span", { className: "error" },
      error.message), ". Go to the ", h("a", { href: "/" }, "lobby"), "."));
    return;
  }
  showFinished(app, doc, { base: `/watch/${encodeURIComponent(id)}`, seatNames, watched: true });
}

function loadSeat() {
  try { return JSON.parse(localStorage.getItem(SEAT_KEY) || "null"); } catch { return null; }
}

export async function showPlay(app) {
  const [server, games] = await Promise.all([getJSON("/api/server"), getJSON("/api/games")]);
  const seatNames = Object.fromEntries(games.map((g) => [g.name, g.seat_names]));
  let socket = null, view = null;

  const connect = (name, onOpen) => {
    if (socket) socket.close();
    socket = new ArenaSocket({ name, role: "player", onOpen, onMessage, onClose });
    socket.connect();
  };

  const onMessage = (msg) => {
    if (msg.type === "seeking") view.setStatus(msg.room ? "Waiting for the engine…" : "Seeking an opponent…");
    else if (msg.type === "match_start") {
      localStorage.setItem(SEAT_KEY, JSON.stringify({ match: msg.match, token: msg.token, name: socket.name }));
      view.start(msg);
      view.setStatus("Playing.");
    } else if (msg.type === "turn") view.turn(msg);
    else if (msg.type === "scoring") view.scoring(msg);
    else if (msg.type === "resumed") view.resumed(msg);
    else if (msg.type === "update") { view.update(msg); if (msg.seat === view.seat) view.setStatus("Waiting for the opponent…"); }
    else if (msg.type === "illegal") view.setStatus(`Illegal move: ${msg.reason}`, true);
    else if (msg.type === "match_end") {
      localStorage.removeItem(SEAT_KEY);
      view.end(msg);
      view.status.append(" ", h("button", { id: "again", onclick: () => { socket.close(); showForm(); } }, "play again"));
    } else if (msg.type === "error") {
      if (msg.code === "bad_token") { localStorage.removeItem(SEAT_KEY); showForm(); }
      else view.setStatus(`${msg.code}: ${msg.message}`, true);
    }
  };

  const onClose = () => {
    const seat = loadSeat();
    if (seat && view && !view.ended) {
      view.setStatus("Connection lost; rejoining…", true);
      setTimeout(() => rejoin(seat), 1000);
    }
  };

  const newView = () => {
    view = new LiveView(app, {
      seatNames,
      onMove: (match, ply, move) => socket.send({ type: "move", match, ply, move }),
      onMarking: (request) => socket.send({ ...request, match: view.id }),
      onResign: () => { if (view.id && confirm("Resign this game?")) socket.send({ type: "resign", match: view.id }); },
    });
  };

  const rejoin = (seat) => {
    if (!view) newView();
    view.setStatus("Rejoining your game…");
    connect(seat.name, () => socket.send({ type: "rejoin", token: seat.token }));
  };

  const start = async (choice) => {
    localStorage.setItem(NAME_KEY, choice.name);
    newView();
    view.setStatus("Connecting…");
    let room = null;
    if (choice.engine) {
      const engineSeat = choice.seat === null ? Math.floor(Math.random() * 2) : 1 - choice.seat;
      const response = await fetch("/engine", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ engine: choice.engine, game: choice.game, options: choice.options,
          move_time: choice.move_time, seat: engineSeat }) });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) { showForm(body.error || `HTTP ${response.status}`); return; }
      room = body.room;
      choice.seat = 1 - engineSeat;
    }
    connect(choice.name, () => {
      const common = { game: choice.game, options: choice.options, move_time: choice.move_time };
      if (room) socket.send({ type: "join", room, seat: choice.seat, ...common });
      else socket.send({ type: "seek", ...common });
    });
  };

  const showForm = (error) => {
    view = null;
    const params = new URLSearchParams(location.search);
    const gameSelect = h("select", { name: "game", id: "game" }, games.map((g) => h("option", { value: g.name }, g.name)));
    if (params.get("game")) gameSelect.value = params.get("game");
    const optionBox = h("div", { id: "options" });
    let preset = {};
    try { preset = JSON.parse(params.get("options") || "{}"); } catch { preset = {}; }
    const fillOptions = () => {
      const spec = games.find((g) => g.name === gameSelect.value);
      optionBox.replaceChildren(...spec.options.map((o) => h("span", {}, h("label", {}, `${o.name} (${o.help})`),
        h("input", { name: `opt-${o.name}`, type: o.type === "int" ? "number" : "text", min: o.minimum, max: o.maximum,
          value: preset[o.name] ?? o.default }))));
      preset = {};
    };
    gameSelect.addEventListener("change", fillOptions);
    fillOptions();
    const form = h("form", { className: "play card", id: "play-form" },
      h("h1", {}, "Play"),
      error ? h("p", { className: "error" }, error) : null,
      h("label", {}, "your name"), h("input", { name: "name", id: "name", maxlength: 64, required: true,
        value: localStorage.getItem(NAME_KEY) || `human-${Math.floor(Math.random() * 9000 + 1000)}` }),
      h("label", {}, "game"), gameSelect, optionBox,
      h("label", {}, "seconds per move"), h("input", { name: "move_time", id: "move-time", type: "number", step: "any",
        min: 0.1, max: server.max_move_time, value: params.get("move_time") || 30 }),
      h("label", {}, "opponent"), h("select", { name: "opponent", id: "opponent" },
        h("option", { value: "" }, "anyone (open seek)"),
        server.engines.map((e) => h("option", { value: e }, `engine: ${e}`))),
      h("label", {}, "your seat (engine games)"), h("select", { name: "seat", id: "seat" },
        h("option", { value: "" }, "random"), h("option", { value: "0" }, "first (X)"), h("option", { value: "1" }, "second (O)")),
      h("p", {}, h("button", { type: "submit", className: "primary", id: "start" }, "Start")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const spec = games.find((g) => g.name === data.get("game"));
      const options = {};
      for (const o of spec.options) {
        const raw = data.get(`opt-${o.name}`);
        if (raw !== null && raw !== "") options[o.name] = o.type === "int" ? Number(raw) : raw;
      }
      start({ name: String(data.get("name")).trim(), game: spec.name, options,
        move_time: Number(data.get("move_time")), engine: data.get("opponent") || null,
        seat: data.get("seat") === "" ? null : Number(data.get("seat")) });
    });
    app.replaceChildren(form);
  };

  const seat = loadSeat();
  if (seat && seat.token) rejoin(seat);
  else showForm();
}

// A live match: spectate one (/watch/ID) or play one (/play) over the protocol WebSocket.
import { drawBoard, hasRenderer } from "./boards.js";
import { ArenaSocket, getJSON, h, resultText, setStatus } from "./protocol.js";

const SEAT_KEY = "arena.seat";  // {match, token, name}: a reload rejoins the seat
const NAME_KEY = "arena.name";

class LiveView {
  constructor(app, { onMove, onResign }) {
    this.onMove = onMove;
    this.board = h("div", { className: "board", id: "board" });
    this.players = h("div", { className: "players", id: "players" });
    this.status = h("div", { className: "status", id: "status" });
    this.result = h("div", { className: "result", id: "result", hidden: true });
    this.moves = h("div", { className: "moves", id: "moves" });
    this.title = h("h1", {}, "Match");
    this.moveBox = h("form", { id: "move-box", hidden: true, onsubmit: (e) => this.submitTyped(e) },
      h("input", { name: "move", placeholder: "move as JSON, e.g. 4", size: 18 }), " ",
      h("button", { type: "submit" }, "play"), h("div", { className: "legal-list" }));
    this.pass = h("button", { id: "pass", hidden: true, onclick: () => this.play(-1) }, "pass");
    this.resign = onResign ? h("button", { id: "resign", hidden: true, onclick: onResign }, "resign") : null;
    app.replaceChildren(this.title, h("div", { className: "match" }, this.board,
      h("div", { className: "side" }, this.players, this.status, this.result,
        h("div", { className: "controls" }, this.pass, this.resign), this.moveBox, this.moves)));
    this.legal = null;
    this.timer = setInterval(() => this.tick(), 100);
  }

  start(msg) {
    Object.assign(this, { id: msg.match, game: msg.game, names: msg.players, seat: msg.seat, state: msg.state,
      ply: msg.ply, moveTime: msg.time_control.move_time, ended: false, last: null, legal: null });
    // every move so far in the game's notation, as each update gives it (a server before
    // match_start.notations: the raw moves until the stored record names them)
    const named = Array.isArray(msg.notations) && msg.notations.length === msg.moves.length;
    this.notations = named ? [...msg.notations] : msg.moves.map((m) => JSON.stringify(m));
    this.raw = named ? 0 : msg.moves.length;
    this.last = msg.moves.length ? msg.moves[msg.moves.length - 1] : null;
    // with a chess clock (time_control.clock), both seats' remaining time is shown
    const clock = msg.time_control.clock;
    this.clocks = clock ? msg.players.map(() => clock.initial) : null;
    this.turnStart = performance.now();
    this.deadline = null;
    this.title.replaceChildren(`${msg.game} · ${msg.match}`, " ",
      h("span", { className: "muted" }, this.seat === null ? "watching" : `you play seat ${this.seat}`));
    this.result.hidden = true;
    if (this.raw) this.fillNotations();
    this.render();
  }

  async fillNotations() {
    try {
      const doc = await getJSON(`/api/matches/${encodeURIComponent(this.id)}`);
      doc.moves.forEach((m) => { if (m.ply < this.raw) this.notations[m.ply] = m.notation; });
      if (doc.moves.length >= this.raw) this.raw = 0;
      this.renderMoves();
    } catch { /* the record is optional: raw moves stay */ }
  }

  toMove() {
    if (this.ended) return null;
    if (this.state && Number.isInteger(this.state.to_move)) return this.state.to_move;
    return this.lastSeat === undefined ? 0 : (this.lastSeat + 1) % this.names.length;
  }

  update(msg) {
    this.state = msg.state;
    this.ply = msg.ply;
    this.last = msg.move;
    this.lastSeat = msg.seat;
    this.notations.push(msg.notation);
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
    this.result.hidden = false;
    const text = resultText(msg.scores, msg.winner, this.names);
    let mine = "";
    if (this.seat !== null && this.seat !== undefined) {
      mine = msg.winner === null ? " · draw" : msg.winner === this.seat ? " · you win" : " · you lose";
    }
    this.result.replaceChildren(`${text}${mine} (${msg.termination})`, " ",
      h("a", { href: `/replay/${encodeURIComponent(msg.match)}` }, "replay"));
    this.setStatus(msg.reason || "");
    if (this.raw) this.fillNotations();  // the record has every move once the match is over
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
    drawBoard(this.board, { game: this.game, state: this.state, legal: this.legal, last: this.last,
      onMove: mine ? (m) => this.play(m) : null });
    this.pass.hidden = !(mine && this.legal.includes(-1) && this.game === "reversi");
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
    this.moves.replaceChildren(...this.notations.map((n, i) => h("span", {}, `${i + 1}. ${n}`)));
    this.moves.scrollTop = this.moves.scrollHeight;
  }

  tick() {
    if (!this.names) return;
    const seat = this.toMove();
    const now = performance.now();
    this.players.replaceChildren(...this.names.map((name, i) => {
      let clock = "";
      if (this.clocks) {
        const left = this.clocks[i] - (i === seat ? (now - this.turnStart) / 1000 : 0);
        clock = formatClock(Math.max(0, left));
      } else if (i === seat) {
        const left = this.deadline !== null && i === this.seat ? (this.deadline - now) / 1000
          : this.moveTime - (now - this.turnStart) / 1000;
        clock = `${Math.max(0, left).toFixed(1)}s`;
      }
      const you = i === this.seat ? " (you)" : "";
      return h("div", { className: i === seat ? "to-move" : "", "data-seat": i },
        h("span", {}, `${i}: ${name}${you}`), h("span", { className: "clock" }, clock));
    }));
  }
}

function formatClock(seconds) {
  const minutes = Math.floor(seconds / 60);
  const rest = (seconds - minutes * 60).toFixed(1).padStart(4, "0");
  return minutes ? `${minutes}:${rest}` : `${rest}s`;
}

export function showWatch(app, id) {
  const view = new LiveView(app, { onMove: () => {} });
  view.setStatus("Connecting…");
  const socket = new ArenaSocket({
    name: "web-spectator", role: "spectator",
    onOpen: () => socket.send({ type: "spectate", match: id }),
    onMessage: (msg) => {
      if (msg.type === "match_start") { view.start(msg); view.setStatus("Live."); }
      else if (msg.type === "update") view.update(msg);
      else if (msg.type === "match_end") { view.end(msg); socket.close(); }
      else if (msg.type === "error") {
        if (msg.code === "unknown_match") {
          app.replaceChildren(h("p", {}, `Match ${id} is not being played. `,
            h("a", { href: `/replay/${encodeURIComponent(id)}` }, "Replay it"), " or go to the ", h("a", { href: "/" }, "lobby"), "."));
        } else view.setStatus(`${msg.code}: ${msg.message}`, true);
      }
    },
    onClose: () => { if (!view.ended) view.setStatus("Connection lost.", true); },
  });
  socket.connect();
}

function loadSeat() {
  try { return JSON.parse(localStorage.getItem(SEAT_KEY) || "null"); } catch { return null; }
}

export async function showPlay(app) {
  const [server, games] = await Promise.all([getJSON("/api/server"), getJSON("/api/games")]);
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
      onMove: (match, ply, move) => socket.send({ type: "move", match, ply, move }),
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

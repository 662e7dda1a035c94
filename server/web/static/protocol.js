// The arena protocol (docs/PROTOCOL.md) over the /ws WebSocket, JSON framing:
// one protocol message per WebSocket text message (docs/WEB.md).

export class ArenaSocket {
  // onMessage(msg) for every server message; onClose(event) when the socket ends.
  constructor({ name, role, onMessage, onOpen, onClose }) {
    this.name = name;
    this.role = role;
    this.onMessage = onMessage;
    this.onOpen = onOpen || (() => {});
    this.onClose = onClose || (() => {});
    this.closed = false;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`, ["arena.json"]);
    this.ws = ws;
    ws.onopen = () => {
      // the Play page is a person: a Go game between people marks dead stones (PROTOCOL.md)
      this.send({ type: "hello", version: 1, name: this.name, role: this.role, client: "arena-web/1",
        human: this.role === "player" });
      setStatus("connected");
      this.onOpen();
    };
    ws.onmessage = (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch { return; }
      if (msg.type === "ping") { this.send({ type: "pong", id: msg.id }); return; }
      this.onMessage(msg);
    };
    ws.onclose = (event) => {
      setStatus("disconnected");
      if (this.ws === ws) this.onClose(event);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  close() {
    this.closed = true;
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  }
}

export function setStatus(text) {
  const node = document.getElementById("conn");
  if (node) node.textContent = text;
}

export async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "className") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function resultText(scores, winner, players, seatNames) {
  if (!scores) return "no result";
  if (winner === null || winner === undefined) return "draw";
  const label = seatNames && seatNames[winner] ? ` (${seatNames[winner]})` : "";
  return `${players[winner]}${label} wins`;
}

// What the mover's engine said about a move (a replay's move: eval, depth, visits, pv),
// written as `arena show` writes it: "eval 0.62, depth 14, 35,210 visits, pv d3 e6 f4";
// "" when it said nothing.
export function moveInfoText(move) {
  const parts = [];
  if (move.eval !== null && move.eval !== undefined) parts.push(`eval ${move.eval.toFixed(2)}`);
  if (move.depth !== null && move.depth !== undefined) parts.push(`depth ${move.depth}`);
  if (move.visits !== null && move.visits !== undefined) {
    parts.push(`${move.visits.toLocaleString("en-US")} visit${move.visits === 1 ? "" : "s"}`);
  }
  if (move.pv && move.pv.length) parts.push(`pv ${move.pv.join(" ")}`);
  return parts.join(", ");
}

// buraco serve: a table's socket that keeps itself connected. It reconnects by itself with a
// backoff (1, 2, 4, 8, then 10 s at most) whenever the connection drops, and says what state it is
// in; a socket the server refused for good (4xxx) stays closed, and one whose seat a newer socket
// took (4409) waits for the person to take the seat back (two tabs would otherwise take turns).
import { visible } from "./common.js";

const BACKOFF_MAX = 10;
const PING_EVERY_MS = 25000;

export class Link {
  // `url` the socket's address; `onMessage(msg)` each JSON object the server sends; `onState(state,
  // words)` each change: state "connecting", "open", "closed", "replaced" or "refused"
  constructor(url, onMessage, onState) {
    this.url = url;
    this.onMessage = onMessage;
    this.onState = onState;
    this.socket = null;
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.done = false;
  }

  get open() { return !!this.socket && this.socket.readyState === WebSocket.OPEN; }

  // the server greeted this socket: the next drop starts the backoff again from 1 s
  greeted() { this.attempt = 0; }

  // no more reconnecting (the game is over and the server closed the socket)
  finish() { this.done = true; }

  connect() {
    clearTimeout(this.retryTimer);
    this.onState("connecting", this.attempt ? "reconnecting…" : "connecting…");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.retry();
      return;
    }
    this.socket = ws;
    ws.addEventListener("open", () => {
      this.onState("open", "connected");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_EVERY_MS);
    });
    ws.addEventListener("message", (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (err) { return; }
      if (msg && typeof msg === "object") this.onMessage(msg);
    });
    ws.addEventListener("close", (e) => this.closed(ws, e));
  }

  closed(ws, e) {
    if (this.socket !== ws) return;
    clearInterval(this.pingTimer);
    this.socket = null;
    if (this.done && e.code === 1000) {
      this.onState("closed", "game over");
    } else if (e.code === 4409) {
      this.onState("replaced", "closed: this seat is open elsewhere");
    } else if (e.code >= 4000 && e.code < 5000) {
      this.onState("refused", "closed" + (e.reason ? ": " + visible(e.reason) : ""));
    } else {
      this.retry();
    }
  }

  retry() {
    let left = Math.min(BACKOFF_MAX, 2 ** this.attempt);
    this.attempt += 1;
    const tick = () => {
      if (left <= 0) { this.connect(); return; }
      this.onState("closed", "disconnected: retrying in " + left + " s");
      left -= 1;
      this.retryTimer = setTimeout(tick, 1000);
    };
    tick();
  }

  send(msg) {
    if (!this.open) return false;
    this.socket.send(JSON.stringify(msg));
    return true;
  }
}

/**
 * `SushiClient`: the page's connection to a sushigo server over a WebSocket (one binary message
 * per frame), as client/link.py and client/connection.py are the terminal client's.
 *
 * It says HELLO and logs in (as a guest or with an `Identity`'s key), or takes a session back
 * (`resume`) with the token it keeps in `sessionStorage`; sends requests and hands back their
 * answers by `ref`; follows a cluster's REDIRECTs; answers pings and pings an idle server; and
 * after a drop or a server restart takes the session back by itself. The game's duties (seed,
 * commit, reveal, whatever the seat owes after a resume) and every check of `fairness.js` are
 * done as messages arrive (`play.js`), taking the session back is `resume.js`'s, the lobby's
 * requests `lobby.js`'s; the UI only chooses (`play`). See README.md for the API.
 * @module
 */
import { fromHex, toHex } from "./bytes.js";
import { ClientConnection } from "./connection.js";
import { ConnectionLost, ErrorCode, ProtocolError, ServerError } from "./errors.js";
import { Resuming } from "./resume.js";
import { GamePart } from "./play.js";
import { CAPABILITIES, PROTOCOL_NAME, VERSION } from "./protocol.js";

const SESSION_KEY = "sushigo.session";

export { ConnectionLost };

/** @param {string} url @returns {string} the scheme and path of a WebSocket URL, for another host */
function defaultAddressToUrl(base) {
  return (address) => {
    const url = new URL(base);
    url.host = address;
    return url.href;
  };
}

/** @returns {Storage|null} this tab's sessionStorage (null where the page may not use it) */
function tabStorage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

/** @returns {string} this page's WebSocket endpoint: ws(s)://<host>/ws */
export function pageUrl() {
  const here = globalThis.location;
  if (!here) throw new Error("no page location: pass `url`");
  return `${here.protocol === "https:" ? "wss:" : "ws:"}//${here.host}/ws`;
}


export class SushiClient extends Resuming {
  /**
   * @param {object} options see README.md
   * @param {string} options.name
   * @param {import("./identity.js").Identity|null} [options.identity]
   * @param {string} [options.url]
   * @param {(address: string) => string} [options.addressToUrl]
   * @param {Storage|null} [options.storage]
   * @param {boolean} [options.autoReconnect]
   * @param {number} [options.requestTimeoutMs]
   * @param {string} [options.software]
   */
  constructor(options) {
    super();
    this.url = options.url ?? pageUrl();
    this.addressToUrl = options.addressToUrl ?? defaultAddressToUrl(this.url);
    this.identity = options.identity ?? null;
    this.loginName = options.name;
    this.storage = options.storage === undefined ? tabStorage() : options.storage;
    this.autoReconnect = options.autoReconnect ?? true;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.software = (options.software ?? "sushigo-web").slice(0, 64);
    /** @type {"closed"|"connecting"|"open"|"reconnecting"} */
    this.status = "closed";
    this.conn = new ClientConnection();
    /** @type {WebSocket|null} */
    this.sock = null;
    /** @type {Map<number, {resolve: Function, reject: Function, timer: any}>} */
    this.waiting = new Map();
    this.welcome = null;
    this.playerId = "";
    this.name = "";
    this.guest = true;
    this.token = null;
    /** @type {string[]} */
    this.nodes = [];
    this.table = null;
    this.seat = null;
    this.kind = null;
    /** The ERROR that answered no request, last received: why the server closed us. */
    this.refusal = null;
    /** RESTARTING, since the last connection that was welcomed. */
    this.restarting = null;
    /** A stopping node said where our table went (an unasked REDIRECT without a ticket). */
    this.moved = null;
    /** Why the last connection was dropped, when the server broke the protocol. */
    this.protocolError = null;
    this.closing = false;
    /** Following a REDIRECT: a drop of the connection being made is that attempt's failure. */
    this.following = false;
    /** The ref of the LOGIN_TICKET of an unasked REDIRECT being followed (0: none). */
    this.ticketRef = 0;
    this.lastHeard = 0;
    this.heartbeat = null;
    this.game = new GamePart(this);
  }

  // -- the state the UI reads ------------------------------------------------------------------

  get phase() {
    return this.conn.phase;
  }

  get serverKey() {
    return this.welcome?.server_key ?? null;
  }

  get observation() {
    return this.game.observation;
  }

  get position() {
    return this.conn.position;
  }

  get acting() {
    return this.game.acting;
  }

  get deadline() {
    return this.game.deadline;
  }

  get players() {
    return this.game.players;
  }

  get fairness() {
    return this.game.fairness;
  }

  get lastGameOver() {
    return this.game.lastGameOver;
  }

  get awaiting() {
    return this.game.awaiting;
  }

  get pending() {
    return this.game.pending?.action ?? null;
  }

  /** @returns {any[]} the actions our seat may take now (empty when none is wanted) */
  legalActions() {
    return this.game.legalActions();
  }

  /** Our action in the step under way: commit (secret step) or act (open step). */
  play(action) {
    this.game.play(action);
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  setStatus(status, reason = "") {
    this.status = status;
    this.emit("connection", { status, reason });
    this.emit("state", { phase: this.conn.phase });
  }

  // -- connecting -------------------------------------------------------------------------------

  /**
   * Connect, say HELLO, and take the kept session back (a reload of the page at a table) or log
   * in. The answer: LOGGED_IN or RESUMED.
   * @returns {Promise<any>}
   */
  async connect() {
    this.closing = false;
    this.setStatus("connecting");
    try {
      await this.open();
      let reply = null;
      const kept = this.keptSession();
      if (kept !== null) {
        this.token = kept;
        try {
          reply = await this.resumeSession(null);
        } catch (exc) {
          if (!(exc instanceof ServerError) || exc.code !== ErrorCode.UNKNOWN_SESSION) throw exc;
          this.forgetSession();
          await this.open();
        }
      }
      if (reply === null) reply = await this.login();
      this.setStatus("open");
      return reply;
    } catch (exc) {
      this.shut();
      this.setStatus("closed", exc.message);
      throw exc;
    }
  }

  /** End the connection; no reconnecting (the session ends on the server after its window). */
  close() {
    this.closing = true;
    this.forgetSession();
    this.shut();
    this.setStatus("closed", "closed by the page");
  }

  shut() {
    const sock = this.sock;
    this.sock = null;
    clearInterval(this.heartbeat);
    if (sock !== null && sock.readyState <= 1) sock.close();
    this.dropWaiting("the connection was closed");
  }

  /** Open a WebSocket to `this.url` and complete the handshake on a fresh protocol state. */
  async open() {
    const old = this.sock;
    this.sock = null;
    if (old !== null && old.readyState <= 1) old.close();
    this.dropWaiting("the connection was replaced");
    const sock = await new Promise((resolve, reject) => {
      let ws;
      try {
        ws = new WebSocket(this.url);
      } catch (exc) {
        reject(new ConnectionLost(`cannot open ${this.url}: ${exc.message}`));
        return;
      }
      ws.binaryType = "arraybuffer";
      const timer = setTimeout(() => {
        ws.close();
        reject(new ConnectionLost(`${this.url} did not answer within ${this.requestTimeoutMs / 1000} s`));
      }, this.requestTimeoutMs);
      ws.onopen = () => {
        clearTimeout(timer);
        resolve(ws);
      };
      ws.onerror = () => {};
      ws.onclose = () => {
        clearTimeout(timer);
        reject(new ConnectionLost(`cannot reach ${this.url}`));
      };
    });
    this.conn = new ClientConnection();
    this.sock = sock;
    this.lastHeard = Date.now();
    sock.onmessage = (event) => this.received(sock, event.data);
    sock.onclose = (event) => this.dropped(sock, event);
    const welcome = await this.request({
      type: "hello",
      protocol: PROTOCOL_NAME,
      version: { major: VERSION.major, minor: VERSION.minor },
      capabilities: [...CAPABILITIES],
      software: this.software,
    });
    this.welcome = welcome;
    this.restarting = null;
    this.startHeartbeat(welcome.heartbeat_ms);
  }

  async login() {
    const message = this.identity !== null
      ? this.identity.loginMessage(this.loginName, this.welcome.server_key, this.welcome.challenge)
      : { type: "login_guest", name: this.loginName };
    const reply = await this.request(message);
    this.loggedIn(reply);
    return reply;
  }

  loggedIn(reply) {
    this.playerId = reply.player_id;
    this.name = reply.name;
    this.guest = reply.guest;
    this.nodes = reply.nodes;
    this.keepSession(reply.resume_token);
  }

  /** A new session, for when the server no longer knows ours: we are in the lobby. */
  async loginAgain() {
    await this.open();
    this.table = this.seat = this.kind = null;
    this.game.forget();
    return this.login();
  }

  /**
   * The token kept for a session with the server we are welcomed by: any node of its cluster
   * takes it (they share one key), and no other server is ever shown it (the token is a secret).
   * @returns {Uint8Array|null}
   */
  keptSession() {
    try {
      const kept = JSON.parse(this.storage?.getItem(SESSION_KEY) ?? "null");
      const key = this.welcome === null ? "" : toHex(this.welcome.server_key);
      return kept !== null && kept.server_key === key ? fromHex(kept.token) : null;
    } catch {
      return null;
    }
  }

  keepSession(token) {
    this.token = token;
    try {
      const key = this.welcome === null ? "" : toHex(this.welcome.server_key);
      this.storage?.setItem(SESSION_KEY, JSON.stringify({ server_key: key, token: toHex(token) }));
    } catch {
      // A page without storage resumes only while it stays open.
    }
  }

  forgetSession() {
    try {
      this.storage?.removeItem(SESSION_KEY);
    } catch {
      // nothing kept
    }
  }

  // -- requests ---------------------------------------------------------------------------------

  /**
   * Send a message now (no answer awaited); its `ref` is set if it has none.
   * @param {Record<string, any>} message
   * @returns {number} the message's ref
   */
  send(message) {
    if (this.sock === null || this.sock.readyState !== 1) throw new ConnectionLost("not connected");
    if (!message.ref) message.ref = this.conn.nextRef();
    this.sock.send(this.conn.send(message));
    return message.ref;
  }

  /**
   * Send a request and await the answer with its ref (a `ServerError` for an ERROR).
   * @param {Record<string, any>} message
   * @returns {Promise<any>}
   */
  request(message) {
    return new Promise((resolve, reject) => {
      const ref = message.ref || this.conn.nextRef();
      const timer = setTimeout(() => {
        this.waiting.delete(ref);
        reject(new ConnectionLost(`no answer to ${message.type} within ${this.requestTimeoutMs / 1000} s`));
      }, this.requestTimeoutMs);
      this.waiting.set(ref, { resolve, reject, timer });
      try {
        this.send({ ...message, ref });
      } catch (exc) {
        clearTimeout(timer);
        this.waiting.delete(ref);
        reject(exc instanceof ProtocolError ? ServerError.of(exc.code, exc.message) : exc);
      }
    });
  }

  dropWaiting(reason) {
    for (const { reject, timer } of this.waiting.values()) {
      clearTimeout(timer);
      reject(new ConnectionLost(reason));
    }
    this.waiting.clear();
  }

  // -- receiving --------------------------------------------------------------------------------

  received(sock, data) {
    if (sock !== this.sock) return;
    this.lastHeard = Date.now();
    if (!(data instanceof ArrayBuffer)) {
      this.broke(new ProtocolError(ErrorCode.MALFORMED_FRAME, "a text message: frames are binary", { fatal: true }));
      return;
    }
    let message;
    try {
      message = this.conn.receive(new Uint8Array(data));
    } catch (exc) {
      if (!(exc instanceof ProtocolError)) throw exc;
      this.broke(exc);
      return;
    }
    this.handle(message);
  }

  /** A server that breaks the protocol cannot be trusted: drop it and say why. */
  broke(exc) {
    console.warn(`protocol error from the server: ${exc.message}`);
    this.protocolError = exc;
    this.sock?.close(1002, "protocol error");
  }

  handle(message) {
    const ref = message.ref ?? 0;
    if (message.type === "ping") {
      try {
        this.send({ type: "pong", nonce: message.nonce });
      } catch {
        // the connection is going: nothing to answer on
      }
      return;
    }
    if (message.type === "logged_in" && ref && ref === this.ticketRef) {
      // The node an unasked REDIRECT named took its ticket: the session we followed from is left
      // behind now, before anything this node sends next is looked at.
      this.ticketRef = 0;
      this.table = this.seat = this.kind = null;
      this.game.forget();
    }
    if (message.type === "error" && ref && this.waiting.has(ref)) {
      const { reject, timer } = this.waiting.get(ref);
      clearTimeout(timer);
      this.waiting.delete(ref);
      reject(new ServerError(message));
      return;
    }
    if (message.type === "error") {
      if (!ref) this.refusal = message;
      this.emit("failure", new ServerError(message));
    } else if (message.type === "restarting") {
      this.restarting = message;
    } else if (message.type === "redirect" && !ref) {
      if (message.ticket.length) queueMicrotask(() => this.followUnasked(message));
      else this.moved = message;
    }
    this.view(message);
    this.game.arrived(message);
    if (ref && this.waiting.has(ref)) {
      const { resolve, timer } = this.waiting.get(ref);
      clearTimeout(timer);
      this.waiting.delete(ref);
      resolve(message);
    }
    this.emit("message", message);
    this.emit("state", { phase: this.conn.phase });
  }

  view(message) {
    switch (message.type) {
      case "table_joined":
        this.table = message.table;
        this.kind = message.table.settings.kind;
        this.seat = message.seat;
        break;
      case "spectating":
        this.table = message.table;
        this.kind = message.table.settings.kind;
        this.seat = null;
        break;
      case "table_update":
        this.table = message.table;
        this.kind = message.table.settings.kind;
        break;
      case "table_left":
        this.table = this.seat = null;
        break;
      case "game_starting":
        this.seat = message.seat;
        this.kind = message.kind;
        break;
      case "resumed":
        this.playerId = message.player_id;
        this.name = message.name;
        this.nodes = message.nodes.length ? message.nodes : this.nodes;
        this.keepSession(message.resume_token);
        this.seat = message.seat;
        this.kind = message.kind;
        if (message.snapshot !== null) {
          this.table = message.snapshot.table;
          this.seat = message.snapshot.seat;
        }
        break;
      default:
    }
  }

  // -- heartbeat --------------------------------------------------------------------------------

  startHeartbeat(every) {
    clearInterval(this.heartbeat);
    const sock = this.sock;
    this.heartbeat = setInterval(() => {
      if (sock !== this.sock) return;
      const quiet = Date.now() - this.lastHeard;
      if (quiet >= 3 * every) {
        sock.close(4000, "the server went silent");
      } else if (quiet >= every) {
        try {
          this.send({ type: "ping", nonce: 0 });
        } catch {
          // closing
        }
      }
    }, Math.max(1000, Math.floor(every / 3)));
  }
}

/**
 * `SushiClient`: the page's connection to a sushigo server over a WebSocket (one binary message
 * per frame), as client/link.py and client/connection.py are the terminal client's.
 *
 * It says HELLO and logs in (as a guest or with an `Identity`'s key), or takes a session back
 * (`resume`) with the token it keeps in `sessionStorage`; sends requests and hands back their
 * answers by `ref`; follows a cluster's REDIRECTs; answers pings and pings an idle server; and
 * after a drop or a server restart takes the session back by itself. The game's duties (seed,
 * commit, reveal, whatever the seat owes after a resume) and every check of `fairness.js` are
 * done as messages arrive (`play.js`); the UI only chooses (`play`). See README.md for the API.
 * @module
 */
import { fromHex, toHex } from "./bytes.js";
import { ClientConnection } from "./connection.js";
import { ErrorCode, ProtocolError, ServerError } from "./errors.js";
import { verifyGameRecord } from "./fairness.js";
import { GamePart } from "./play.js";
import { CAPABILITIES, PROTOCOL_NAME, VERSION } from "./protocol.js";

const SESSION_KEY = "sushigo.session";
const MAX_REDIRECTS = 3;
const RESTART_PATIENCE_MS = 300_000;
const RESTART_RETRY_CAP_MS = 1000;
const RECONNECT_ATTEMPTS = 30;
/** Errors after which the session is not taken back by itself: an admin ended it. */
const FINAL = new Set([ErrorCode.BANNED, ErrorCode.KICKED]);

/** The connection dropped (or nothing answered in time): `reason` says which. */
export class ConnectionLost extends Error {
  constructor(reason) {
    super(reason);
    this.name = "ConnectionLost";
  }
}

/** @param {string} url @returns {string} the scheme and path of a WebSocket URL, for another host */
function defaultAddressToUrl(base) {
  return (address) => {
    const url = new URL(base);
    url.host = address;
    return url.href;
  };
}

/** @returns {string} this page's WebSocket endpoint: ws(s)://<host>/ws */
export function pageUrl() {
  const here = globalThis.location;
  if (!here) throw new Error("no page location: pass `url`");
  return `${here.protocol === "https:" ? "wss:" : "ws:"}//${here.host}/ws`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class SushiClient extends EventTarget {
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
    this.storage = options.storage === undefined ? globalThis.sessionStorage ?? null : options.storage;
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

  keptSession() {
    try {
      const kept = JSON.parse(this.storage?.getItem(SESSION_KEY) ?? "null");
      return kept !== null && kept.url === this.url ? fromHex(kept.token) : null;
    } catch {
      return null;
    }
  }

  keepSession(token) {
    this.token = token;
    try {
      this.storage?.setItem(SESSION_KEY, JSON.stringify({ url: this.url, token: toHex(token) }));
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

  /** A request that a REDIRECT may answer (a table or tournament on another node): followed, and asked again there. */
  async redirected(message, times = 1) {
    let reply = await this.request(message);
    for (let i = 0; i < times && reply.type === "redirect"; i++) {
      await this.follow(reply);
      reply = await this.request(message);
    }
    return reply;
  }

  listTables({ kind = null, status = null, offset = 0, limit = 50 } = {}) {
    return this.request({ type: "list_tables", kind, status, offset, limit });
  }

  createTable({ kind = "sushi-go", players = 4, variants = [], turn_seconds = 60 } = {}) {
    return this.redirected({ type: "create_table", settings: { kind, players, variants, turn_seconds } });
  }

  joinTable(tableId, seat = null) {
    return this.redirected({ type: "join_table", table_id: tableId, seat });
  }

  spectate(tableId) {
    return this.redirected({ type: "spectate", table_id: tableId });
  }

  quickMatch(kind, players = 4) {
    return this.redirected({ type: "quick_match", kind, players }, MAX_REDIRECTS);
  }

  leaveTable() {
    return this.request({ type: "leave_table" });
  }

  addBot(strategy = "default", seat = null) {
    return this.request({ type: "add_bot", strategy, seat });
  }

  startGame() {
    this.send({ type: "start_game" });
  }

  chat(text) {
    this.send({ type: "chat", text });
  }

  leaderboard(kind = "sushi-go", limit = 20) {
    return this.request({ type: "get_leaderboard", kind, limit });
  }

  myGames(offset = 0, limit = 20) {
    return this.request({ type: "my_games", offset, limit });
  }

  async getRecord(gameId) {
    const message = await this.request({ type: "get_record", game_id: gameId });
    return { message, check: verifyGameRecord(message.record, this.serverKey) };
  }

  listTournaments() {
    return this.request({ type: "list_tournaments" });
  }

  createTournament(settings) {
    return this.redirected({ type: "create_tournament", settings });
  }

  registerTournament(name) {
    return this.redirected({ type: "register_tournament", name });
  }

  watchTournament(name) {
    return this.redirected({ type: "watch_tournament", name });
  }

  startTournament(name) {
    return this.redirected({ type: "start_tournament", name });
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

  // -- drops, resume, redirects ----------------------------------------------------------------

  dropped(sock, event) {
    if (sock !== this.sock) return; // a connection we replaced on purpose
    this.sock = null;
    clearInterval(this.heartbeat);
    this.dropWaiting("the connection dropped");
    if (this.following) return; // the redirect being followed failed: it comes back by itself
    const reason = this.protocolError?.message ?? (this.refusal ? new ServerError(this.refusal).message : `closed (${event.code})`);
    if (this.closing || this.status !== "open") {
      if (this.status === "open") this.setStatus("closed", reason);
      return;
    }
    if (!this.autoReconnect || (this.refusal !== null && FINAL.has(this.refusal.code))) {
      this.setStatus("closed", reason);
      return;
    }
    this.setStatus("reconnecting", reason);
    this.reconnect(this.conn).catch((exc) => this.setStatus("closed", exc.message));
  }

  /**
   * Take the session of the connection `since` back after a drop (a few times a second at most
   * after RESTARTING, for as long as the server asked patience; otherwise with a growing delay);
   * when the server no longer knows it, a fresh login (we are in the lobby).
   */
  async reconnect(since) {
    const restarting = this.restarting;
    const moved = this.moved;
    this.moved = null;
    if (moved !== null) this.url = this.addressToUrl(moved.address);
    let last = null;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      if (this.closing) return;
      if (restarting !== null || moved !== null) {
        if (Date.now() - started > RESTART_PATIENCE_MS) break;
        await sleep(attempt === 0 ? (restarting?.retry_ms ?? 0) : Math.min(100 * 1.5 ** attempt, RESTART_RETRY_CAP_MS) * (0.5 + Math.random()));
      } else {
        if (attempt >= RECONNECT_ATTEMPTS) break;
        if (attempt) await sleep(Math.min(1000 * 1.5 ** (attempt - 1), 10_000) * (0.5 + Math.random()));
      }
      if (this.closing) return;
      try {
        await this.resumeSession(since);
        this.setStatus("open");
        return;
      } catch (exc) {
        if (exc instanceof ServerError && exc.code === ErrorCode.UNKNOWN_SESSION) {
          this.forgetSession();
          await this.loginAgain();
          this.setStatus("open");
          return;
        }
        if (exc instanceof ServerError && exc.code !== ErrorCode.INTERNAL_ERROR) throw exc;
        last = exc;
        this.nextNode();
      }
    }
    throw new ConnectionLost(`could not reconnect to ${this.url}: ${last?.message ?? "no answer"}`);
  }

  /** After a failed attempt: the next of a cluster's live nodes (nothing changes for a lone server). */
  nextNode() {
    if (this.nodes.length < 2) return;
    const urls = this.nodes.map((address) => this.addressToUrl(address));
    const here = urls.indexOf(this.url);
    this.url = urls[(here + 1) % urls.length];
  }

  /**
   * RESUME on a new connection the session of `since` (null: a session this page kept over a
   * reload, whose messages it never saw), following a REDIRECT to the node holding our table.
   */
  async resumeSession(since) {
    const lastSeq = since === null ? 0 : since.lastSeq;
    let reply = null;
    for (let i = 0; i <= MAX_REDIRECTS; i++) {
      if (since !== null || i > 0 || this.sock === null) await this.open();
      if (since !== null) {
        this.conn.game = since.game;
        this.conn.seat = since.seat;
      }
      reply = await this.request({ type: "resume", token: this.token, last_seq: lastSeq });
      if (reply.type !== "redirect") break;
      this.url = this.addressToUrl(reply.address);
    }
    if (reply.type !== "resumed") throw new ConnectionLost(`unexpected answer to RESUME: ${reply.type}`);
    return reply;
  }

  /**
   * Go where a REDIRECT says, with its ticket (`login_ticket`), as the same identity; the caller
   * then asks again. If that node refuses or cannot be reached, back to where we were: the
   * session taken back there by its token (or a fresh login), and the error raised.
   */
  async follow(redirect, unasked = false) {
    const where = this.url;
    const before = this.conn;
    this.url = this.addressToUrl(redirect.address);
    this.following = true;
    try {
      await this.open();
      const ref = this.conn.nextRef();
      if (unasked) this.ticketRef = ref;
      const reply = await this.request({ type: "login_ticket", ref, ticket: redirect.ticket });
      this.loggedIn(reply);
    } catch (exc) {
      this.ticketRef = 0;
      this.url = where;
      try {
        await this.resumeSession(before);
      } catch (back) {
        if (!(back instanceof ServerError) || back.code !== ErrorCode.UNKNOWN_SESSION) throw back;
        await this.loginAgain();
      }
      throw exc;
    } finally {
      this.following = false;
    }
  }

  /** An unasked REDIRECT with a ticket (a tournament's game on another node, or home again). */
  async followUnasked(redirect) {
    try {
      await this.follow(redirect, true);
    } catch (exc) {
      // We stay (or came back) where we were, logged in: a tournament's node plays the game
      // at home, or without us.
      console.warn(`could not follow a redirect to ${redirect.address}: ${exc.message}`);
    }
    this.emit("state", { phase: this.conn.phase });
  }
}

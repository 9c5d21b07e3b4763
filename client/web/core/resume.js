/**
 * Taking a session back, for `SushiClient` (as client/connection.py's `resume` and
 * `auto_reconnect`, and client/link.py's `follow`): after a drop or a server restart, RESUME with
 * the session's token on a new connection (retried with a growing delay, or as patiently as a
 * restarting server asks), at the node a cluster moved our table to, or on the next live node; a
 * fresh login when the server no longer knows the session; and a REDIRECT followed with its ticket,
 * coming back where we were if that node refuses it.
 * @module
 */
import { ConnectionLost, ErrorCode, ServerError } from "./errors.js";
import { LobbyCalls } from "./lobby.js";

const MAX_REDIRECTS = 3;
const RESTART_PATIENCE_MS = 300_000;
const RESTART_RETRY_CAP_MS = 1000;
const RECONNECT_ATTEMPTS = 30;
/** Errors after which the session is not taken back by itself: an admin ended it. */
const FINAL = new Set([ErrorCode.BANNED, ErrorCode.KICKED]);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Resuming extends LobbyCalls {
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

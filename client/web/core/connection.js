/**
 * The client's end of a connection, sans-IO (as protocol/connection.py's `ClientConnection`):
 * bytes of a WebSocket message in, a checked server message out; a message out, the bytes to
 * send. No socket, no clock: `client.js` does the IO.
 *
 * It keeps the one phase both ends move with the transition table of docs/PROTOCOL.md section 4
 * (the schema's, from protocol/_state.py), the `seq` of every server message, the position of the
 * step under way, and the game and seat of the connection's table, whose values the game's wire
 * reads. Anything the server sends that breaks the protocol is a `ProtocolError` on arrival, and
 * a client closes the connection on any (section 5); a message of ours that the protocol does not
 * allow now is a `ProtocolError` before anything is sent.
 * @module
 */
import SCHEMA from "./schema.js";
import { concat, u32be } from "./bytes.js";
import { ErrorCode, ProtocolError, isFatal } from "./errors.js";
import { pack, unpack } from "./msgpack.js";
import { rules } from "./games/index.js";
import { checkClientMessage, readServerMessage } from "./validate.js";

/**
 * Whether a WebSocket message carries the frame's 4-byte length prefix. The protocol's frames go
 * one to a binary WebSocket message, whose own length replaces the prefix: the message is the
 * frame's msgpack body alone.
 */
export const WS_LENGTH_PREFIX = false;

const TRANSITIONS = new Map(SCHEMA.transitions.map(([role, phase, name, target]) => [`${role}|${phase}|${name}`, target]));
const LOGGED_IN = new Set(SCHEMA.logged_in);
const POSITIONED = new Set(["commit", "reveal", "commitments", "turn_result", "act", "acted"]);
/** The phase a seat is in right after each of its one-per-step messages. */
const REPEATS = { seeded: "seed", committed: "commit", revealed: "reveal" };

/** @param {string} role @param {string} phase @returns {string} the error text for a refused move */
function refusal(role, phase, name) {
  const allowed = [];
  for (const key of TRANSITIONS.keys()) {
    const [r, p, n] = key.split("|");
    if (r === role && p === phase) allowed.push(n);
  }
  allowed.sort();
  return `the ${role} may not send ${JSON.stringify(name)} in phase ${JSON.stringify(phase)} (allowed: ${allowed.join(", ") || "nothing"})`;
}

export class ClientConnection {
  constructor() {
    /** @type {string} */
    this.phase = "handshake";
    /** @type {{major: number, minor: number}|null} */
    this.version = null;
    /** @type {string[]} */
    this.capabilities = [];
    /** @type {{round: number, turn: number}|null} the step of the last TURN_START (or RESUMED) */
    this.position = null;
    /** @type {any} the rules of the game of the connection's table (null: none, or unknown here) */
    this.game = null;
    /** @type {number|null} */
    this.seat = null;
    /** The `seq` of the last server message. */
    this.lastSeq = 0;
    this._nextRef = 0;
    /** @type {{major: number, minor: number}|null} */
    this._hello = null;
  }

  /** @returns {number} a fresh request reference id (1, 2, 3, ...) */
  nextRef() {
    return ++this._nextRef;
  }

  /**
   * One WebSocket message from the server: its checked message (plain data, with `type`).
   * @param {Uint8Array} data
   * @returns {Record<string, any>}
   * @throws {ProtocolError}
   */
  receive(data) {
    if (this.phase === "closed") throw new ProtocolError(ErrorCode.OUT_OF_PHASE, "the connection is closed");
    const limits = SCHEMA.limits.server;
    let body = data;
    if (WS_LENGTH_PREFIX) {
      if (data.length < 4) throw new ProtocolError(ErrorCode.TRUNCATED_FRAME, "a message shorter than a frame's header", { fatal: true });
      const size = ((data[0] << 24) >>> 0) + (data[1] << 16) + (data[2] << 8) + data[3];
      if (size > limits.max_body) {
        throw new ProtocolError(ErrorCode.FRAME_TOO_LARGE, `a ${size}-byte frame body exceeds the ${limits.max_body}-byte limit`, { fatal: true });
      }
      if (size !== data.length - 4) throw new ProtocolError(ErrorCode.MALFORMED_FRAME, "the frame's length is not the message's", { fatal: true });
      body = data.subarray(4);
    }
    const value = unpack(body, limits);
    // RESUMED's snapshot holds an observation of the session's table's game, which this
    // connection may not know yet: it is read from the message's `kind`.
    if (value !== null && typeof value === "object" && value.type === "resumed" && typeof value.kind === "string") {
      if (this.game === null || this.game.kind !== value.kind) this.game = rules(value.kind);
    }
    let read;
    try {
      read = readServerMessage(value, this.game?.wire ?? null);
    } catch (exc) {
      throw this.inPhase(exc, value);
    }
    const { message, seq } = read;
    if (seq !== this.lastSeq + 1) {
      throw new ProtocolError(ErrorCode.SEQUENCE_ERROR, `seq ${seq} after ${this.lastSeq}`, { fatal: true });
    }
    this.lastSeq = seq;
    this.advance("server", message);
    return message;
  }

  /** A message that cannot be read where it may not be sent anyway is OUT_OF_PHASE. */
  inPhase(exc, value) {
    if (!(exc instanceof ProtocolError)) return exc;
    const name = value !== null && typeof value === "object" ? value.type : undefined;
    if (
      exc.code === ErrorCode.OUT_OF_PHASE ||
      typeof name !== "string" ||
      exc.code === ErrorCode.UNKNOWN_MESSAGE_TYPE ||
      exc.code === ErrorCode.WRONG_DIRECTION ||
      TRANSITIONS.has(`server|${this.phase}|${name}`)
    ) {
      return exc;
    }
    return new ProtocolError(ErrorCode.OUT_OF_PHASE, refusal("server", this.phase, name));
  }

  /**
   * The bytes of a message of ours, after checking that it may be sent now; moves the phase.
   * @param {Record<string, any>} message `{type, ref, ...fields}`
   * @returns {Uint8Array}
   * @throws {ProtocolError} nothing is to be sent
   */
  send(message) {
    const checked = checkClientMessage(message, this.game?.wire ?? null);
    const body = pack(checked);
    const limit = SCHEMA.limits.client.max_body;
    if (body.length > limit) {
      throw new ProtocolError(ErrorCode.FRAME_TOO_LARGE, `a ${body.length}-byte frame body exceeds the ${limit}-byte limit`);
    }
    this.advance("client", checked);
    return WS_LENGTH_PREFIX ? concat(u32be(body.length), body) : body;
  }

  /** Check `message` (sent by `role`) against the table and the step, then move. */
  advance(role, message) {
    const name = message.type;
    const phase = this.phase;
    if (role === "client" && name === "hello") this._hello = message.version;
    if (role === "server" && name === "welcome" && this._hello !== null && message.version.major !== this._hello.major) {
      throw new ProtocolError(
        ErrorCode.UNSUPPORTED_VERSION,
        `the server chose ${message.version.major}.${message.version.minor}, we offered ${this._hello.major}.${this._hello.minor}`,
        { fatal: true },
      );
    }
    let target = TRANSITIONS.get(`${role}|${phase}|${name}`);
    if (target === undefined) {
      let code = ErrorCode.OUT_OF_PHASE;
      if (phase === "handshake" && role === "client") code = ErrorCode.HANDSHAKE_REQUIRED;
      else if (role === "client" && REPEATS[phase] === name) code = ErrorCode.ALREADY_DONE;
      throw new ProtocolError(code, refusal(role, phase, name), { ref: message.ref ?? null });
    }
    if (POSITIONED.has(name)) {
      const here = this.position;
      if (here === null || here.round !== message.round || here.turn !== message.turn) {
        throw new ProtocolError(
          ErrorCode.WRONG_TURN,
          `${JSON.stringify(name)} for round ${message.round} turn ${message.turn}, but the current turn is ${here ? `(${here.round}, ${here.turn})` : "none"}`,
          { ref: message.ref ?? null },
        );
      }
    }
    if (target === "from_message") {
      if (!LOGGED_IN.has(message.phase)) throw new ProtocolError(ErrorCode.OUT_OF_RANGE, `cannot resume into ${JSON.stringify(message.phase)}`);
      target = message.phase;
      this.position = message.round === null || message.turn === null ? null : { round: message.round, turn: message.turn };
    } else if (name === "turn_start") {
      this.position = { round: message.round, turn: message.turn };
      if (target === "step") {
        const acting = this.seat !== null && message.seats.includes(this.seat);
        if (!acting) target = "waiting";
        else if (message.secret) target = "committing";
        else if (message.seats.length === 1) target = "moving";
        else throw new ProtocolError(ErrorCode.OUT_OF_RANGE, "an open step has one seat that acts");
      }
    } else if (target === "moved") {
      target = message.seat === this.seat && message.more ? "moving" : "waiting";
    } else if (name === "welcome") {
      this.version = message.version;
      this.capabilities = message.capabilities;
    } else if (name === "error" && isFatal(message.code)) {
      target = "closed";
    }
    this.seatAt(message);
    this.phase = target;
  }

  /** The connection's table (its game and seat) after a message that changes it. */
  seatAt(message) {
    switch (message.type) {
      case "table_left":
        this.game = null;
        this.seat = null;
        break;
      case "table_joined":
        this.game = rules(message.table.settings.kind);
        this.seat = message.seat;
        break;
      case "spectating":
        this.game = rules(message.table.settings.kind);
        this.seat = null;
        break;
      case "game_starting":
        if (this.game !== null && message.kind !== this.game.kind) {
          throw new ProtocolError(ErrorCode.OUT_OF_RANGE, `a ${JSON.stringify(message.kind)} game at a ${JSON.stringify(this.game.kind)} table`);
        }
        this.seat = message.seat;
        break;
      case "resumed":
        this.game = message.kind === null ? null : rules(message.kind);
        this.seat = message.seat;
        break;
      default:
    }
  }
}

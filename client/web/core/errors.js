/**
 * The protocol's error codes (docs/PROTOCOL.md section 5) and the two errors the core throws:
 * `ProtocolError` (a message that breaks the protocol, ours refused before sending or the
 * server's on arrival) and `ServerError` (the server's ERROR answering a request).
 * @module
 */
import SCHEMA from "./schema.js";

/**
 * Every wire error code by name, e.g. `ErrorCode.WRONG_TURN === 60`.
 * @type {Readonly<Record<string, number>>}
 */
export const ErrorCode = Object.freeze({ ...SCHEMA.errors });

const NAMES = new Map(Object.entries(SCHEMA.errors).map(([name, code]) => [code, name]));
const FATAL = new Set(SCHEMA.fatal);

/** @param {number} code @returns {string} the code's name (`"CODE_123"` for one this page does not know) */
export function errorName(code) {
  return NAMES.get(code) ?? `CODE_${code}`;
}

/** @param {number} code @returns {boolean} an ERROR with this code ends the connection */
export function isFatal(code) {
  return FATAL.has(code);
}

/**
 * A message that breaks the protocol: `code` is the wire code, `message` says what and where.
 * A client closes the connection on any it receives (docs/PROTOCOL.md section 5).
 */
export class ProtocolError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   * @param {{fatal?: boolean, ref?: number|null}} [options]
   */
  constructor(code, message, options = {}) {
    super(message);
    this.name = "ProtocolError";
    /** @type {number} */
    this.code = code;
    /** @type {boolean} */
    this.fatal = options.fatal ?? isFatal(code);
    /** @type {number|null} */
    this.ref = options.ref ?? null;
  }

  /** @returns {string} the code's name */
  get codeName() {
    return errorName(this.code);
  }
}

/** The server refused a request (its ERROR), or the core refused it as the server would. */
export class ServerError extends Error {
  /** @param {{code: number, message?: string, ref?: number|null}} error the ERROR message */
  constructor(error) {
    const name = errorName(error.code);
    super(error.message ? `${name}: ${error.message}` : name);
    this.name = "ServerError";
    /** @type {number} */
    this.code = error.code;
    /** @type {string} the code's name, e.g. "TABLE_FULL" */
    this.codeName = name;
    /** @type {string} the server's words */
    this.text = error.message ?? "";
    /** @type {number|null} */
    this.ref = error.ref ?? null;
  }

  /**
   * A refusal made here, as the server would make it (nothing was sent).
   * @param {number} code
   * @param {string} text
   */
  static of(code, text) {
    return new ServerError({ code, message: text, ref: null });
  }
}

/** The connection dropped (or nothing answered in time): `reason` says which. */
export class ConnectionLost extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(reason);
    this.name = "ConnectionLost";
  }
}

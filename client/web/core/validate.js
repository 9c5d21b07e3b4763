/**
 * Checking plain data against the protocol's types (docs/PROTOCOL.md sections 2 and 3), as the
 * reference code's decoders do: the schema of every message and structure (`schema.js`, written
 * from the Python code) and each game's own values (its module in `games/`, written with the same
 * descriptors). A check returns the value as the core hands it out (a missing field with a
 * default is given it; unknown keys are left out) or throws a `FieldError` naming the field.
 *
 * Descriptors are those of `schema.js` (`{t: "int", lo, hi}`, `{t: "str", lo, hi}`, `{t: "bin",
 * lo, hi}`, `{t: "bool"}`, `{t: "array", of, lo, hi}`, `{t: "opt", of}`, `{t: "enum", values}`,
 * `{t: "struct", name}`, `{t: "game", part}`) and, for the games: `{t: "fields", fields, check}`
 * (a structure given in place), `{t: "tagged", key, variants}` (a union of structures told apart
 * by the str under `key`) and `{t: "custom", check}`.
 * @module
 */
import SCHEMA from "./schema.js";
import { ErrorCode, ProtocolError } from "./errors.js";

/** A value that does not fit its type; `path` names the field, outermost first. */
export class FieldError extends Error {
  /** @param {number} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
    /** @type {string[]} */
    this.path = [];
  }

  /** @returns {string} the dotted path of the bad field (`observation.tableaus[2].cards`) */
  where() {
    let out = "";
    for (const part of this.path) out += part.startsWith("[") || !out ? part : "." + part;
    return out || "message";
  }
}

/** @param {any} value @returns {string} its msgpack type's name, for errors */
export function kindOf(value) {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "int";
  if (typeof value === "string") return "str";
  if (value instanceof Uint8Array) return "bin";
  if (Array.isArray(value)) return "array";
  return "map";
}

/** @param {string} text @returns {number} its length in characters (code points) */
export function characters(text) {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** @param {any} value @returns {boolean} a plain map (not an array, bin or nil) */
export function isMap(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function wrongType(what, value) {
  return new FieldError(ErrorCode.WRONG_TYPE, `expected ${what}, got ${kindOf(value)}`);
}

function outOfRange(message) {
  return new FieldError(ErrorCode.OUT_OF_RANGE, message);
}

/**
 * @typedef {object} GameWire
 * @property {string} kind
 * @property {(part: string, value: any) => any} decode  a game value checked (FieldError otherwise)
 */

/**
 * Check `value` against the descriptor `type`.
 * @param {any} type
 * @param {any} value
 * @param {GameWire|null} game the wire of the game whose values `{t: "game"}` fields hold
 * @returns {any} the value as handed out
 */
export function check(type, value, game = null) {
  switch (type.t) {
    case "int":
      if (typeof value !== "number" || !Number.isInteger(value)) throw wrongType("an int", value);
      if (value < type.lo || value > type.hi) throw outOfRange(`${value} is not within ${type.lo}..${type.hi}`);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw wrongType("a bool", value);
      return value;
    case "str": {
      if (typeof value !== "string") throw wrongType("a str", value);
      const n = characters(value);
      if (n < type.lo || n > type.hi) throw outOfRange(`length ${n} is not within ${type.lo}..${type.hi}`);
      if (LONE_SURROGATE.test(value)) throw outOfRange("a str with a lone surrogate (not UTF-8)");
      return value;
    }
    case "bin":
      if (!(value instanceof Uint8Array)) throw wrongType("a bin", value);
      if (value.length < type.lo || value.length > type.hi) {
        throw outOfRange(`${value.length} bytes is not within ${type.lo}..${type.hi}`);
      }
      return value;
    case "array": {
      if (!Array.isArray(value)) throw wrongType("an array", value);
      if (value.length < type.lo || value.length > type.hi) {
        throw outOfRange(`${value.length} items is not within ${type.lo}..${type.hi}`);
      }
      return value.map((item, i) => within(`[${i}]`, () => check(type.of, item, game)));
    }
    case "opt":
      return value === null || value === undefined ? null : check(type.of, value, game);
    case "enum":
      if (typeof value !== "string") throw wrongType("str", value);
      if (!type.values.includes(value)) {
        throw outOfRange(`unknown value ${JSON.stringify(value)} (known: ${type.values.join(", ")})`);
      }
      return value;
    case "struct":
      return checkFields(SCHEMA.structs[type.name], value, game);
    case "fields": {
      const out = checkFields(type.fields, value, game);
      if (type.check) type.check(out);
      return out;
    }
    case "tagged": {
      if (!isMap(value)) throw wrongType("a map", value);
      const tag = value[type.key];
      const variant = typeof tag === "string" && Object.hasOwn(type.variants, tag) ? type.variants[tag] : null;
      if (variant === null) {
        const err = tag === undefined || tag === null
          ? new FieldError(ErrorCode.MISSING_FIELD, "required field is missing")
          : outOfRange(`unknown ${type.what ?? type.key} ${JSON.stringify(tag)}`);
        err.path.push(type.key);
        throw err;
      }
      const out = { [type.key]: tag, ...checkFields(variant.fields, value, game) };
      if (variant.check) variant.check(out);
      return out;
    }
    case "custom":
      return type.check(value, game);
    case "game":
      if (game === null) throw new FieldError(ErrorCode.OUT_OF_PHASE, "no game is being played here");
      return game.decode(type.part, value);
    default:
      throw new Error(`unknown descriptor ${JSON.stringify(type)}`);
  }
}

/**
 * A map's fields checked in order: `{name, type, required, default}` each.
 * @param {Array<{name: string, type: any, required?: boolean, default?: any}>} fields
 * @param {any} value
 * @param {GameWire|null} game
 * @returns {Record<string, any>}
 */
export function checkFields(fields, value, game = null) {
  if (!isMap(value)) throw wrongType("a map", value);
  const out = {};
  for (const field of fields) {
    const name = field.name;
    if (Object.hasOwn(value, name)) {
      out[name] = within(name, () => check(field.type, value[name], game));
    } else if (field.required === false) {
      out[name] = plainDefault(field.default);
    } else {
      const err = new FieldError(ErrorCode.MISSING_FIELD, "required field is missing");
      err.path.push(name);
      throw err;
    }
  }
  return out;
}

function plainDefault(value) {
  if (Array.isArray(value)) return value.map(plainDefault);
  if (isMap(value) && typeof value.bin === "string") {
    return new Uint8Array(value.bin.length / 2).map((_, i) => parseInt(value.bin.slice(2 * i, 2 * i + 2), 16));
  }
  return value;
}

/** Run `fn`; a `FieldError` it throws gets `part` in front of its path. */
export function within(part, fn) {
  try {
    return fn();
  } catch (exc) {
    if (exc instanceof FieldError) exc.path.unshift(part);
    throw exc;
  }
}

// -- messages ---------------------------------------------------------------------------------

const SEQ_MAX = 2 ** 63 - 1;

/**
 * A server message from plain data: its type known, its `seq`, every field checked.
 * @param {any} value the body's decoded value
 * @param {GameWire|null} game the wire of the connection's table's game
 * @returns {{message: Record<string, any>, seq: number}}
 * @throws {ProtocolError} naming the first problem
 */
export function readServerMessage(value, game) {
  if (!isMap(value)) throw new ProtocolError(ErrorCode.NOT_A_MESSAGE, `a message must be a map, got ${kindOf(value)}`);
  const name = value.type;
  if (typeof name !== "string") throw new ProtocolError(ErrorCode.NOT_A_MESSAGE, "a message needs a string 'type'");
  const fields = Object.hasOwn(SCHEMA.messages.server, name) ? SCHEMA.messages.server[name] : null;
  if (fields === null) {
    if (Object.hasOwn(SCHEMA.messages.client, name)) {
      throw new ProtocolError(ErrorCode.WRONG_DIRECTION, `${JSON.stringify(name)} is sent by the client, not the server`);
    }
    throw new ProtocolError(ErrorCode.UNKNOWN_MESSAGE_TYPE, `unknown message type ${JSON.stringify(name)}`);
  }
  const seq = value.seq;
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 1 || seq > SEQ_MAX) {
    throw new ProtocolError(
      seq === undefined ? ErrorCode.MISSING_FIELD : ErrorCode.WRONG_TYPE,
      `${name}.seq: a server message needs an integer seq >= 1`,
    );
  }
  try {
    return { message: { type: name, ...checkFields(fields, value, game) }, seq };
  } catch (exc) {
    throw asProtocolError(name, exc);
  }
}

/**
 * A client message checked before it is sent (the reference client raises before sending too):
 * the message with every field, as it goes on the wire.
 * @param {Record<string, any>} message `{type, ...fields}`
 * @param {GameWire|null} game
 * @returns {Record<string, any>}
 * @throws {ProtocolError}
 */
export function checkClientMessage(message, game) {
  const name = message.type;
  const fields = Object.hasOwn(SCHEMA.messages.client, name) ? SCHEMA.messages.client[name] : null;
  if (fields === null) throw new ProtocolError(ErrorCode.UNKNOWN_MESSAGE_TYPE, `no client message ${JSON.stringify(name)}`);
  try {
    return { type: name, ...checkFields(fields, message, game) };
  } catch (exc) {
    throw asProtocolError(name, exc);
  }
}

function asProtocolError(name, exc) {
  if (exc instanceof FieldError) return new ProtocolError(exc.code, `${name}.${exc.where()}: ${exc.message}`);
  return exc;
}

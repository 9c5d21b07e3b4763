/**
 * A verified record, step by step, for the replay viewer: the public observation before the
 * first step and after each one, with the step's actions and events; and a record as a file (the
 * one `sushigo-replay --export` writes).
 * @module
 */
import { deriveGameSeed } from "./fair.js";
import { pack, unpack } from "./msgpack.js";
import { rules } from "./games/index.js";

/**
 * @typedef {object} Frame
 * @property {number} step steps played (0: the game before its first step)
 * @property {number|null} round the step's round (null for frame 0)
 * @property {number|null} turn the step's turn (Sushi Roll: the cycle)
 * @property {number[]} seats the seats that acted
 * @property {any[]} actions their actions, in `seats` order
 * @property {boolean[]} autos whether the server chose each
 * @property {any[]} events the step's events (wire form)
 * @property {any} observation the public (spectator's) observation after the step
 */

/**
 * The record's frames (see `Frame`); null for a game this page does not know. A record that
 * stops making sense (verify it first: `verifyGameRecord`) ends its frames where it does.
 * @param {import("./fair.js").FairRecord} record
 * @returns {{kind: string, title: string, secret: boolean, players: number, frames: Frame[], complete: boolean}|null}
 */
export function replayRecord(record) {
  const game = rules(record.game);
  if (game === null) return null;
  const replay = game.newGame(record.options, deriveGameSeed(record.table_id, record.server_seed, record.client_seeds));
  const frames = [
    { step: 0, round: null, turn: null, seats: [], actions: [], autos: [], events: [], observation: replay.observation(null) },
  ];
  for (const step of record.steps) {
    let events;
    try {
      events = replay.step(step.openings.map((o) => o.action));
    } catch {
      break;
    }
    frames.push({
      step: frames.length,
      round: step.round,
      turn: step.turn,
      seats: step.seats,
      actions: step.openings.map((o) => o.action),
      autos: step.openings.map((o) => o.auto),
      events,
      observation: replay.observation(null),
    });
  }
  return {
    kind: game.kind,
    title: game.title,
    secret: game.secret,
    players: replay.n,
    frames,
    complete: frames.length === record.steps.length + 1 && replay.isOver(),
  };
}


const EXPORT_LIMITS = { max_body: 262144 + 4096, max_str_len: 4096, max_bin_len: 262144, max_array_len: 64, max_map_len: 64 };

/**
 * A signed record as a file, the one `sushigo-replay --export` writes and reads (protocol/
 * records.py's `export_bytes`): a msgpack map of `record`, `signature` and `server_key`, and the
 * players' names in seat order when known (not signed: shown beside the record, never checked).
 * @param {{record: Uint8Array, signature: Uint8Array, server_key: Uint8Array}} signed
 * @param {string[]} [names]
 * @returns {Uint8Array}
 */
export function exportRecord(signed, names = []) {
  const data = { record: signed.record, signature: signed.signature, server_key: signed.server_key };
  if (names.length) data.names = names.map(String);
  return pack(data);
}

/**
 * The signed record and the names of such a file; an `Error` saying what is wrong with anything
 * else. Nothing is verified here: see `verifyGameRecord`.
 * @param {Uint8Array} data
 * @returns {{signed: {record: Uint8Array, signature: Uint8Array, server_key: Uint8Array}, names: string[]}}
 */
export function importRecord(data) {
  if (data.length > EXPORT_LIMITS.max_body) throw new Error(`${data.length} bytes: larger than any exported record`);
  let value;
  try {
    value = unpack(data, EXPORT_LIMITS);
  } catch (exc) {
    throw new Error(`not a record file (${exc.message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Uint8Array) {
    throw new Error("not a map of record, signature and server_key");
  }
  const bin = (key, lo, hi) => {
    const found = value[key];
    if (!(found instanceof Uint8Array)) throw new Error(`${key}: missing, or not bytes`);
    if (found.length < lo || found.length > hi) throw new Error(`${key}: ${found.length} bytes`);
    return found;
  };
  const signed = { record: bin("record", 1, 262144), signature: bin("signature", 64, 64), server_key: bin("server_key", 32, 32) };
  const names = value.names ?? [];
  if (!Array.isArray(names) || names.length > 9 || !names.every((n) => typeof n === "string" && n.length > 0 && n.length <= 64)) {
    throw new Error("names: not a list of up to 9 names");
  }
  return { signed, names };
}

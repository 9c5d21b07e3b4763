/**
 * Commit-reveal and provable fairness, byte by byte (docs/PROTOCOL.md section 6): commitments,
 * the seed chain, signed records (their canonical bytes and Ed25519 signature) and the
 * verification of a record by replaying it with the game's rules.
 * @module
 */
import { ed25519 } from "../vendor/@noble/curves@1.9.7/esm/ed25519.js";
import { concat, lp16, randomBytes, sameBytes, u32be, u8, utf8 } from "./bytes.js";
import { ErrorCode, ProtocolError } from "./errors.js";
import { sha256 } from "./hash.js";
import { canonical, unpack } from "./msgpack.js";
import { rules } from "./games/index.js";
import { RuleError } from "./games/common.js";
import { FieldError, checkFields, isMap } from "./validate.js";
import SCHEMA from "./schema.js";

const COMMIT_TAG = lp16(utf8("sushigo/commit/v1"));
const SERVER_SEED_TAG = lp16(utf8("sushigo/server-seed/v1"));
const GAME_SEED_TAG = lp16(utf8("sushigo/game-seed/v1"));
const SIGN_TAG = lp16(utf8("sushigo/record/v1"));
const NONCE_SIZE = 32;

/** @returns {Uint8Array} 32 fresh random bytes: a seed or a nonce */
export function freshBytes() {
  return randomBytes(32);
}

/**
 * The exact bytes a commitment hashes (docs/PROTOCOL.md section 6.1).
 * @param {string} tableId
 * @param {number} round
 * @param {number} turn
 * @param {number} seat
 * @param {Uint8Array} action the action's commitment encoding (the game's `commitBytes`)
 * @param {Uint8Array} nonce 32 bytes
 * @returns {Uint8Array}
 */
export function commitmentPreimage(tableId, round, turn, seat, action, nonce) {
  if (nonce.length !== NONCE_SIZE) throw new RangeError(`a nonce is 32 bytes, not ${nonce.length}`);
  return concat(COMMIT_TAG, lp16(utf8(tableId)), u32be(round), u32be(turn), u32be(seat), action, nonce);
}

/** @returns {Uint8Array} the 32-byte commitment (arguments as `commitmentPreimage`) */
export function makeCommitment(tableId, round, turn, seat, action, nonce) {
  return sha256(commitmentPreimage(tableId, round, turn, seat, action, nonce));
}

/**
 * An action's commitment encoding for a game without its own (section 6.1): lp16 of the
 * canonical msgpack bytes of the action's plain data.
 * @param {any} action
 * @returns {Uint8Array}
 */
export function genericCommitBytes(action) {
  return lp16(canonical(action));
}

/**
 * Whether `opening` opens `commitment` for (table, round, turn, seat), by the game's encoding;
 * null when there is no commitment or no nonce to check (docs/PROTOCOL.md section 6.1).
 * @param {any} gameRules
 * @param {string} tableId
 * @param {{round: number, turn: number, seat: number}} where
 * @param {Uint8Array|null} commitment
 * @param {{action: any, nonce: Uint8Array|null}} opening
 * @returns {boolean|null}
 */
export function opens(gameRules, tableId, where, commitment, opening) {
  if (commitment === null || commitment === undefined || opening.nonce === null) return null;
  if (opening.nonce.length !== NONCE_SIZE) return false;
  const encode = gameRules.wire.commitBytes ?? genericCommitBytes;
  const expected = makeCommitment(tableId, where.round, where.turn, where.seat, encode(opening.action), opening.nonce);
  return sameBytes(expected, commitment);
}

/** @param {Uint8Array} serverSeed @returns {Uint8Array} the server's published commitment to it */
export function serverSeedHash(serverSeed) {
  return sha256(concat(SERVER_SEED_TAG, serverSeed));
}

/**
 * The game seed from the server seed and every seat's seed in seat order (section 6.2).
 * @param {string} tableId
 * @param {Uint8Array} serverSeed
 * @param {Uint8Array[]} clientSeeds
 * @returns {Uint8Array}
 */
export function deriveGameSeed(tableId, serverSeed, clientSeeds) {
  return sha256(
    concat(GAME_SEED_TAG, lp16(utf8(tableId)), lp16(serverSeed), u8(clientSeeds.length), ...clientSeeds.map(lp16)),
  );
}

// -- signatures -----------------------------------------------------------------------------

/**
 * Whether `signature` is `publicKey`'s Ed25519 signature of `message` (RFC 8032, strict: the
 * verdict of the reference code's OpenSSL).
 * @param {Uint8Array} signature
 * @param {Uint8Array} message
 * @param {Uint8Array} publicKey
 * @returns {boolean}
 */
export function verifySignature(signature, message, publicKey) {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

// -- records --------------------------------------------------------------------------------

const BIN32 = { t: "bin", lo: 32, hi: 32 };
const ROUND = { t: "int", lo: 1, hi: 255 };
const TURN = { t: "int", lo: 1, hi: 65535 };
const SEATS = { t: "array", of: { t: "int", lo: 0, hi: 7 }, lo: 1, hi: 8 };
const OPENING = { t: "struct", name: "Opening" };
const STEP = {
  t: "fields",
  fields: [
    { name: "round", type: ROUND, required: true },
    { name: "turn", type: TURN, required: true },
    { name: "seats", type: SEATS, required: true },
    { name: "commitments", type: { t: "array", of: { t: "opt", of: BIN32 }, lo: 0, hi: 8 }, required: false, default: [] },
    { name: "openings", type: { t: "array", of: OPENING, lo: 1, hi: 8 }, required: true },
  ],
};
const RECORD_FIELDS = [
  { name: "game", type: { t: "str", lo: 1, hi: 32 }, required: true },
  { name: "table_id", type: { t: "str", lo: 1, hi: 32 }, required: true },
  { name: "options", type: { t: "game", part: "options" }, required: true },
  { name: "server_seed", type: BIN32, required: true },
  { name: "server_seed_hash", type: BIN32, required: true },
  { name: "client_seeds", type: { t: "array", of: BIN32, lo: 1, hi: 8 }, required: true },
  { name: "steps", type: { t: "array", of: STEP, lo: 0, hi: 4096 }, required: true },
  { name: "scores", type: { t: "array", of: { t: "int", lo: -10000, hi: 10000 }, lo: 1, hi: 9 }, required: true },
];

/**
 * @typedef {object} FairRecord
 * @property {string} game
 * @property {string} table_id
 * @property {any} options
 * @property {Uint8Array} server_seed
 * @property {Uint8Array} server_seed_hash
 * @property {Uint8Array[]} client_seeds
 * @property {Array<{round: number, turn: number, seats: number[], commitments: Array<Uint8Array|null>, openings: Array<{action: any, nonce: Uint8Array|null, auto: boolean}>}>} steps
 * @property {number[]} scores
 */

function violation(text) {
  return new ProtocolError(ErrorCode.FAIRNESS_VIOLATION, text, { fatal: false });
}

/**
 * The record in canonical bytes `data` (section 6.4); a `ProtocolError` when it is not one:
 * not canonical, not a sushigo record of version 2, a game this page does not know, or a field
 * that is wrong.
 * @param {Uint8Array} data
 * @returns {FairRecord}
 */
export function parseRecord(data) {
  const value = unpack(data, SCHEMA.limits.server);
  let again = null;
  try {
    again = canonical(value);
  } catch {
    again = null;
  }
  if (again === null || !sameBytes(again, data)) throw violation("the record is not canonical");
  if (!isMap(value) || value.format !== "sushigo-record") {
    if (isMap(value) && (value.format === "sushigo-fair-record" || value.format === "sushigo-roll-record")) {
      throw violation("a record of a protocol 1.0 server: this page does not read those");
    }
    throw violation("not a sushigo game record");
  }
  if (value.version !== 2) throw violation(`unsupported record version ${JSON.stringify(value.version)}`);
  const game = typeof value.game === "string" ? rules(value.game) : null;
  if (game === null) {
    throw new ProtocolError(ErrorCode.UNSUPPORTED_GAME_KIND, `this page cannot read ${JSON.stringify(value.game)} records`, {
      fatal: false,
    });
  }
  try {
    return /** @type {FairRecord} */ (checkFields(RECORD_FIELDS, value, game.wire));
  } catch (exc) {
    if (exc instanceof FieldError) throw new ProtocolError(exc.code, `record.${exc.where()}: ${exc.message}`, { fatal: false });
    throw exc;
  }
}

/**
 * Check a signed record's signature (and that `serverKey`, when given, made it), and read it.
 * @param {{record: Uint8Array, signature: Uint8Array, server_key: Uint8Array}} signed
 * @param {Uint8Array|null} serverKey the key of the server's WELCOME
 * @returns {FairRecord}
 * @throws {ProtocolError} FAIRNESS_VIOLATION for a wrong key, a bad signature or bytes that are not a record
 */
export function verifySignedRecord(signed, serverKey = null) {
  if (serverKey !== null && !sameBytes(serverKey, signed.server_key)) {
    throw violation("the record is signed by another key than the server's");
  }
  if (!verifySignature(signed.signature, concat(SIGN_TAG, signed.record), signed.server_key)) {
    throw violation("the record's signature does not verify");
  }
  return parseRecord(signed.record);
}

/**
 * Re-derive the game from `record` and check every claim in it (section 6.4): the server seed
 * opens its hash; one client seed per seat; each step is the game's next (its position and its
 * acting seats); in a secret step each opening the server did not choose opens its seat's
 * commitment; an open step has no commitments or nonces; every action is legal; the game ends
 * after the last step with the recorded scores.
 * @param {FairRecord} record
 * @returns {{gameSeed: Uint8Array, problems: string[], autoPicks: Array<{round: number, turn: number, seat: number}>, game: any, ok: boolean}}
 */
export function verifyRecord(record) {
  const gameSeed = deriveGameSeed(record.table_id, record.server_seed, record.client_seeds);
  const game = rules(record.game);
  const problems = [];
  const autoPicks = [];
  const result = (replayed) => ({ gameSeed, problems, autoPicks, game: replayed, ok: problems.length === 0 });
  if (game === null) {
    problems.push(`this page cannot replay ${JSON.stringify(record.game)} games`);
    return result(null);
  }
  if (!sameBytes(serverSeedHash(record.server_seed), record.server_seed_hash)) {
    problems.push("the server seed does not match the hash published before the game");
  }
  let replay;
  try {
    replay = game.newGame(record.options, gameSeed);
  } catch (exc) {
    problems.push(`the record's options make no ${record.game} game: ${exc.message}`);
    return result(null);
  }
  if (record.client_seeds.length !== replay.n) {
    problems.push(`${record.client_seeds.length} client seeds for ${replay.n} seats`);
  }
  let broke = false;
  for (let i = 0; i < record.steps.length; i++) {
    const step = record.steps[i];
    const where = `step ${i + 1} (round ${step.round}, turn ${step.turn})`;
    if (replay.isOver()) {
      problems.push(`${where}: recorded after the game ended`);
      broke = true;
      break;
    }
    const at = replay.position();
    if (step.round !== at.round || step.turn !== at.turn) {
      problems.push(`${where}: the game is at round ${at.round}, turn ${at.turn}`);
    }
    const acting = replay.toAct();
    if (step.seats.join() !== acting.join() || step.openings.length !== step.seats.length) {
      problems.push(`${where}: the seats that act are [${acting.join(", ")}]`);
      broke = true;
      break;
    }
    problems.push(...checkOpenings(record, step, where, game, autoPicks));
    try {
      replay.step(step.openings.map((o) => o.action));
    } catch (exc) {
      if (!(exc instanceof RuleError)) throw exc;
      problems.push(`${where}: the game refuses the actions: ${exc.message}`);
      broke = true;
      break;
    }
  }
  if (!broke) {
    if (!replay.isOver()) problems.push("the record ends before the game does");
    else if (replay.totals().join() !== record.scores.join()) {
      problems.push(`recorded scores [${record.scores.join(", ")}] but the replay gives [${replay.totals().join(", ")}]`);
    }
  }
  return result(replay);
}

function checkOpenings(record, step, where, game, autoPicks) {
  if (!game.secret) {
    if (step.commitments.length || step.openings.some((o) => o.nonce !== null)) return [`${where}: an open step with commitments`];
    step.openings.forEach((o, i) => {
      if (o.auto) autoPicks.push({ round: step.round, turn: step.turn, seat: step.seats[i] });
    });
    return [];
  }
  if (step.commitments.length !== step.seats.length) return [`${where}: needs one commitment per acting seat`];
  const problems = [];
  step.seats.forEach((seat, i) => {
    const opening = step.openings[i];
    if (opening.auto) {
      autoPicks.push({ round: step.round, turn: step.turn, seat });
      return;
    }
    const opened = opens(game, record.table_id, { round: step.round, turn: step.turn, seat }, step.commitments[i], opening);
    if (opened === null) problems.push(`${where}, seat ${seat}: a player's pick without commitment/nonce`);
    else if (!opened) problems.push(`${where}, seat ${seat}: the opening does not match the commitment`);
  });
  return problems;
}

/** The record's every step's actions, as the game's rules replay them. */
export function recordActions(record) {
  return record.steps.map((step) => step.openings.map((o) => o.action));
}


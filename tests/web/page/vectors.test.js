// The test vectors of docs/PROTOCOL.md (section 10), read from the document itself as
// tests/protocol/test_protocol_vectors.py reads them, checked against the web client's core: every
// frame encoded and decoded byte for byte, the commitments, the seed chain, the deal and the dice,
// the signed records. The page must know every vector of the document, and the document must hold
// every vector the page knows. The messages are those of the worked examples (section 9), built
// here from the same seeds and choices with the page's own rules.

import { assert, assertEqual } from "./runner.js";
import { concat, fromHex, toHex, u32be, utf8, lp16 } from "/core/bytes.js";
import { sha256 } from "/core/hash.js";
import { canonical, pack, unpack } from "/core/msgpack.js";
import { checkClientMessage, checkFields, readServerMessage } from "/core/validate.js";
import {
  commitmentPreimage, deriveGameSeed, genericCommitBytes, makeCommitment, parseRecord,
  serverSeedHash, verifyRecord, verifySignature,
} from "/core/fair.js";
import { Identity } from "/core/identity.js";
import { rules } from "/core/games/index.js";
import SCHEMA from "/core/schema.js";

const GO = rules("sushi-go");
const ROLL = rules("sushi-roll");

/** Every ```vector block of the document: name -> {key: value}; indented lines go on the value before. */
export async function vectors() {
  const text = await (await fetch("/docs/PROTOCOL.md")).text();
  const out = new Map();
  for (const [, block] of text.matchAll(/```vector\n([\s\S]*?)```/g)) {
    const fields = {};
    let key = "";
    for (const line of block.trimEnd().split("\n")) {
      if (line.startsWith(" ")) fields[key] += " " + line.trim();
      else {
        const at = line.indexOf(": ");
        key = line.slice(0, at);
        if (key in fields) throw new Error(`${key} twice in a vector`);
        fields[key] = line.slice(at + 2);
      }
    }
    out.set(fields.name, fields);
  }
  return out;
}

const bytesOf = (byte) => new Uint8Array(32).fill(byte);
const NONCE = Uint8Array.from({ length: 32 }, (_, i) => i);
const SERVER_SEED = bytesOf(0x11);
const CARD_SEEDS = [bytesOf(0x22), bytesOf(0x33), bytesOf(0x44)];
const ROLL_SEEDS = [bytesOf(0x22), bytesOf(0x33)];
const CARD_PICKS = [{ cards: ["sashimi"] }, { cards: ["tempura"] }, { cards: ["dumpling"] }];
const CARD_NONCES = [bytesOf(0xa0), bytesOf(0xa1), null];
const ROLL_ACTIONS = [{ type: "reroll", dice: [1, 3] }, { type: "take", position: 1 }];
const CARD_OPTIONS = { players: 3, pass_both_ways: false, dummy: false, soy_sauce: false };

const cardGame = () => GO.newGame(CARD_OPTIONS, deriveGameSeed("t-42", SERVER_SEED, CARD_SEEDS));
const rollGame = () => ROLL.newGame({ players: 2 }, deriveGameSeed("t-43", SERVER_SEED, ROLL_SEEDS));
const cardCommitments = () =>
  CARD_PICKS.map((action, seat) =>
    CARD_NONCES[seat] === null ? null : makeCommitment("t-42", 1, 1, seat, GO.wire.commitBytes(action), CARD_NONCES[seat]),
  );
const cardOpenings = () => CARD_PICKS.map((action, seat) => ({ action, nonce: CARD_NONCES[seat], auto: CARD_NONCES[seat] === null }));

/** A server message as the reference encoder writes it: type, seq, then its fields in order. */
function serverBody(message, seq, game) {
  return pack({ type: message.type, seq, ...checkFields(SCHEMA.messages.server[message.type], message, game?.wire ?? null) });
}

function acted() {
  const game = rollGame();
  const events = game.step([ROLL_ACTIONS[0]]);
  return {
    type: "acted", round: 1, turn: 1, step: 0, seat: 0, action: ROLL_ACTIONS[0], auto: false, events,
    observation: game.observation(0), more: true,
  };
}

/** name -> [message, seq (null: a client message), game] */
const FRAMES = {
  "frame-hello": [
    { type: "hello", ref: 1, protocol: "sushigo", version: { major: 2, minor: 1 }, capabilities: ["chat"], software: "" }, null, null,
  ],
  "frame-commit": [{ type: "commit", ref: 6, round: 1, turn: 2, commitment: NONCE }, null, GO],
  "frame-reveal": [{ type: "reveal", ref: 7, round: 1, turn: 2, action: { cards: ["wasabi", "squid"] }, nonce: NONCE }, null, GO],
  "frame-error": [{ type: "error", ref: 6, code: 60, message: "late" }, 3, null],
  "frame-act": [{ type: "act", ref: 8, round: 2, turn: 3, action: { type: "reroll", dice: [0, 2] } }, null, ROLL],
  "frame-turn-start-secret": [
    () => ({ type: "turn_start", round: 1, turn: 1, seats: [0, 1, 2], secret: true, step: 0, observation: cardGame().observation(0), deadline_ms: 60000 }),
    11, GO,
  ],
  "frame-commitments": [() => ({ type: "commitments", round: 1, turn: 1, commitments: cardCommitments(), deadline_ms: 60000 }), 12, GO],
  "frame-turn-result": [
    () => ({ type: "turn_result", round: 1, turn: 1, openings: cardOpenings(), events: cardGame().step(CARD_PICKS) }), 13, GO,
  ],
  "frame-turn-start-open": [
    () => ({ type: "turn_start", round: 1, turn: 1, seats: [0], secret: false, step: 0, observation: rollGame().observation(0), deadline_ms: 60000 }),
    11, ROLL,
  ],
  "frame-acted": [acted, 12, ROLL],
};

function frameTest(name, v) {
  const [made, seq, game] = FRAMES[name];
  const message = typeof made === "function" ? made() : made;
  const expected = fromHex(v.hex);
  let body;
  if (seq === null) body = pack(checkClientMessage(message, game?.wire ?? null));
  else body = serverBody(message, seq, game);
  assertEqual(toHex(concat(u32be(body.length), body)), toHex(expected), `${name}'s bytes`);
  // And read back: the frame's body decodes to the same message.
  const value = unpack(expected.subarray(4), seq === null ? SCHEMA.limits.client : SCHEMA.limits.server);
  if (seq === null) {
    assertEqual(checkClientMessage(value, game?.wire ?? null), checkClientMessage(message, game?.wire ?? null), `${name} decoded`);
  } else {
    const read = readServerMessage(value, game?.wire ?? null);
    assertEqual(read.seq, seq, `${name}'s seq`);
    assertEqual(read.message, { type: message.type, ...checkFields(SCHEMA.messages.server[message.type], message, game?.wire ?? null) }, `${name} decoded`);
  }
}

function commitmentTest(name, v) {
  const nonce = fromHex(v.nonce);
  let action;
  if (name === "commitment-generic") {
    action = genericCommitBytes({ type: "throw", hand: "rock" });
    assertEqual(toHex(action), toHex(fromHex(v.action)), "the action's part");
  } else {
    const plain = { cards: v.cards.split(" ") };
    if (v.dummy !== "-") plain.dummy = v.dummy;
    action = GO.wire.commitBytes(plain);
  }
  const at = [v.table, Number(v.round), Number(v.turn), Number(v.seat)];
  assertEqual(toHex(commitmentPreimage(...at, action, nonce)), toHex(fromHex(v.preimage)), "the preimage");
  assertEqual(toHex(makeCommitment(...at, action, nonce)), toHex(fromHex(v.commitment)), "the commitment");
}

function seeds(v) {
  const server = fromHex(v.server_seed);
  const clients = v.client_seeds.split(" ").map(fromHex);
  const gameSeed = deriveGameSeed(v.table, server, clients);
  assertEqual(toHex(gameSeed), toHex(fromHex(v.game_seed)), "the game seed");
  return { server, gameSeed };
}

function dealTest(v) {
  const { server, gameSeed } = seeds(v);
  assertEqual(toHex(serverSeedHash(server)), toHex(fromHex(v.server_seed_hash)), "the server seed's hash");
  const game = GO.newGame({ ...CARD_OPTIONS, players: Number(v.players) }, gameSeed);
  for (const seat of [0, 1]) assertEqual(game.observation(seat).hand.join(" "), v[`hand${seat}`], `seat ${seat}'s hand`);
}

function rollTest(v) {
  const { gameSeed } = seeds(v);
  const view = ROLL.newGame({ players: Number(v.players) }, gameSeed).observation(null);
  assertEqual(view.red_belt, Number(v.red_belt), "the red belt");
  for (const seat of [0, 1]) {
    assertEqual(view.players[seat].belt.map((d) => d.join(":")).join(" "), v[`belt${seat}`], `seat ${seat}'s belt`);
  }
}

/** The record of the example game cut short, built here: its canonical bytes are the vector's. */
function exampleRecord(name) {
  const card = name === "record-sushi-go";
  let steps;
  let scores;
  if (card) {
    const game = cardGame();
    game.step(CARD_PICKS);
    scores = game.totals();
    steps = [{ round: 1, turn: 1, seats: [0, 1, 2], commitments: cardCommitments(), openings: cardOpenings() }];
  } else {
    const game = rollGame();
    steps = ROLL_ACTIONS.map((action) => {
      const { round, turn } = game.position();
      game.step([action]);
      return { round, turn, seats: [0], commitments: [], openings: [{ action, nonce: null, auto: false }] };
    });
    scores = game.totals();
  }
  return {
    format: "sushigo-record",
    version: 2,
    game: card ? "sushi-go" : "sushi-roll",
    table_id: card ? "t-42" : "t-43",
    options: card ? CARD_OPTIONS : { players: 2 },
    server_seed: SERVER_SEED,
    server_seed_hash: serverSeedHash(SERVER_SEED),
    client_seeds: card ? CARD_SEEDS : ROLL_SEEDS,
    steps,
    scores,
  };
}

function recordTest(name, v) {
  const data = fromHex(v.record);
  assertEqual(toHex(canonical(exampleRecord(name))), toHex(data), "the record's canonical bytes");
  assertEqual(toHex(sha256(data)), v.sha256.replace(/\s+/g, ""), "the record's SHA-256");
  const key = new Identity(NONCE);
  assertEqual(toHex(key.publicKey), v.public_key, "the signing key");
  const signed = concat(lp16(utf8("sushigo/record/v1")), data);
  assertEqual(toHex(key.sign(signed)), toHex(fromHex(v.signature)), "the signature");
  assert(verifySignature(fromHex(v.signature), signed, key.publicKey), "the signature does not verify");
  const record = parseRecord(data);
  // Cut short: every check passes but the last, that the game ended.
  assertEqual(verifyRecord(record).problems, ["the record ends before the game does"], "the record's verification");
}

const KNOWN = {
  ...Object.fromEntries(Object.keys(FRAMES).map((name) => [name, (v) => frameTest(name, v)])),
  "commitment-chopsticks": (v) => commitmentTest("commitment-chopsticks", v),
  "commitment-dummy": (v) => commitmentTest("commitment-dummy", v),
  "commitment-generic": (v) => commitmentTest("commitment-generic", v),
  "seed-and-deal": dealTest,
  "seed-and-roll": rollTest,
  "record-sushi-go": (v) => recordTest("record-sushi-go", v),
  "record-sushi-roll": (v) => recordTest("record-sushi-roll", v),
};

export async function tests() {
  const found = await vectors();
  const out = [...found].map(([name, v]) => ({
    name,
    fn: () => {
      if (!(name in KNOWN)) throw new Error(`the page does not know the vector ${name}`);
      KNOWN[name](v);
    },
  }));
  out.push({
    name: "the document has every vector the page knows",
    fn: () => assertEqual(Object.keys(KNOWN).filter((name) => !found.has(name)), [], "missing vectors"),
  });
  return out;
}

// The page's end of a connection (core/connection.js) against a scripted server: the phases a game
// moves it through, and everything a broken or hostile server may send refused with the
// protocol's code (a client closes the connection on any, docs/PROTOCOL.md section 5), as may
// our own messages the protocol does not allow now, before anything is sent.

import { assert, assertEqual } from "./runner.js";
import { ClientConnection } from "/core/connection.js";
import { ErrorCode, ProtocolError } from "/core/errors.js";
import { concat } from "/core/bytes.js";
import { pack } from "/core/msgpack.js";
import { rules } from "/core/games/index.js";

const KEY = new Uint8Array(32).fill(7);
const TABLE = {
  table_id: "t-1",
  settings: { kind: "sushi-go", players: 2, variants: [], turn_seconds: 60 },
  status: "open",
  host: "g:1",
  seats: [{ seat: 0, player_id: "g:1", name: "ann", bot: false, connected: true }, { seat: 1, player_id: null, name: "bot", bot: true, connected: true }],
  spectators: 0,
};
const OPTIONS = { players: 2, pass_both_ways: false, dummy: false, soy_sauce: false };

/** A connection taken to `upTo` ("lobby", "table", "committing"), and the next seq. */
function connected(upTo = "lobby") {
  const conn = new ClientConnection();
  let seq = 0;
  const server = (message) => conn.receive(pack({ type: message.type, seq: ++seq, ...message }));
  conn.send({ type: "hello", ref: 1, protocol: "sushigo", version: { major: 2, minor: 4 }, capabilities: [], software: "" });
  server({ type: "welcome", ref: 1, version: { major: 2, minor: 4 }, capabilities: [], server_name: "", server_key: KEY, challenge: KEY, heartbeat_ms: 15000 });
  conn.send({ type: "login_guest", ref: 2, name: "ann" });
  server({ type: "logged_in", ref: 2, player_id: "g:1", name: "ann", guest: true, resume_token: KEY, nodes: [] });
  if (upTo === "lobby") return { conn, server };
  server({ type: "table_joined", ref: 3, table: TABLE, seat: 0 });
  if (upTo === "table") return { conn, server };
  server({ type: "game_starting", table_id: "t-1", kind: "sushi-go", options: OPTIONS, seat: 0, players: ["ann", "bot"], server_seed_hash: KEY, deadline_ms: 0 });
  conn.send({ type: "seed", ref: 4, seed: KEY });
  server({ type: "game_started", table_id: "t-1", server_seed_hash: KEY, client_seeds: [KEY, new Uint8Array(32)], drawn: [] });
  const game = rules("sushi-go").newGame(OPTIONS, KEY);
  server({ type: "turn_start", round: 1, turn: 1, seats: [0, 1], secret: true, step: 0, observation: game.observation(0), deadline_ms: 0 });
  return { conn, server, game };
}

function refused(code, fn, words = "") {
  try {
    fn();
  } catch (exc) {
    if (!(exc instanceof ProtocolError)) throw exc;
    assertEqual(exc.codeName, Object.keys(ErrorCode).find((k) => ErrorCode[k] === code), `the code (${exc.message})`);
    assert(exc.message.includes(words), `expected "${words}" in "${exc.message}"`);
    return;
  }
  throw new Error("not refused");
}

export async function tests() {
  return [
    {
      name: "a secret step moves the phases as the table says",
      fn: () => {
        const { conn, server, game } = connected("committing");
        assertEqual(conn.phase, "committing", "after TURN_START");
        conn.send({ type: "commit", ref: 5, round: 1, turn: 1, commitment: KEY });
        assertEqual(conn.phase, "committed", "after COMMIT");
        server({ type: "commitments", round: 1, turn: 1, commitments: [KEY, KEY.slice().fill(8)], deadline_ms: 0 });
        assertEqual(conn.phase, "revealing", "after COMMITMENTS");
        const action = { cards: [game.observation(0).hand[0]] };
        conn.send({ type: "reveal", ref: 6, round: 1, turn: 1, action, nonce: KEY });
        assertEqual(conn.phase, "revealed", "after REVEAL");
        server({ type: "turn_result", round: 1, turn: 1, openings: [{ action, nonce: KEY, auto: false }, { action, nonce: null, auto: true }], events: [] });
        assertEqual(conn.phase, "waiting", "after TURN_RESULT");
      },
    },
    { name: "a seq that is not the last plus one", fn: () => refused(ErrorCode.SEQUENCE_ERROR, () => connected().conn.receive(pack({ type: "pong", seq: 9, ref: null, nonce: 0 }))) },
    { name: "trailing bytes", fn: () => refused(ErrorCode.MALFORMED_FRAME, () => connected().conn.receive(concat(pack({ type: "pong", seq: 3, nonce: 0 }), Uint8Array.of(0)))) },
    { name: "a str that is not UTF-8", fn: () => refused(ErrorCode.MALFORMED_FRAME, () => connected().conn.receive(Uint8Array.of(0x82, 0xa4, 0x74, 0x79, 0x70, 0x65, 0xa2, 0xc3, 0x28, 0xa3, 0x73, 0x65, 0x71, 0x03)), "UTF-8") },
    { name: "a map key that is not a str", fn: () => refused(ErrorCode.MALFORMED_FRAME, () => connected().conn.receive(Uint8Array.of(0x81, 0x01, 0x02)), "key") },
    { name: "an ext type", fn: () => refused(ErrorCode.MALFORMED_FRAME, () => connected().conn.receive(Uint8Array.of(0xd6, 0xff, 0, 0, 0, 1)), "ext") },
    { name: "a float", fn: () => refused(ErrorCode.WRONG_TYPE, () => connected().conn.receive(pack({ type: "pong", seq: 3, nonce: 1.5 })), "float") },
    { name: "a body over the limit", fn: () => refused(ErrorCode.FRAME_TOO_LARGE, () => connected().conn.receive(new Uint8Array(1048577))) },
    { name: "an unknown message type", fn: () => refused(ErrorCode.UNKNOWN_MESSAGE_TYPE, () => connected().server({ type: "hug" })) },
    { name: "a client's message from the server", fn: () => refused(ErrorCode.WRONG_DIRECTION, () => connected().server({ type: "commit", ref: 1, round: 1, turn: 1, commitment: KEY })) },
    { name: "a field missing", fn: () => refused(ErrorCode.MISSING_FIELD, () => connected().server({ type: "table_list", ref: null }), "table_list.tables") },
    {
      name: "a welcome of another major version",
      fn: () => {
        const conn = new ClientConnection();
        conn.send({ type: "hello", ref: 1, protocol: "sushigo", version: { major: 2, minor: 4 }, capabilities: [], software: "" });
        refused(ErrorCode.UNSUPPORTED_VERSION, () => conn.receive(pack({ type: "welcome", seq: 1, ref: 1, version: { major: 3, minor: 0 }, server_key: KEY, challenge: KEY })));
      },
    },
    { name: "a message out of phase", fn: () => refused(ErrorCode.OUT_OF_PHASE, () => connected().server({ type: "turn_result", round: 1, turn: 1, openings: [], events: [] })) },
    {
      name: "an observation that does not hang together",
      fn: () => {
        const { server } = connected("table");
        server({ type: "game_starting", table_id: "t-1", kind: "sushi-go", options: OPTIONS, seat: 1, players: ["ann", "bot"], server_seed_hash: KEY, deadline_ms: 0 });
        server({ type: "game_started", table_id: "t-1", server_seed_hash: KEY, client_seeds: [KEY, KEY], drawn: [] });
        const observation = rules("sushi-go").newGame(OPTIONS, KEY).observation(0);
        const bad = { ...observation, hand: [...observation.hand].reverse() };
        refused(ErrorCode.OUT_OF_RANGE, () => server({ type: "turn_start", round: 1, turn: 1, seats: [0, 1], secret: true, step: 0, observation: bad, deadline_ms: 0 }), "sorted");
      },
    },
    {
      name: "an unknown card",
      fn: () => {
        const { server } = connected("committing");
        server({ type: "commitments", round: 1, turn: 1, commitments: [KEY, null], deadline_ms: 0 });
        const openings = [{ action: { cards: ["caviar"] }, nonce: null, auto: true }];
        refused(ErrorCode.OUT_OF_RANGE, () => server({ type: "turn_result", round: 1, turn: 1, openings, events: [] }), "unknown card \"caviar\"");
      },
    },
    { name: "a step's message for another turn", fn: () => refused(ErrorCode.WRONG_TURN, () => connected("committing").server({ type: "commitments", round: 1, turn: 2, commitments: [KEY, KEY], deadline_ms: 0 })) },
    { name: "our commit in the lobby is refused before sending", fn: () => refused(ErrorCode.OUT_OF_PHASE, () => connected().conn.send({ type: "commit", ref: 9, round: 1, turn: 1, commitment: KEY })) },
    { name: "our second commit is ALREADY_DONE", fn: () => { const { conn } = connected("committing"); conn.send({ type: "commit", ref: 9, round: 1, turn: 1, commitment: KEY }); refused(ErrorCode.ALREADY_DONE, () => conn.send({ type: "commit", ref: 10, round: 1, turn: 1, commitment: KEY })); } },
    { name: "a chat with a lone surrogate is refused before sending", fn: () => refused(ErrorCode.OUT_OF_RANGE, () => connected().conn.send({ type: "chat", ref: 9, text: "hi \ud800" }), "surrogate") },
    { name: "a chat longer than 500 characters is refused before sending", fn: () => refused(ErrorCode.OUT_OF_RANGE, () => connected().conn.send({ type: "chat", ref: 9, text: "x".repeat(501) }), "chat.text") },
  ];
}

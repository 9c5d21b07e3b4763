// The protocol client of the page against a real sushigo-server (through the harness's WebSocket
// endpoint, `?ws=`): whole games of both games against the server's bots, chosen from the legal
// actions the core offers, each verified at its end as the terminal client verifies it (every
// commitment opened, the seed chain, the signed record, the replay, every observation shown); a
// spectator's checks; a key login and its finished games; a connection dropped mid-game and
// taken back. The page's `crypto.subtle` is taken away first: a page on plain http from a LAN
// address has none, and the core must not need it.

import { assert, assertEqual } from "./runner.js";

Object.defineProperty(globalThis.crypto, "subtle", { get: () => undefined, configurable: true });

const { SushiClient } = await import("/core/client.js");
const { Identity } = await import("/core/identity.js");
const { verifyGameRecord } = await import("/core/fairness.js");
const { randomBytes } = await import("/core/bytes.js");

let url = "";

/** Where `newClient` connects by default (the suite's `?ws=`). */
export function useServer(ws) {
  url = ws;
}
let counter = 0;

export function newClient(options = {}) {
  counter++;
  return new SushiClient({ name: `web${counter}-${Math.floor(Math.random() * 1e6)}`, url, storage: null, ...options });
}

/** Resolve once `client` has a message of `type` (checked by `accept`), within `ms`. */
export function nextMessage(client, type, accept = () => true, ms = 30000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.removeEventListener("message", on);
      reject(new Error(`no ${type} within ${ms / 1000} s`));
    }, ms);
    const on = (event) => {
      if (event.detail.type === type && accept(event.detail)) {
        clearTimeout(timer);
        client.removeEventListener("message", on);
        resolve(event.detail);
      }
    };
    client.addEventListener("message", on);
  });
}

/**
 * Play our seat until the game's end, choosing with `choose(legal, client)`; resolves with
 * GAME_OVER once its record has been checked (`client.fairness.final` is no longer pending).
 */
export function playGame(client, choose, ms = 120000, until = (msg) => msg.type === "game_over") {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`the game did not end within ${ms / 1000} s`)), ms);
    const act = () => {
      if (!client.awaiting) return;
      // What the page draws from: a step that waits for us always comes with its observation.
      if (client.observation === null) {
        finish(new Error("the client awaits our action but holds no observation"));
        return;
      }
      const legal = client.legalActions();
      if (!legal.length) return;
      try {
        client.play(choose(legal, client));
      } catch (exc) {
        finish(exc);
      }
    };
    const onState = () => setTimeout(act, 0);
    const onMessage = (event) => {
      if (until(event.detail)) finish(null, event.detail);
    };
    const onFailure = (event) => finish(new Error(`the server refused: ${event.detail.message}`));
    function finish(error, value) {
      clearTimeout(timer);
      client.removeEventListener("state", onState);
      client.removeEventListener("message", onMessage);
      client.removeEventListener("failure", onFailure);
      if (error) reject(error);
      else resolve(value);
    }
    client.addEventListener("state", onState);
    client.addEventListener("message", onMessage);
    client.addEventListener("failure", onFailure);
    act();
  });
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** Sushi Go!: chopsticks pairs first, then wasabi and nigiri, then anything. */
export function cardChooser(used) {
  return (legal) => {
    const pairs = legal.filter((a) => a.cards.length === 2);
    if (pairs.length) {
      used.pairs++;
      return pick(pairs);
    }
    const liked = legal.filter((a) => ["chopsticks", "wasabi", "squid", "salmon"].includes(a.cards[0]));
    return pick(liked.length ? liked : legal);
  };
}

/** Sushi Roll: one re-roll and one swap when they are legal, then takes. */
function rollChooser(used) {
  return (legal) => {
    const rerolls = legal.filter((a) => a.type === "reroll");
    if (rerolls.length && !used.reroll) {
      used.reroll = true;
      return pick(rerolls);
    }
    const swaps = legal.filter((a) => a.type === "swap");
    if (swaps.length && !used.swap) {
      used.swap = true;
      return pick(swaps);
    }
    return pick(legal.filter((a) => a.type === "take"));
  };
}

export function assertVerified(fairness, what) {
  assertEqual(fairness.failures, [], `${what}'s failed checks`);
  assertEqual(fairness.final, "verified", `${what}'s verdict`);
  assert(fairness.observationsVerified > 0, `${what}: no observation checked against the replay`);
  assert(fairness.summary().startsWith("fair ✓"), `${what}: ${fairness.summary()}`);
}

async function sushiGo() {
  const client = newClient();
  const watcher = newClient();
  await client.connect();
  await watcher.connect();
  assert(client.guest && client.playerId.startsWith("g:"), `a guest's id: ${client.playerId}`);
  const joined = await client.createTable({ kind: "sushi-go", players: 3, variants: ["soy_sauce"], turn_seconds: 60 });
  assertEqual(joined.seat, 0, "the host's seat");
  await client.addBot("random");
  await client.addBot("random");
  await watcher.spectate(joined.table.table_id);
  const seen = { pairs: 0, wasabi: 0, chopsticks: 0 };
  client.addEventListener("message", (event) => {
    for (const e of event.detail.events ?? []) {
      if (e.event === "wasabi_used") seen.wasabi++;
      if (e.event === "chopsticks_returned") seen.chopsticks++;
    }
  });
  const watched = nextMessage(watcher, "game_over", () => true, 120000);
  const heard = nextMessage(watcher, "chat_message", (m) => m.text === "good luck");
  client.chat("good luck");
  assertEqual((await heard).table_id, joined.table.table_id, "the chat's table");
  const started = nextMessage(client, "turn_start");
  client.startGame();
  await started;
  const left = client.deadline - Date.now();
  assert(left > 50000 && left <= 60000, `the step's time left: ${left} ms`);
  const over = await playGame(client, cardChooser(seen));
  assertVerified(client.fairness, "the player");
  assert(client.fairness.openingsVerified >= 3 * 27 - client.fairness.autoPicks, `openings verified: ${client.fairness.openingsVerified}`);
  assertEqual(over.totals.length, 3, "the totals");
  assertEqual(client.phase, "table", "the phase after the game");
  await watched;
  assertVerified(watcher.fairness, "the spectator");
  assert(seen.pairs > 0 || seen.chopsticks === 0, "chopsticks were never offered as a pair");
  client.close();
  watcher.close();
}

/** A new client at a new two-seat table of `kind` (no variant) with a random bot, not started. */
async function againstABot(kind) {
  const client = newClient();
  await client.connect();
  await client.createTable({ kind, players: 2, variants: [], turn_seconds: 60 });
  await client.addBot("random");
  return client;
}

async function sushiRoll() {
  const client = await againstABot("sushi-roll");
  const used = {};
  client.startGame();
  await playGame(client, rollChooser(used));
  assertVerified(client.fairness, "the Sushi Roll player");
  assert(used.reroll && used.swap, `a re-roll and a swap: ${JSON.stringify(used)}`);
  assert(client.fairness.actionsSeen > 20, `actions seen: ${client.fairness.actionsSeen}`);
  client.close();
}

async function keyLogin() {
  const identity = Identity.generate();
  const again = Identity.fromPem(identity.toPem());
  const client = newClient({ identity: again });
  await client.connect();
  assertEqual(client.playerId, identity.playerId, "the player id of the key");
  assert(!client.guest, "logged in with a key, yet a guest");
  await client.createTable({ kind: "sushi-go", players: 2, variants: ["dummy"], turn_seconds: 60 });
  await client.addBot("random");
  client.startGame();
  await playGame(client, cardChooser({ pairs: 0 }));
  assertVerified(client.fairness, "the dummy game");
  const list = await client.myGames();
  assert(list.games.length >= 1, "no finished game listed");
  const { message, check } = await client.getRecord(list.games[0].game_id);
  assertEqual(check.problems, [], "the record's problems");
  assert(check.ok, "the record does not verify");
  const elsewhere = verifyGameRecord(message.record, randomBytes(32));
  assert(!elsewhere.ok && elsewhere.problems[0].includes("another key"), `a record pinned to another key: ${elsewhere.problems}`);
  const board = await client.leaderboard("sushi-go", 10);
  assertEqual(board.kind, "sushi-go", "the ladder's game");
  client.close();
}

async function dropped() {
  const client = await againstABot("sushi-go");
  let drops = 0;
  client.addEventListener("message", (event) => {
    // Twice in the game, right after a step began: the connection goes, the core takes it back.
    if (event.detail.type === "turn_start" && [3, 12].includes(event.detail.step)) {
      drops++;
      client.sock.close();
    }
  });
  const statuses = [];
  client.addEventListener("connection", (event) => statuses.push(event.detail.status));
  client.startGame();
  await playGame(client, cardChooser({ pairs: 0 }));
  assertEqual(drops, 2, "the drops");
  assert(statuses.filter((s) => s === "reconnecting").length === 2, `statuses: ${statuses}`);
  assertVerified(client.fairness, "the game taken back twice");
  client.close();
}

async function quickMatch() {
  const [ann, bob] = [newClient(), newClient()];
  await Promise.all([ann.connect(), bob.connect()]);
  const first = await ann.quickMatch("sushi-go", 2);
  const listed = await bob.listTables({ kind: "sushi-go", status: "open" });
  assert(listed.tables.some((t) => t.table_id === first.table.table_id), "the quick match's table is not listed");
  const games = [playGame(ann, cardChooser({ pairs: 0 })), playGame(bob, cardChooser({ pairs: 0 }))];
  const second = await bob.quickMatch("sushi-go", 2);
  assertEqual(second.table.table_id, first.table.table_id, "the table the second player was seated at");
  // The table starts by itself once full.
  await Promise.all(games);
  assertVerified(ann.fairness, "the first player");
  assertVerified(bob.fairness, "the second player");
  const gone = await ann.leaveTable();
  assertEqual(gone.table_id, first.table.table_id, "the table left");
  assertEqual([ann.table, ann.phase], [null, "lobby"], "after leaving");
  ann.close();
  bob.close();
}

/** A `Storage` of the test's own: what a tab's sessionStorage keeps over a reload. */
function memoryStorage() {
  const kept = new Map();
  return {
    getItem: (key) => kept.get(key) ?? null,
    setItem: (key, value) => kept.set(key, String(value)),
    removeItem: (key) => kept.delete(key),
  };
}

async function reloaded() {
  const storage = memoryStorage();
  const name = `reload${Math.floor(Math.random() * 1e6)}`;
  const first = newClient({ name, storage, autoReconnect: false });
  await first.connect();
  await first.createTable({ kind: "sushi-go", players: 3, variants: ["pass_both_ways"], turn_seconds: 60 });
  await first.addBot("random");
  await first.addBot("random");
  first.startGame();
  // The page goes away as a step begins (its pick not yet made): a reload.
  await playGame(first, cardChooser({ pairs: 0 }), 60000, (msg) => {
    if (msg.type !== "turn_start" || msg.step !== 7) return false;
    first.sock.close();
    return true;
  });
  const second = newClient({ name, storage });
  const back = await second.connect();
  assertEqual(back.type, "resumed", "the reloaded page's answer");
  assertEqual(second.seat, 0, "the seat taken back");
  assert(second.awaiting, "the step does not wait for our pick after the reload");
  await playGame(second, cardChooser({ pairs: 0 }));
  assertVerified(second.fairness, "the game taken back by a reloaded page");
  second.close();
}

async function reloadedAfterCommitting() {
  const storage = memoryStorage();
  const name = `commit${Math.floor(Math.random() * 1e6)}`;
  const first = newClient({ name, storage, autoReconnect: false });
  await first.connect();
  await first.createTable({ kind: "sushi-go", players: 2, variants: [], turn_seconds: 60 });
  await first.addBot("random");
  let chosen = null;
  let at = null;
  // At the fifth step the page commits to its pick and is reloaded at once, before the reveal.
  first.startGame();
  await playGame(first, cardChooser({ pairs: 0 }), 60000, (msg) => {
    if (msg.type !== "turn_start" || msg.step !== 4) return false;
    chosen = first.legalActions()[0];
    at = { round: msg.round, turn: msg.turn };
    first.play(chosen);
    first.sock.close();
    return true;
  });
  const second = newClient({ name, storage });
  const result = nextMessage(second, "turn_result", (m) => m.round === at.round && m.turn === at.turn);
  const games = playGame(second, cardChooser({ pairs: 0 }));
  await second.connect();
  const mine = (await result).openings[0];
  assert(!mine.auto, "the server picked for the reloaded page");
  assertEqual(mine.action, chosen, "the pick revealed after the reload");
  await games;
  assertVerified(second.fairness, "the game of a page reloaded between commit and reveal");
  second.close();
}

async function restarted() {
  const client = await againstABot("sushi-roll");
  let restarts = 0;
  client.addEventListener("message", (event) => {
    if (event.detail.type === "turn_start" && event.detail.step >= 10 && !restarts) {
      restarts++;
      fetch("/control/restart", { method: "POST" });
    }
  });
  client.startGame();
  await playGame(client, rollChooser({}), 180000);
  assertEqual(restarts, 1, "the restarts");
  assertVerified(client.fairness, "the Sushi Roll game across a server's restart");
  client.close();
}

export async function tests(params) {
  useServer(params.get("ws"));
  return [
    { name: "a guest plays Sushi Go! (3 players, soy sauce) against bots; a spectator watches; both verify", fn: sushiGo },
    { name: "Sushi Roll against a bot, with a re-roll and a swap, verified", fn: sushiRoll },
    { name: "a key made in the page logs in; the dummy game, my games, its record and the ladder", fn: keyLogin },
    { name: "a connection dropped twice mid-game is taken back, and the game verifies", fn: dropped },
    { name: "two players' quick match: listed, filled, started by itself, both verify; one leaves", fn: quickMatch },
    { name: "a page reloaded mid-game takes its seat back with the kept token, and the game verifies", fn: reloaded },
    { name: "a page reloaded between its commitment and its reveal still reveals its pick", fn: reloadedAfterCommitting },
    { name: "the server killed (SIGKILL) and restarted mid-game: the page resumes, the game verifies", fn: restarted },
  ];
}

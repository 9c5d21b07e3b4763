// The page's checks of a game (core/fairness.js) against a server played here: a whole game's
// messages made with the page's own rules and signed with a test key, as an honest server sends
// them (everything verifies), and with one thing changed each time, as a cheating or broken server
// would send them (each is caught, and said in words).

import { assert, assertEqual } from "./runner.js";
import { concat, lp16, randomBytes, utf8 } from "/core/bytes.js";
import { canonical } from "/core/msgpack.js";
import { deriveGameSeed, makeCommitment, serverSeedHash } from "/core/fair.js";
import { GameChecks } from "/core/fairness.js";
import { Identity } from "/core/identity.js";
import { rules } from "/core/games/index.js";

const KEY = Identity.generate();
const TABLE = "t-7";

/**
 * Play a whole game as a server would, our seat 0, feeding `checks` every message; `change`
 * may alter a message (by its type and step) before the checks see it. Returns the checks.
 */
function serve(kind, options, change = () => {}, drawn = false, interrupted = null) {
  const game = rules(kind);
  const serverSeed = randomBytes(32);
  const seeds = Array.from({ length: options.players }, () => randomBytes(32));
  const state = game.newGame(options, deriveGameSeed(TABLE, serverSeed, seeds));
  const checks = new GameChecks(TABLE, 0, kind, serverSeedHash(serverSeed));
  // Our seed came too late: the server drew seat 0's (the deal is the drawn seed's).
  checks.mySeed = drawn ? randomBytes(32) : seeds[0];
  const deliver = (msg, step) => {
    change(msg, step);
    return msg;
  };
  checks.started(deliver({ type: "game_started", table_id: TABLE, server_seed_hash: serverSeedHash(serverSeed), client_seeds: [...seeds], drawn: drawn ? [0] : [] }, 0));
  const steps = [];
  let number = 0;
  while (!state.isOver()) {
    const { round, turn } = state.position();
    const seats = state.toAct();
    checks.step(deliver({ type: "turn_start", round, turn, seats, secret: game.secret, step: number, observation: state.observation(0), deadline_ms: 0 }, number));
    const actions = seats.map((seat) => {
      const legal = game.legalActions(state.observation(seat));
      return legal[(number * 7 + seat * 3) % legal.length];
    });
    if (game.secret) {
      const nonces = seats.map(() => randomBytes(32));
      const commitments = seats.map((seat, i) => makeCommitment(TABLE, round, turn, seat, game.wire.commitBytes(actions[i]), nonces[i]));
      checks.myPick = { round, turn, action: actions[0] };
      // `interrupted`: this step's server went down after COMMITMENTS (the seat's commitment
      // shown then is not the one it sent again); the step was played again without us, and
      // that seat, away past its deadline, was auto-picked: we never saw its result.
      const cut = interrupted !== null && interrupted.step === number ? seats.indexOf(interrupted.seat) : -1;
      const shown = commitments.map((c, i) => (i === cut ? randomBytes(32) : c));
      checks.committed(deliver({ type: "commitments", round, turn, commitments: shown, deadline_ms: 0 }, number));
      const openings = actions.map((action, i) => ({ action, nonce: nonces[i], auto: false }));
      const events = state.step(actions);
      if (cut >= 0) {
        commitments[cut] = null;
        openings[cut] = { action: actions[cut], nonce: null, auto: true };
      } else {
        checks.result(deliver({ type: "turn_result", round, turn, openings: openings.map((o) => ({ ...o })), events }, number));
      }
      steps.push({ round, turn, seats, commitments, openings });
      number++;
    } else {
      if (seats[0] === 0) checks.sent.push(actions[0]);
      const events = state.step(actions);
      const more = !state.isOver() && state.toAct()[0] === seats[0] && state.position().turn === turn && state.position().round === round;
      checks.acted(deliver({ type: "acted", round, turn, step: number, seat: seats[0], action: actions[0], auto: false, events, observation: state.observation(0), more }, number));
      steps.push({ round, turn, seats, commitments: [], openings: [{ action: actions[0], nonce: null, auto: false }] });
      number++;
    }
  }
  const record = {
    format: "sushigo-record", version: 2, game: kind, table_id: TABLE, options,
    server_seed: serverSeed, server_seed_hash: serverSeedHash(serverSeed), client_seeds: seeds, steps,
    scores: state.totals(),
  };
  const over = {
    type: "game_over", totals: state.totals(), places: state.places, winners: state.winners, server_seed: serverSeed, record: null,
  };
  change(over, "record", record);
  const bytes = canonical(record);
  over.record = { record: bytes, signature: KEY.sign(concat(lp16(utf8("sushigo/record/v1")), bytes)), server_key: KEY.publicKey };
  change(over, "game_over");
  checks.finished(over, KEY.publicKey);
  return checks;
}

const GO = { players: 3, pass_both_ways: true, dummy: false, soy_sauce: true };

function caught(checks, words) {
  assertEqual(checks.fairness.final, "FAILED", "the verdict");
  assert(checks.fairness.failures.some((f) => f.includes(words)), `expected "${words}", found ${JSON.stringify(checks.fairness.failures)}`);
  assert(checks.fairness.summary().startsWith("!!! FAIRNESS CHECK FAILED"), checks.fairness.summary());
}

export async function tests() {
  return [
    {
      name: "an honest Sushi Go! server: everything verifies",
      fn: () => {
        const checks = serve("sushi-go", GO);
        assertEqual(checks.fairness.failures, [], "failures");
        assertEqual(checks.fairness.final, "verified", "the verdict");
        assertEqual(checks.fairness.openingsVerified, 3 * 27, "openings verified");
        assertEqual(checks.fairness.observationsVerified, 27, "observations verified");
        assertEqual(checks.fairness.summary(), "fair ✓ 81 picks verified, seed check passed", "the summary");
      },
    },
    {
      name: "an honest Sushi Roll server: everything verifies",
      fn: () => {
        const checks = serve("sushi-roll", { players: 3 });
        assertEqual(checks.fairness.failures, [], "failures");
        assertEqual(checks.fairness.final, "verified", "the verdict");
        assert(checks.fairness.summary().endsWith("actions legal, seed check passed"), checks.fairness.summary());
      },
    },
    {
      name: "an opening that does not open its commitment",
      fn: () => caught(serve("sushi-go", GO, (m, step) => {
        if (m.type === "turn_result" && step === 4) m.openings[1].nonce = randomBytes(32);
      }), "seat 1's pick does not open its commitment"),
    },
    {
      name: "the server plays another action for us",
      fn: () => caught(serve("sushi-go", GO, (m, step) => {
        if (m.type === "turn_result" && step === 2) {
          const other = m.openings[0].action.cards[0] === "egg" ? "squid" : "egg";
          m.openings[0] = { ...m.openings[0], action: { cards: [other] } };
        }
      }), "the server played another action for us"),
    },
    {
      name: "a hand shown that the seeds do not give",
      fn: () => caught(serve("sushi-go", GO, (m, step) => {
        if (m.type === "turn_start" && step === 9) m.observation = { ...m.observation, hand: [...m.observation.hand].reverse() };
      }), "what we were shown after 9 steps is not what the seeds give"),
    },
    {
      name: "a die shown that the seeds do not give",
      fn: () => caught(serve("sushi-roll", { players: 2 }, (m, step) => {
        if (m.type === "acted" && step === 5) {
          const players = m.observation.players.map((p) => ({ ...p, belt: p.belt.map(() => ["nigiri", "squid"]) }));
          m.observation = { ...m.observation, players };
        }
      }), "is not what the seeds give"),
    },
    {
      name: "a record signed by another key",
      fn: () => caught(serve("sushi-go", GO, (m, at) => {
        if (at === "game_over") m.record = { ...m.record, server_key: Identity.generate().publicKey };
      }), "signed by another key"),
    },
    {
      name: "a record whose bytes were changed after signing",
      fn: () => caught(serve("sushi-go", GO, (m, at) => {
        if (at === "game_over") {
          const bytes = m.record.record.slice();
          bytes[bytes.length - 3] ^= 1;
          m.record = { ...m.record, record: bytes };
        }
      }), "signature does not check out"),
    },
    {
      name: "a revealed server seed that does not open its hash",
      fn: () => caught(serve("sushi-go", GO, (m, at) => {
        if (at === "game_over") m.server_seed = randomBytes(32);
      }), "does not match its commitment"),
    },
    {
      name: "our seed replaced by another",
      fn: () => caught(serve("sushi-go", GO, (m) => {
        if (m.type === "game_started") m.client_seeds = [randomBytes(32), ...m.client_seeds.slice(1)];
      }), "our seed is not the one the server used"),
    },
    {
      name: "our seed drawn by the server: shown, not a failure",
      fn: () => {
        const checks = serve("sushi-go", GO, () => {}, true);
        assert(checks.fairness.seedDrawn, "the drawn seed is not noted");
        assertEqual(checks.fairness.failures, [], "failures");
        assertEqual(checks.fairness.final, "verified", "the verdict");
      },
    },
    {
      name: "final scores shown that are not the replay's",
      fn: () => caught(serve("sushi-go", GO, (m, at) => {
        if (at === "game_over") m.totals = m.totals.map((t) => t + 1);
      }), "final scores and places shown are not the replay's"),
    },
    {
      name: "a record whose commitments are not those shown",
      fn: () => caught(serve("sushi-go", GO, (m, at, record) => {
        if (at === "record") record.steps[3].commitments = record.steps[3].commitments.map(() => randomBytes(32));
      }), "the record's commitments differ from those shown"),
    },
    {
      name: "a step played again after its server went down, a seat auto-picked there: verified",
      fn: () => {
        const checks = serve("sushi-go", GO, () => {}, false, { step: 4, seat: 1 });
        assertEqual(checks.fairness.failures, [], "failures");
        assertEqual(checks.fairness.final, "verified", "the verdict");
      },
    },
    {
      name: "that step with another seat's commitment changed in the record: caught",
      fn: () => caught(serve("sushi-go", GO, (m, at, record) => {
        if (at === "record") record.steps[4].commitments[2] = randomBytes(32);
      }, false, { step: 4, seat: 1 }), "the record's commitments differ from those shown"),
    },
    {
      name: "an action of a seat that does not act, and one of ours we never sent",
      fn: () => {
        const checks = serve("sushi-roll", { players: 2 }, (m, step) => {
          if (m.type === "acted" && step === 0) m.seat = 1 - m.seat;
        });
        caught(checks, "does not act in this step");
      },
    },
  ];
}

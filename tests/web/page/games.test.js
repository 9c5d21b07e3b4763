// The page's ports of the games' rules against the Python engine (tests/web/web_crosscheck.py):
// every seeded game replayed with the page's rules, step by step, must give the very bytes the
// server would send (every seat's observation and the spectators', then the step's events, packed
// as the wire packs them) at every step; and the page's verification of signed records, whole
// and tampered with, must find what the Python verifier finds.

import { assert, assertEqual } from "./runner.js";
import { fromHex, toHex } from "/core/bytes.js";
import { sha256Stream } from "/core/hash.js";
import { pack } from "/core/msgpack.js";
import { rules } from "/core/games/index.js";
import { verifyGameRecord } from "/core/fairness.js";
import { exportRecord, importRecord, replayRecord } from "/core/replay.js";

function digest(game, events) {
  const hash = sha256Stream();
  for (let seat = 0; seat < game.n; seat++) hash.update(pack(game.observation(seat)));
  hash.update(pack(game.observation(null)));
  for (const event of events) hash.update(pack(event));
  return toHex(hash.digest());
}

function replay(played) {
  const game = rules(played.kind);
  const options = played.kind === "sushi-go" ? played.options : { players: played.options.players };
  const state = game.newGame(options, fromHex(played.seed));
  assertEqual(digest(state, []), played.digests[0], "before the first step");
  played.steps.forEach((actions, i) => {
    const at = state.position();
    const seats = state.toAct();
    // The legal actions the page offers include the ones the engine's seats chose.
    seats.forEach((seat, slot) => {
      const view = state.observation(seat);
      const offered = game.legalActions(view).map((a) => JSON.stringify(a));
      assert(offered.includes(JSON.stringify(actions[slot])), `step ${i + 1}: seat ${seat} is not offered ${JSON.stringify(actions[slot])}`);
    });
    const events = state.step(actions);
    assertEqual(digest(state, events), played.digests[i + 1], `after step ${i + 1} (round ${at.round}, turn ${at.turn})`);
  });
  assert(state.isOver(), "the game is not over after its last step");
}

function label(played, n) {
  const o = played.options;
  const variants = ["pass_both_ways", "dummy", "soy_sauce"].filter((v) => o[v]);
  return `game ${played.kind} ${o.players}p ${variants.join("+") || "plain"} #${n}`;
}

export async function tests() {
  const played = await (await fetch("/fixtures/games.json")).json();
  const counts = new Map();
  const out = played.map((game) => {
    const key = label(game, "");
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return { name: label(game, counts.get(key)), fn: () => replay(game) };
  });
  const signed = await (await fetch("/fixtures/records.json")).json();
  for (const case_ of signed) {
    out.push({
      name: `record ${case_.name}`,
      fn: () => {
        const record = { record: fromHex(case_.record), signature: fromHex(case_.signature), server_key: fromHex(case_.server_key) };
        const pinned = case_.pinned ? fromHex(case_.pinned) : record.server_key;
        const check = verifyGameRecord(record, pinned);
        if (!case_.problem) {
          assertEqual(check.problems, [], "the record's problems");
          const frames = replayRecord(check.record);
          assert(frames.complete, "the replay does not reach the game's end");
          assertEqual(frames.frames.length, check.record.steps.length + 1, "the replay's frames");
          // The file sushigo-replay --export writes: read here, and written here the same.
          const file = importRecord(fromHex(case_.exported));
          assertEqual(file.names, case_.names, "the exported file's names");
          assertEqual(verifyGameRecord(file.signed, pinned).problems, [], "the exported record's problems");
          assertEqual(toHex(exportRecord(record, case_.names)), case_.exported, "the file written here");
        } else {
          assert(!check.ok, "a tampered record verified");
          assert(check.problems.some((p) => p.includes(case_.problem)), `expected "${case_.problem}", found ${JSON.stringify(check.problems)}`);
        }
      },
    });
  }
  return out;
}

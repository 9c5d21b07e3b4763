/**
 * A verified record, step by step, for the replay viewer: the public observation before the
 * first step and after each one, with the step's actions and events.
 * @module
 */
import { deriveGameSeed } from "./fair.js";
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

/**
 * The games this page knows, by kind. Each one's rules object has:
 *
 * - `kind`, `title`, `secret` (its steps are commit-reveal, else open);
 * - `wire`: `decode(part, value)` checks a value of the game from the wire (`part`: options,
 *   action, observation or event), and `commitBytes(action)` is an action's part of a
 *   commitment's preimage (null for a game whose steps are all open);
 * - `newGame(options, gameSeed)`: the game, to replay a record (`position()`, `toAct()`,
 *   `step(actions)` giving the step's events, `observation(seat)`, `isOver()`, `totals()`,
 *   `places`, `winners`);
 * - `legalActions(observation)`: the observing seat's legal actions, in the engine's order;
 * - `describe(action)`: a short text.
 * @module
 */
import { SUSHI_GO } from "./sushi_go/index.js";
import { SUSHI_ROLL } from "./sushi_roll/index.js";

const KNOWN = new Map([
  [SUSHI_GO.kind, SUSHI_GO],
  [SUSHI_ROLL.kind, SUSHI_ROLL],
]);

/** The kinds of game this page plays, Sushi Go! first. */
export const KINDS = Object.freeze([...KNOWN.keys()]);

/**
 * @param {string} kind
 * @returns {any} the game's rules, or null for a game this page does not know
 */
export function rules(kind) {
  return KNOWN.get(kind) ?? null;
}

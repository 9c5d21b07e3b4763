/**
 * What the games' modules share: the descriptors their wire values are checked with (see
 * `validate.js`), the ranking of a finished game, and the error a game's rules throw.
 * @module
 */
import { ErrorCode } from "../errors.js";
import { FieldError } from "../validate.js";

/** An action or a record that the game's rules refuse; the message says why. */
export class RuleError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "RuleError";
  }
}

/** @param {number} lo @param {number} hi */
export const int = (lo, hi) => ({ t: "int", lo, hi });
export const bool = { t: "bool" };
/** @param {any} of @param {number} lo @param {number} hi */
export const arrayOf = (of, lo, hi) => ({ t: "array", of, lo, hi });
/** @param {any} of */
export const opt = (of) => ({ t: "opt", of });
/** @param {string[]} values */
export const oneOf = (values) => ({ t: "enum", values });
/**
 * A structure whose every field is required (the games' values are always sent whole), in the
 * order given, which is the order the reference encoder writes them in.
 * @param {Record<string, any>} types
 * @param {(value: any) => void} [check] a check of the whole, throwing a FieldError
 */
export const fields = (types, check) => ({
  t: "fields",
  fields: Object.entries(types).map(([name, type]) => ({ name, type, required: true })),
  check,
});
/**
 * A union of structures told apart by the str under `key`.
 * @param {string} key
 * @param {Record<string, Record<string, any>>} variants each variant's fields
 * @param {string} what the union's name in errors ("event", "action")
 * @param {(value: any) => void} [check]
 */
export const tagged = (key, variants, what, check) => ({
  t: "tagged",
  key,
  what,
  variants: Object.fromEntries(
    Object.entries(variants).map(([tag, types]) => [tag, { ...fields(types), check }]),
  ),
});

/** @param {string} message @returns {FieldError} an OUT_OF_RANGE refusal */
export function bad(message) {
  return new FieldError(ErrorCode.OUT_OF_RANGE, message);
}

/** A score on the wire: a round's points, a total, end-of-game points. */
export const SCORE = int(-10000, 10000);

/**
 * Places from each seat's ranking key (higher is better, compared item by item): equal keys share
 * a place and the places after them are skipped (1, 1, 3), as engine/api.py's `places_by`.
 * @param {number[][]} keys
 * @returns {number[]}
 */
export function placesBy(keys) {
  const better = (a, b) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
    return false;
  };
  return keys.map((key) => 1 + keys.filter((other) => better(other, key)).length);
}

/** @param {number[]} places @returns {number[]} the seats in first place */
export function winnersOf(places) {
  return places.flatMap((place, seat) => (place === 1 ? [seat] : []));
}

/**
 * A round is scored: each tableau's `totals` (its `points` summed) kept and added to its score;
 * the `round_scored` event. Both games score a round so, as engine/rounds.py's `_scored`.
 * @param {{round: number, scores: number[], puddings: number[], roundTotals: number[][]}} game
 * @param {any[]} points
 * @param {number[]} totals
 */
export function roundScored(game, points, totals) {
  game.roundTotals.push(totals);
  game.scores = game.scores.map((score, i) => score + totals[i]);
  return { event: "round_scored", round: game.round, points, totals: [...game.scores], puddings: [...game.puddings] };
}

/**
 * The game is over: each tableau's `endPoints` added to its score, then the seats' places (points,
 * then puddings; a dummy has none) and the winners; the `game_over` event, the game's own fields
 * of its end-of-game points (`ending`) first. Both games end so, as engine/rounds.py's `_decide`.
 * @param {{n: number, scores: number[], puddings: number[], over: boolean, places: number[], winners: number[]}} game
 * @param {number[]} endPoints
 * @param {Record<string, number[]>} ending
 */
export function decide(game, endPoints, ending) {
  game.scores = game.scores.map((score, i) => score + endPoints[i]);
  game.over = true;
  game.places = placesBy(game.scores.slice(0, game.n).map((score, s) => [score, game.puddings[s]]));
  game.winners = winnersOf(game.places);
  return { event: "game_over", ...ending, totals: [...game.scores], places: [...game.places], winners: [...game.winners] };
}

/**
 * A deep equality of plain wire data (maps, arrays, bins, scalars).
 * @param {any} a
 * @param {any} b
 * @returns {boolean}
 */
export function same(a, b) {
  if (a === b) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

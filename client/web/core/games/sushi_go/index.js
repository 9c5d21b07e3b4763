/**
 * Sushi Go! (`"sushi-go"`) in the page: its rules (`game.js`) and its values on the wire
 * (`wire.js`), as `games/index.js` hands them out.
 * @module
 */
import { BY_NAME, KIND, SushiGoGame, countsOf, describe, legalFromHand } from "./game.js";
import { wire } from "./wire.js";

/** Sushi Go!'s rules in the page (see `games/index.js`). */
export const SUSHI_GO = {
  kind: KIND,
  title: "Sushi Go!",
  secret: true,
  wire,
  /** @param {Options} options @param {Uint8Array} seed */
  newGame: (options, seed) => new SushiGoGame(options, seed),
  /** The observing seat's legal actions (none for a spectator or once over). */
  legalActions(observation) {
    const seat = observation.seat;
    if (seat === null || observation.is_over) return [];
    const counts = countsOf(observation.hand.map((c) => BY_NAME.get(c)));
    const ctrl = observation.dummy_controller === seat;
    return legalFromHand(counts, observation.hand.length, observation.tableaus[seat].chopsticks_ready, ctrl);
  },
  describe,
};

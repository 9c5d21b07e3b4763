/**
 * Sushi Roll (`"sushi-roll"`) in the page: its rules (`game.js`) and its values on the wire
 * (`wire.js`), as `games/index.js` hands them out.
 * @module
 */
import { KIND, SushiRollGame, describe, legalActions } from "./game.js";
import { wire } from "./wire.js";

/** Sushi Roll's rules in the page (see `games/index.js`). */
export const SUSHI_ROLL = {
  kind: KIND,
  title: "Sushi Roll",
  secret: false,
  wire,
  /** @param {{players: number}} options @param {Uint8Array} seed */
  newGame: (options, seed) => new SushiRollGame(options, seed),
  /** The observing seat's legal actions (none unless it is to move). */
  legalActions(observation) {
    const seat = observation.seat;
    if (seat === null || seat !== observation.to_move) return [];
    const me = observation.players[seat];
    const belts = observation.players.map((p) => p.belt);
    return legalActions(seat, belts, me.menu - me.fresh_menu, me.chopsticks - me.fresh_chopsticks);
  },
  describe,
};

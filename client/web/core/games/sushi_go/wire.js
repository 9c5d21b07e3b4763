/**
 * Sushi Go!'s values on the wire (docs/PROTOCOL.md section 3.3), as protocol/games/sushi_go/wire.py reads
 * them: options, actions, observations and events checked field by field and as a whole (an
 * observation that does not hang together is refused), and an action's commitment encoding
 * (section 6.1).
 * @module
 */
import { concat, u8, lp8, utf8 } from "../../bytes.js";
import { ErrorCode } from "../../errors.js";
import { FieldError, check, isMap, kindOf, within } from "../../validate.js";
import { arrayOf, bad, bool, fields, int, oneOf, opt, SCORE, tagged } from "../common.js";
import { BY_NAME, CARDS, KIND, handSize, wasabiPlacements } from "./game.js";

/**
 * An action's part of a commitment's preimage (docs/PROTOCOL.md section 6.1):
 * `u8(number of cards) || lp8(first) [|| lp8(second)] || (u8(0) | u8(1) || lp8(dummy))`.
 * @param {any} action
 * @returns {Uint8Array}
 */
export function commitBytes(action) {
  const parts = [u8(action.cards.length), ...action.cards.map((name) => lp8(utf8(name)))];
  if (action.dummy === undefined || action.dummy === null) parts.push(u8(0));
  else parts.push(u8(1), lp8(utf8(action.dummy)));
  return concat(...parts);
}

// -- the wire ---------------------------------------------------------------------------------

const CARD = oneOf(CARDS);
const SEAT = int(0, 4);
const SMALL = int(0, 64);
const MAX_HAND = 11;
const PER_TABLEAU = (type) => arrayOf(type, 2, 6);


const OPTIONS = fields(
  { players: int(2, 5), pass_both_ways: bool, dummy: bool, soy_sauce: bool },
  (o) => {
    if (o.dummy && o.players !== 2) throw bad(`the dummy variant needs exactly 2 players, not ${o.players}`);
  },
);

/** The action's decoder: a card name or two, and `dummy` kept only when there is a dummy pick. */
const ACTION = {
  t: "custom",
  check(value) {
    if (!isMap(value)) throw new FieldError(ErrorCode.WRONG_TYPE, `expected a map, got ${kindOf(value)}`);
    if (!Object.hasOwn(value, "cards") || value.cards === null) {
      const err = new FieldError(ErrorCode.MISSING_FIELD, "required field is missing");
      err.path.push("cards");
      throw err;
    }
    const cards = within("cards", () => {
      if (!Array.isArray(value.cards)) {
        throw new FieldError(ErrorCode.WRONG_TYPE, `expected an array, got ${kindOf(value.cards)}`);
      }
      if (value.cards.length < 1 || value.cards.length > 2) {
        throw bad(`${value.cards.length} cards: an action takes 1 or 2`);
      }
      return value.cards.map((c, i) => within(`[${i}]`, () => card(c)));
    });
    const out = { cards };
    if (value.dummy !== undefined && value.dummy !== null) out.dummy = within("dummy", () => card(value.dummy));
    return out;
  },
};

function card(value) {
  if (typeof value !== "string") throw new FieldError(ErrorCode.WRONG_TYPE, `expected a card name, got ${kindOf(value)}`);
  if (!BY_NAME.has(value)) throw bad(`unknown card ${JSON.stringify(value)}`);
  return value;
}

const TABLEAU = fields(
  {
    cards: arrayOf(CARD, 0, 40),
    on_wasabi: arrayOf(CARD, 0, 40),
    open_wasabi: SMALL,
    puddings: SMALL,
    score: SCORE,
    round_scores: arrayOf(SCORE, 0, 3),
    hand_size: int(0, MAX_HAND),
    chopsticks_ready: bool,
    is_dummy: bool,
  },
  (view) => {
    const [on, open] = wasabiPlacements(view.cards.map((c) => BY_NAME.get(c)));
    if (on.map((c) => CARDS[c]).join() !== view.on_wasabi.join() || open !== view.open_wasabi) {
      throw bad("wasabi placements do not match the cards");
    }
  },
);

const OBSERVATION = fields(
  {
    options: OPTIONS,
    seat: opt(SEAT),
    round: int(1, 3),
    turn: int(1, MAX_HAND),
    hand: arrayOf(CARD, 0, MAX_HAND),
    tableaus: arrayOf(TABLEAU, 2, 6),
    pass_direction: int(-1, 1),
    dummy_controller: opt(SEAT),
    is_over: bool,
  },
  (obs) => {
    const n = obs.options.players;
    const tableaus = n + (obs.options.dummy ? 1 : 0);
    if (obs.seat !== null && obs.seat >= n) throw bad(`seat ${obs.seat} in a ${n}-player game`);
    if (obs.tableaus.length !== tableaus) throw bad(`${obs.tableaus.length} tableaus, expected ${tableaus}`);
    obs.tableaus.forEach((view, i) => {
      if (view.is_dummy !== (i === n)) throw bad(`tableau ${i}: is_dummy must be ${i === n}`);
    });
    if (obs.pass_direction !== 1 && obs.pass_direction !== -1) throw bad("pass_direction must be 1 or -1");
    if (obs.turn > handSize(obs.options)) throw bad(`turn ${obs.turn} beyond the hand size ${handSize(obs.options)}`);
    if (obs.dummy_controller !== null && (!obs.options.dummy || obs.dummy_controller >= n)) {
      throw bad("a dummy controller without the dummy variant, or not a seat");
    }
    const values = obs.hand.map((c) => BY_NAME.get(c));
    if (values.some((v, i) => i && values[i - 1] > v)) throw bad("the hand must be sorted by card value");
    if (obs.seat === null) {
      if (obs.hand.length) throw bad("a spectator's observation has no hand");
    } else if (obs.hand.length !== obs.tableaus[obs.seat].hand_size) {
      throw bad("the hand does not hold its tableau's hand_size cards");
    }
  },
);

const ROUND_POINTS = fields(
  Object.fromEntries(["maki", "tempura", "sashimi", "dumpling", "nigiri", "soy_sauce"].map((k) => [k, int(0, 1000)])),
);

const EVENT = tagged(
  "event",
  {
    round_started: { round: int(1, 3), hand_size: int(1, MAX_HAND), pass_direction: int(-1, 1) },
    picks_revealed: {
      round: int(1, 3),
      turn: int(1, MAX_HAND),
      actions: arrayOf(ACTION, 2, 5),
      dummy_controller: opt(SEAT),
    },
    wasabi_used: { tableau: int(0, 5), card: CARD },
    chopsticks_returned: { seat: SEAT },
    round_scored: {
      round: int(1, 3),
      points: PER_TABLEAU(ROUND_POINTS),
      totals: PER_TABLEAU(SCORE),
      puddings: PER_TABLEAU(SMALL),
    },
    game_over: {
      pudding_points: PER_TABLEAU(SCORE),
      totals: PER_TABLEAU(SCORE),
      places: arrayOf(int(1, 5), 2, 5),
      winners: arrayOf(SEAT, 1, 5),
    },
  },
  "event",
);

const PARTS = { options: OPTIONS, action: ACTION, observation: OBSERVATION, event: EVENT };

/** Sushi Go!'s values on the wire: `decode(part, value)` checks one (a FieldError otherwise). */
export const wire = {
  kind: KIND,
  decode(part, value) {
    return check(PARTS[part], value, null);
  },
  commitBytes,
};

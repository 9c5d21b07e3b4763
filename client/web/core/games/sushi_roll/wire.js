/**
 * Sushi Roll's values on the wire (docs/PROTOCOL.md section 3.4), as protocol/games/sushi_roll/wire.py reads
 * them: options, actions, observations and events checked field by field and as a whole. Its
 * steps are open, so its actions have no commitment encoding.
 * @module
 */
import { ErrorCode } from "../../errors.js";
import { FieldError, check, kindOf } from "../../validate.js";
import { arrayOf, bad, bool, fields, int, opt, SCORE, tagged } from "../common.js";
import {
  CHOPSTICKS_SUPPLY, DICE_PER_PLAYER, DIE_FACES, DIE_KINDS, FACES, KIND, MENU_SUPPLY, NIGIRI_KIND, TOTAL_DICE, sum,
} from "./game.js";

// -- the wire ---------------------------------------------------------------------------------

const MAX_BELT = 8;
const POS = int(0, MAX_BELT - 1);
const SEAT = int(0, 4);
const TOKENS = int(0, Math.max(MENU_SUPPLY, CHOPSTICKS_SUPPLY));
const PUDDINGS = int(0, 3 * TOTAL_DICE);
const PER_SEAT = (type) => arrayOf(type, 2, 5);

const DIE = {
  t: "custom",
  check(value) {
    if (!Array.isArray(value)) throw new FieldError(ErrorCode.WRONG_TYPE, `expected [kind, face], got ${kindOf(value)}`);
    if (value.length !== 2 || typeof value[0] !== "string" || typeof value[1] !== "string") {
      throw new FieldError(ErrorCode.WRONG_TYPE, "a die is [kind, face], two names");
    }
    const kind = DIE_KINDS.indexOf(value[0]);
    const face = FACES.indexOf(value[1]);
    if (kind < 0 || face < 0) throw bad(`unknown die kind or face ${JSON.stringify(value)}`);
    if (!DIE_FACES[kind].includes(face)) throw bad(`a ${value[0]} die has no ${value[1]} face`);
    return [value[0], value[1]];
  },
};
const DICE = arrayOf(DIE, 0, MAX_BELT);

const OPTIONS = fields({ players: int(2, 5) });

const ACTION = tagged(
  "type",
  {
    reroll: { dice: arrayOf(POS, 1, MAX_BELT) },
    swap: { mine: POS, other_seat: SEAT, theirs: POS },
    take: { position: POS },
  },
  "action",
);

const PLAYER = fields(
  {
    belt: DICE,
    has_red_belt: bool,
    tray: DICE,
    on_wasabi: arrayOf(POS, 0, MAX_BELT),
    open_wasabi: int(0, MAX_BELT),
    menu: TOKENS,
    chopsticks: TOKENS,
    fresh_menu: TOKENS,
    fresh_chopsticks: TOKENS,
    puddings: PUDDINGS,
    score: SCORE,
    round_scores: arrayOf(SCORE, 0, 3),
    taken_this_cycle: bool,
  },
  (view) => {
    const distinct = new Set(view.on_wasabi).size === view.on_wasabi.length;
    if (!distinct || view.on_wasabi.some((i) => i >= view.tray.length || view.tray[i][0] !== DIE_KINDS[NIGIRI_KIND])) {
      throw bad("on_wasabi must name distinct nigiri on the tray");
    }
    if (view.fresh_menu > view.menu || view.fresh_chopsticks > view.chopsticks) {
      throw bad("more fresh tokens than tokens held");
    }
  },
);

const OBSERVATION = fields(
  {
    options: OPTIONS,
    seat: opt(SEAT),
    round: int(1, 3),
    cycle: int(1, MAX_BELT),
    to_move: opt(SEAT),
    red_belt: SEAT,
    players: PER_SEAT(PLAYER),
    bag: int(0, TOTAL_DICE),
    menu_supply: TOKENS,
    chopsticks_supply: TOKENS,
    is_over: bool,
    pudding_points: arrayOf(SCORE, 0, 5),
    token_bonus: arrayOf(SCORE, 0, 5),
  },
  (obs) => {
    const n = obs.options.players;
    const k = DICE_PER_PLAYER[n];
    if (obs.seat !== null && obs.seat >= n) throw bad(`seat ${obs.seat} in a ${n}-player game`);
    if (obs.players.length !== n) throw bad(`${obs.players.length} players, expected ${n}`);
    if (obs.red_belt >= n) throw bad(`red_belt ${obs.red_belt} in a ${n}-player game`);
    if (obs.players.some((p, s) => p.has_red_belt !== (s === obs.red_belt))) {
      throw bad("exactly the red_belt seat must have has_red_belt");
    }
    if (obs.cycle > k) throw bad(`cycle ${obs.cycle} beyond the ${k} dice per player`);
    if (obs.players.some((p) => p.belt.length > k || p.tray.length > k)) throw bad(`a belt or tray holds more than ${k} dice`);
    if (!obs.is_over && obs.bag > TOTAL_DICE - n * k) throw bad(`${obs.bag} dice in the bag`);
    if (obs.is_over !== (obs.to_move === null)) throw bad("to_move is nil exactly when the game is over");
    if (obs.to_move !== null && obs.to_move >= n) throw bad(`to_move ${obs.to_move} in a ${n}-player game`);
    const ends = obs.is_over ? n : 0;
    if (obs.pudding_points.length !== ends || obs.token_bonus.length !== ends) {
      throw bad("pudding_points and token_bonus are per seat once the game is over, else empty");
    }
    if (sum(obs.players.map((p) => p.menu)) + obs.menu_supply !== MENU_SUPPLY) {
      throw bad("menu tokens held and in the supply do not add up");
    }
    if (sum(obs.players.map((p) => p.chopsticks)) + obs.chopsticks_supply !== CHOPSTICKS_SUPPLY) {
      throw bad("chopsticks tokens held and in the supply do not add up");
    }
  },
);

const ROUND_POINTS = fields(
  Object.fromEntries(["maki", "dumpling", "tempura", "sashimi", "nigiri"].map((k) => [k, int(0, 1000)])),
);

const EVENT = tagged(
  "event",
  {
    round_started: { round: int(1, 3), first_seat: SEAT, dice_per_player: int(1, MAX_BELT) },
    dice_rolled: { seat: SEAT, dice: DICE, cause: { t: "str", lo: 1, hi: 16 } },
    rerolled: { seat: SEAT, positions: arrayOf(POS, 1, MAX_BELT), dice: arrayOf(DIE, 1, MAX_BELT) },
    swapped: { seat: SEAT, mine: POS, other_seat: SEAT, theirs: POS, received: DIE, given: DIE },
    taken: {
      seat: SEAT,
      position: POS,
      die: DIE,
      on_wasabi: bool,
      puddings: int(0, 3),
      menu: int(0, 2),
      chopsticks: int(0, 2),
    },
    belts_slid: { red_belt: SEAT, between_rounds: bool },
    round_scored: {
      round: int(1, 3),
      points: PER_SEAT(ROUND_POINTS),
      totals: PER_SEAT(SCORE),
      puddings: PER_SEAT(PUDDINGS),
    },
    game_over: {
      pudding_points: PER_SEAT(SCORE),
      token_bonus: PER_SEAT(SCORE),
      totals: PER_SEAT(SCORE),
      places: PER_SEAT(int(1, 5)),
      winners: arrayOf(SEAT, 1, 5),
    },
  },
  "event",
  (event) => {
    if (event.event === "dice_rolled" && event.cause !== "round" && event.cause !== "slide") {
      throw bad(`unknown cause ${JSON.stringify(event.cause)}`);
    }
    if (event.event === "rerolled" && event.positions.length !== event.dice.length) {
      throw bad("a re-roll shows one die per position");
    }
  },
);

const PARTS = { options: OPTIONS, action: ACTION, observation: OBSERVATION, event: EVENT };

/** Sushi Roll's values on the wire: `decode(part, value)` checks one (FieldError otherwise). */
export const wire = {
  kind: KIND,
  decode(part, value) {
    return check(PARTS[part], value, null);
  },
  commitBytes: null,
};

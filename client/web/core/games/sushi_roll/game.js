/**
 * Sushi Roll (`"sushi-roll"`) in the page: the rules of engine/games/sushi_roll/ as far as a
 * replay needs them (the red belt, each round's bag, every roll in the order
 * engine/games/sushi_roll/game.py draws them, re-rolls, swaps, takes, slides, tokens and their
 * supply, the scoring), producing the very observations and events the server sends
 * (docs/PROTOCOL.md section 3.4). Its values on the wire are `wire.js`'s. Its steps are open: no
 * commitments.
 * @module
 */
import { DeterministicRng } from "../../rng.js";
import { decide, roundScored, RuleError } from "../common.js";

export const KIND = "sushi-roll";

export const DIE_KINDS = Object.freeze(["appetizer", "maki", "nigiri", "specials", "pudding"]);
export const FACES = Object.freeze([
  "dumpling", "tempura", "sashimi", "maki1", "maki2", "maki3", "egg", "salmon", "squid", "wasabi",
  "chopsticks1", "chopsticks2", "menu1", "menu2", "pudding1", "pudding2", "pudding3",
]);
const F = Object.fromEntries(FACES.map((name, i) => [name, i]));
/** Each kind's six faces in roll order (engine/games/sushi_roll/dice.py's DIE_FACES: part of
 * the replay). */
export const DIE_FACES = [
  [F.dumpling, F.dumpling, F.dumpling, F.tempura, F.tempura, F.sashimi],
  [F.maki1, F.maki1, F.maki2, F.maki2, F.maki3, F.maki3],
  [F.egg, F.egg, F.salmon, F.salmon, F.squid, F.squid],
  [F.wasabi, F.wasabi, F.chopsticks1, F.chopsticks2, F.menu1, F.menu2],
  [F.pudding1, F.pudding1, F.pudding1, F.pudding2, F.pudding2, F.pudding3],
];
const DICE_COUNTS = [10, 6, 5, 5, 4];
/** The bag before each round's shuffle: every die's kind, grouped by kind. */
const BAG_ORDER = DICE_COUNTS.flatMap((count, kind) => new Array(count).fill(kind));
export const TOTAL_DICE = BAG_ORDER.length;
export const DICE_PER_PLAYER = Object.freeze({ 2: 8, 3: 7, 4: 6, 5: 5 });
const ROUNDS = 3;
const START_MENU = 3;
const START_CHOPSTICKS = 2;
export const MENU_SUPPLY = 18;
export const CHOPSTICKS_SUPPLY = 12;
const NIGIRI = { [F.egg]: 1, [F.salmon]: 2, [F.squid]: 3 };
const MAKI_ICONS = { [F.maki1]: 1, [F.maki2]: 2, [F.maki3]: 3 };
const APPETIZER = { [F.dumpling]: [0, 2, 4, 8], [F.tempura]: [0, 1, 5, 10], [F.sashimi]: [0, 0, 6, 13] };
const MENU_TOKENS = { [F.menu1]: 1, [F.menu2]: 2 };
const CHOPSTICKS_TOKENS = { [F.chopsticks1]: 1, [F.chopsticks2]: 2 };
const PUDDING_TOKENS = { [F.pudding1]: 1, [F.pudding2]: 2, [F.pudding3]: 3 };
export const NIGIRI_KIND = 2;

export const sum = (values) => values.reduce((a, b) => a + b, 0);
const plainDie = ([kind, face]) => [DIE_KINDS[kind], FACES[face]];

/** One game of Sushi Roll from its options and game seed, played action by action. */
export class SushiRollGame {
  /** @param {{players: number}} options @param {Uint8Array} seed */
  constructor(options, seed) {
    const n = options.players;
    if (!(n >= 2 && n <= 5)) throw new RuleError(`no ${n}-player game`);
    this.options = options;
    this.seed = seed;
    this.n = n;
    this.k = DICE_PER_PLAYER[n];
    this.faces = new DeterministicRng(seed, "roll/faces");
    this.red = new DeterministicRng(seed, "roll/belts").below(n);
    /** @type {number[][][]} each seat's belt: [kind, face] per position */
    this.belts = Array.from({ length: n }, () => []);
    this.trays = Array.from({ length: n }, () => []);
    this.onWasabi = Array.from({ length: n }, () => []);
    this.openWasabi = new Array(n).fill(0);
    this.menu = new Array(n).fill(START_MENU);
    this.chop = new Array(n).fill(START_CHOPSTICKS);
    this.freshMenu = new Array(n).fill(0);
    this.freshChop = new Array(n).fill(0);
    this.puddings = new Array(n).fill(0);
    this.scores = new Array(n).fill(0);
    this.roundTotals = [];
    this.puddingPoints = [];
    this.tokenBonus = [];
    this.bag = [];
    this.round = 0;
    this.cycle = 0;
    this.toMove = this.red;
    this.moved = 0;
    this.over = false;
    this.places = [];
    this.winners = [];
    this.startRound([]);
  }

  /** @returns {{round: number, turn: number}} the step under way: the round and the cycle */
  position() {
    return { round: this.round, turn: this.cycle };
  }

  /** @returns {number[]} the seat to move (none once over) */
  toAct() {
    return this.over ? [] : [this.toMove];
  }

  /** @returns {boolean} */
  isOver() {
    return this.over;
  }

  /**
   * The one action of the seat to move (wire form): its events; a `RuleError` saying what is
   * wrong, and then nothing has changed.
   * @param {any[]} actions
   * @returns {any[]}
   */
  step(actions) {
    if (actions.length !== 1) throw new RuleError(`one action (the mover's) per step, not ${actions.length}`);
    return this.apply(this.toMove, actions[0]);
  }

  /**
   * @param {number} seat
   * @param {any} action
   * @returns {any[]}
   */
  apply(seat, action) {
    if (this.over) throw new RuleError("the game is over: no more actions");
    if (seat !== this.toMove) throw new RuleError(`not seat ${seat}'s turn; it is seat ${this.toMove}'s turn`);
    const belt = this.belts[seat];
    const position = (p, owner = seat) => {
      if (!Number.isInteger(p) || p < 0 || p >= this.belts[owner].length) {
        throw new RuleError(`no die at position ${p} of seat ${owner}'s belt`);
      }
      return p;
    };
    const events = [];
    if (action.type === "take") {
      this.take(seat, position(action.position), events);
    } else if (action.type === "reroll") {
      const dice = action.dice;
      if (this.menu[seat] - this.freshMenu[seat] < 1) throw new RuleError("no menu token to spend on a re-roll");
      if (!Array.isArray(dice) || !dice.length) throw new RuleError("re-roll: choose at least one die");
      dice.forEach((p, i) => {
        position(p);
        if (i && dice[i - 1] >= p) throw new RuleError("re-roll: positions must be strictly increasing");
      });
      this.menu[seat]--;
      for (const p of dice) belt[p] = this.roll(belt[p][0]);
      events.push({ event: "rerolled", seat, positions: [...dice], dice: dice.map((p) => plainDie(belt[p])) });
    } else if (action.type === "swap") {
      const other = action.other_seat;
      if (this.chop[seat] - this.freshChop[seat] < 1) throw new RuleError("no chopsticks token to spend on a swap");
      if (other === seat || !Number.isInteger(other) || other < 0 || other >= this.n) {
        throw new RuleError("swap: the other die must be on another player's belt");
      }
      if (!this.belts[other].length) throw new RuleError(`swap: seat ${other}'s belt is empty`);
      const mine = position(action.mine);
      const theirs = position(action.theirs, other);
      this.chop[seat]--;
      const a = belt;
      const b = this.belts[other];
      [a[mine], b[theirs]] = [b[theirs], a[mine]];
      events.push({
        event: "swapped",
        seat,
        mine,
        other_seat: other,
        theirs,
        received: plainDie(a[mine]),
        given: plainDie(b[theirs]),
      });
    } else {
      throw new RuleError(`unknown action type ${JSON.stringify(action.type)}`);
    }
    return events;
  }

  roll(kind) {
    return [kind, DIE_FACES[kind][this.faces.below(6)]];
  }

  take(seat, position, events) {
    const [die] = this.belts[seat].splice(position, 1);
    const tray = this.trays[seat];
    tray.push(die);
    const face = die[1];
    let onWasabi = false;
    if (NIGIRI[face] !== undefined && this.openWasabi[seat]) {
      this.openWasabi[seat]--;
      this.onWasabi[seat].push(tray.length - 1);
      onWasabi = true;
    } else if (face === F.wasabi) this.openWasabi[seat]++;
    const puddings = PUDDING_TOKENS[face] ?? 0;
    this.puddings[seat] += puddings;
    // A face gains only what the supply still holds.
    const menu = Math.min(MENU_TOKENS[face] ?? 0, MENU_SUPPLY - sum(this.menu));
    const chop = Math.min(CHOPSTICKS_TOKENS[face] ?? 0, CHOPSTICKS_SUPPLY - sum(this.chop));
    this.menu[seat] += menu;
    this.chop[seat] += chop;
    this.freshMenu[seat] += menu;
    this.freshChop[seat] += chop;
    events.push({
      event: "taken",
      seat,
      position,
      die: plainDie(die),
      on_wasabi: onWasabi,
      puddings,
      menu,
      chopsticks: chop,
    });
    this.moved++;
    if (this.moved < this.n) {
      this.beginTurn((seat + 1) % this.n);
    } else if (this.belts[0].length) {
      this.slide(events, false);
      this.rollBelts("slide", events);
      this.cycle++;
      this.moved = 0;
      this.beginTurn(this.red);
    } else {
      this.endRound(events);
    }
  }

  beginTurn(seat) {
    this.toMove = seat;
    this.freshMenu[seat] = 0;
    this.freshChop[seat] = 0;
  }

  /** Every belt goes to the seat on the left: seat i's to seat i + 1. */
  slide(events, betweenRounds) {
    this.belts.unshift(this.belts.pop());
    this.red = (this.red + 1) % this.n;
    events.push({ event: "belts_slid", red_belt: this.red, between_rounds: betweenRounds });
  }

  /** Roll every belt, seat by seat from the red-belt holder, each from position 0 up. */
  rollBelts(cause, events) {
    for (let i = 0; i < this.n; i++) {
      const s = (this.red + i) % this.n;
      this.belts[s] = this.belts[s].map(([kind]) => this.roll(kind));
      events.push({ event: "dice_rolled", seat: s, dice: this.belts[s].map(plainDie), cause });
    }
  }

  startRound(events) {
    this.round++;
    this.cycle = 1;
    this.moved = 0;
    const bag = [...BAG_ORDER];
    new DeterministicRng(this.seed, `roll/bag/${this.round}`).shuffle(bag);
    const k = this.k;
    for (let i = 0; i < this.n; i++) {
      this.belts[(this.red + i) % this.n] = bag.slice(i * k, (i + 1) * k).map((kind) => [kind, DIE_FACES[kind][0]]);
    }
    this.bag = bag.slice(this.n * k);
    events.push({ event: "round_started", round: this.round, first_seat: this.red, dice_per_player: k });
    this.rollBelts("round", events);
    this.beginTurn(this.red);
  }

  endRound(events) {
    const points = roundBreakdown(this.trays.map((tray) => tray.map(([, face]) => face)));
    for (let s = 0; s < this.n; s++) {
      this.trays[s] = [];
      this.onWasabi[s] = [];
      this.openWasabi[s] = 0;
    }
    this.bag = [...BAG_ORDER];
    const totals = points.map((p) => p.maki + p.dumpling + p.tempura + p.sashimi + p.nigiri);
    events.push(roundScored(this, points, totals));
    if (this.round < ROUNDS) {
      // Only 3 players: after 7 cycles the red belt is back with the round's first player, so
      // the belts slide once more.
      if (this.n === 3) this.slide(events, true);
      this.startRound(events);
      return;
    }
    this.puddingPoints = scorePuddings(this.puddings);
    this.tokenBonus = this.menu.map((m, s) => Math.floor((m + this.chop[s]) / 2));
    this.freshMenu.fill(0);
    this.freshChop.fill(0);
    const endPoints = this.puddingPoints.map((p, s) => p + this.tokenBonus[s]);
    events.push(decide(this, endPoints, { pudding_points: [...this.puddingPoints], token_bonus: [...this.tokenBonus] }));
  }

  /**
   * What `seat` sees now (null: a spectator), as the server sends it.
   * @param {number|null} seat
   */
  observation(seat) {
    const n = this.n;
    const moved = new Set(Array.from({ length: this.moved }, (_, i) => (this.red + i) % n));
    return {
      options: { players: n },
      seat,
      round: this.round,
      cycle: this.cycle,
      to_move: this.over ? null : this.toMove,
      red_belt: this.red,
      players: this.belts.map((belt, s) => ({
        belt: belt.map(plainDie),
        has_red_belt: s === this.red,
        tray: this.trays[s].map(plainDie),
        on_wasabi: [...this.onWasabi[s]],
        open_wasabi: this.openWasabi[s],
        menu: this.menu[s],
        chopsticks: this.chop[s],
        fresh_menu: this.freshMenu[s],
        fresh_chopsticks: this.freshChop[s],
        puddings: this.puddings[s],
        score: this.scores[s],
        round_scores: this.roundTotals.map((totals) => totals[s]),
        taken_this_cycle: moved.has(s),
      })),
      bag: this.bag.length,
      menu_supply: MENU_SUPPLY - sum(this.menu),
      chopsticks_supply: CHOPSTICKS_SUPPLY - sum(this.chop),
      is_over: this.over,
      pudding_points: [...this.puddingPoints],
      token_bonus: [...this.tokenBonus],
    };
  }

  /** @returns {number[]} points per seat (final once over) */
  totals() {
    return [...this.scores];
  }
}

// -- scoring ----------------------------------------------------------------------------------

function roundBreakdown(trays) {
  const icons = trays.map((tray) => sum(tray.map((face) => MAKI_ICONS[face] ?? 0)));
  const present = [...new Set(icons.filter((n) => n > 0))].sort((a, b) => b - a);
  const award = new Map(present.slice(0, 2).map((n, i) => [n, i === 0 ? 6 : 3]));
  const appetizer = (tray, face) => {
    const n = tray.filter((f) => f === face).length;
    const table = APPETIZER[face];
    return Math.floor(n / 3) * table[3] + table[n % 3];
  };
  return trays.map((tray, i) => {
    let nigiri = 0;
    let open = 0;
    for (const face of tray) {
      if (face === F.wasabi) open++;
      else if (NIGIRI[face] !== undefined) {
        nigiri += open ? 3 * NIGIRI[face] : NIGIRI[face];
        if (open) open--;
      }
    }
    return {
      maki: icons[i] > 0 ? award.get(icons[i]) ?? 0 : 0,
      dumpling: appetizer(tray, F.dumpling),
      tempura: appetizer(tray, F.tempura),
      sashimi: appetizer(tray, F.sashimi),
      nigiri,
    };
  });
}

function scorePuddings(puddings) {
  const most = Math.max(...puddings);
  const fewest = Math.min(...puddings);
  if (most === fewest) return puddings.map(() => 0);
  return puddings.map((n) => (n === most ? 6 : n === fewest && puddings.length > 2 ? -6 : 0));
}

// -- actions ----------------------------------------------------------------------------------

/**
 * Every action of `seat` (to move) with `menu` and `chopsticks` usable tokens, in the engine's
 * order: every take by position; with a menu token every re-roll by bit mask; with a chopsticks
 * token every swap by own position, other seat, their position (engine/games/sushi_roll/observation.py).
 */
export function legalActions(seat, belts, menu, chopsticks) {
  const k = belts[seat].length;
  const out = [];
  for (let p = 0; p < k; p++) out.push({ type: "take", position: p });
  if (menu > 0 && k) {
    for (let mask = 1; mask < 1 << k; mask++) {
      out.push({ type: "reroll", dice: [...Array(k).keys()].filter((i) => (mask >> i) & 1) });
    }
  }
  if (chopsticks > 0 && k) {
    for (let mine = 0; mine < k; mine++) {
      belts.forEach((belt, other) => {
        if (other === seat) return;
        for (let theirs = 0; theirs < belt.length; theirs++) out.push({ type: "swap", mine, other_seat: other, theirs });
      });
    }
  }
  return out;
}

/** @param {any} action @returns {string} e.g. "re-roll 1,3", "swap 1 with seat 2's 0", "take 3" */
export function describe(action) {
  if (action.type === "reroll") return `re-roll ${action.dice.join(",")}`;
  if (action.type === "swap") return `swap ${action.mine} with seat ${action.other_seat}'s ${action.theirs}`;
  return `take ${action.position}`;
}

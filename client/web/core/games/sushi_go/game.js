/**
 * Sushi Go! (`"sushi-go"`) in the page: the rules of engine/games/sushi_go/ as far as a replay
 * needs them (the deal, simultaneous picks, passing, chopsticks, wasabi, the dummy, soy sauce,
 * every table size, the scoring), producing the very observations and events the server sends (docs/PROTOCOL.md
 * section 3.3). Its values on the wire are `wire.js`'s.
 *
 * Cards are their index in card order (0 tempura ... 12 soy_sauce) inside, their names outside.
 * @module
 */
import { DeterministicRng } from "../../rng.js";
import { decide, roundScored, RuleError } from "../common.js";

export const KIND = "sushi-go";

/** The cards in card order: a card's index is its value (docs/PROTOCOL.md section 3.3). */
export const CARDS = Object.freeze([
  "tempura", "sashimi", "dumpling", "maki1", "maki2", "maki3", "egg", "salmon", "squid",
  "wasabi", "chopsticks", "pudding", "soy_sauce",
]);
const [TEMPURA, SASHIMI, DUMPLING, MAKI1, MAKI2, MAKI3, EGG, SALMON, SQUID, WASABI, CHOPSTICKS, PUDDING, SOY] =
  CARDS.map((_, i) => i);
export const BY_NAME = new Map(CARDS.map((name, i) => [name, i]));
/** Copies of each card in the deck, in card order (soy sauce only with its variant). */
const DECK_COUNTS = [14, 14, 14, 6, 12, 8, 5, 10, 5, 6, 4, 10, 3];
const HAND_SIZES = { 2: 10, 3: 9, 4: 8, 5: 7 };
const DUMMY_HAND_SIZE = 9;
const ROUNDS = 3;
const NIGIRI = { [EGG]: 1, [SALMON]: 2, [SQUID]: 3 };
const MAKI_ICONS = { [MAKI1]: 1, [MAKI2]: 2, [MAKI3]: 3 };
const DUMPLING_POINTS = [0, 1, 3, 6, 10, 15];
const FAMILY = [
  "tempura", "sashimi", "dumpling", "maki", "maki", "maki", "nigiri", "nigiri", "nigiri",
  "nigiri", "chopsticks", "pudding", "soy_sauce",
];
const isNigiri = (card) => card === EGG || card === SALMON || card === SQUID;

// -- options ----------------------------------------------------------------------------------

/**
 * @typedef {{players: number, pass_both_ways: boolean, dummy: boolean, soy_sauce: boolean}} Options
 */

/** @param {Options} options @returns {number} cards dealt to each hand at a round's start */
export function handSize(options) {
  return options.dummy ? DUMMY_HAND_SIZE : HAND_SIZES[options.players];
}

// -- the rules --------------------------------------------------------------------------------

/** One game of Sushi Go! from its options and game seed, played step by step. */
export class SushiGoGame {
  /** @param {Options} options @param {Uint8Array} seed */
  constructor(options, seed) {
    if (options.dummy && options.players !== 2) throw new RuleError("the dummy variant needs exactly 2 players");
    if (!(options.players >= 2 && options.players <= 5)) throw new RuleError(`no ${options.players}-player game`);
    this.options = options;
    this.n = options.players;
    this.tableauCount = this.n + (options.dummy ? 1 : 0);
    this.deck = [];
    DECK_COUNTS.forEach((count, card) => {
      if (card !== SOY || options.soy_sauce) for (let i = 0; i < count; i++) this.deck.push(card);
    });
    new DeterministicRng(seed, "deck").shuffle(this.deck);
    this.deckPos = 0;
    this.round = 0;
    this.turn = 0;
    this.passesLeft = true;
    /** @type {number[][]} each seat's hand as counts by card */
    this.hands = [];
    this.handLen = 0;
    /** @type {number[]} the dummy's pile, its top last */
    this.pile = [];
    /** @type {number|null} */
    this.controller = null;
    this.turnsPlayed = 0;
    const t = this.tableauCount;
    /** @type {number[][]} this round's tableaus in play order (a used chopsticks card has left) */
    this.tableaus = Array.from({ length: t }, () => []);
    this.openWasabi = new Array(t).fill(0);
    this.chop = new Array(t).fill(0);
    this.puddings = new Array(t).fill(0);
    this.scores = new Array(t).fill(0);
    /** @type {number[][]} each finished round's totals per tableau */
    this.roundTotals = [];
    this.over = false;
    /** @type {number[]} */
    this.puddingPoints = [];
    /** @type {number[]} */
    this.places = [];
    /** @type {number[]} */
    this.winners = [];
    this.startRound();
  }

  /** @returns {{round: number, turn: number}} the step under way */
  position() {
    return { round: this.round, turn: this.turn };
  }

  /** @returns {number[]} the seats that act in the step under way (every seat; none once over) */
  toAct() {
    return this.over ? [] : [...Array(this.n).keys()];
  }

  /** @returns {boolean} */
  isOver() {
    return this.over;
  }

  startRound() {
    this.round++;
    this.turn = 1;
    this.passesLeft = !(this.options.pass_both_ways && this.round === 2);
    const size = handSize(this.options);
    this.hands = [];
    for (let s = 0; s < this.n; s++) {
      this.hands.push(countsOf(this.deck.slice(this.deckPos, this.deckPos + size)));
      this.deckPos += size;
    }
    this.handLen = size;
    if (this.options.dummy) {
      this.pile = this.deck.slice(this.deckPos, this.deckPos + size).reverse();
      this.deckPos += size;
      this.dummyDraw();
    }
  }

  /** The dummy variant: control alternates every turn, across rounds too; the controller draws. */
  dummyDraw() {
    const ctrl = (this.controller = this.turnsPlayed % 2);
    this.hands[ctrl][this.pile.pop()]++;
  }

  /**
   * A seat's legal actions now, in the engine's order (wire form).
   * @param {number} seat
   */
  legalActions(seat) {
    if (this.over) return [];
    const ctrl = seat === this.controller;
    return legalFromHand(this.hands[seat], this.handLen + (ctrl ? 1 : 0), this.chop[seat] > 0, ctrl);
  }

  /**
   * Play one step: every seat's action at once (wire form), indexed by seat. The step's events
   * (wire form); a `RuleError` naming the first illegal action, and then nothing has changed.
   * @param {any[]} actions
   * @returns {any[]}
   */
  step(actions) {
    if (this.over) throw new RuleError("the game is over: no more actions");
    if (actions.length !== this.n) throw new RuleError(`expected ${this.n} actions, one per seat, got ${actions.length}`);
    actions.forEach((action, seat) => {
      const key = actionKey(action);
      if (!this.legalActions(seat).some((legal) => actionKey(legal) === key)) {
        throw new RuleError(`seat ${seat}: ${describe(action)} is not a legal action`);
      }
    });
    const events = [
      {
        event: "picks_revealed",
        round: this.round,
        turn: this.turn,
        actions: actions.map(plainAction),
        dummy_controller: this.controller,
      },
    ];
    actions.forEach((action, seat) => {
      const [first, second] = action.cards.map((name) => BY_NAME.get(name));
      const hand = this.hands[seat];
      hand[first]--;
      this.place(seat, first, events);
      if (second !== undefined) {
        hand[second]--;
        hand[CHOPSTICKS]++; // the chopsticks card used goes back into the hand
        this.place(seat, second, events);
        const tableau = this.tableaus[seat];
        tableau.splice(tableau.indexOf(CHOPSTICKS), 1); // the oldest: played on an earlier turn
        this.chop[seat]--;
        events.push({ event: "chopsticks_returned", seat });
      }
      if (action.dummy !== undefined && action.dummy !== null) {
        const dummy = BY_NAME.get(action.dummy);
        hand[dummy]--;
        this.place(this.n, dummy, events);
      }
    });
    this.turnsPlayed++;
    this.handLen--;
    if (this.handLen === 0) {
      this.endRound(events);
      return events;
    }
    // Seat i's hand goes to seat i + 1 (passing left), or to seat i - 1.
    if (this.passesLeft) this.hands.unshift(this.hands.pop());
    else this.hands.push(this.hands.shift());
    this.turn++;
    if (this.pile.length) this.dummyDraw();
    return events;
  }

  /** `card` goes onto tableau `t`: a nigiri onto the oldest open wasabi; wasabi and chopsticks wait. */
  place(t, card, events) {
    this.tableaus[t].push(card);
    if (isNigiri(card)) {
      if (this.openWasabi[t]) {
        this.openWasabi[t]--;
        events.push({ event: "wasabi_used", tableau: t, card: CARDS[card] });
      }
    } else if (card === WASABI) this.openWasabi[t]++;
    else if (card === CHOPSTICKS) this.chop[t]++;
  }

  endRound(events) {
    const points = roundBreakdown(this.tableaus);
    const totals = points.map(total);
    this.tableaus.forEach((tableau, i) => {
      this.puddings[i] += tableau.filter((c) => c === PUDDING).length;
    });
    this.tableaus = this.tableaus.map(() => []);
    this.openWasabi.fill(0);
    this.chop.fill(0);
    this.controller = null;
    events.push(roundScored(this, points, totals));
    if (this.round < ROUNDS) {
      this.startRound();
      events.push({
        event: "round_started",
        round: this.round,
        hand_size: this.handLen,
        pass_direction: this.passesLeft ? 1 : -1,
      });
      return;
    }
    this.puddingPoints = scorePuddings(this.puddings);
    events.push(decide(this, this.puddingPoints, { pudding_points: [...this.puddingPoints] }));
  }

  /**
   * What `seat` may see now (null: a spectator), as the server sends it.
   * @param {number|null} seat
   */
  observation(seat) {
    const views = this.tableaus.map((tableau, i) => {
      const dummy = i === this.n;
      const [on, open] = wasabiPlacements(tableau);
      let size = this.handLen;
      if (dummy) size = this.pile.length;
      else if (i === this.controller) size = this.handLen + 1;
      return {
        cards: tableau.map((c) => CARDS[c]),
        on_wasabi: on.map((c) => CARDS[c]),
        open_wasabi: open,
        puddings: this.puddings[i] + tableau.filter((c) => c === PUDDING).length,
        score: this.scores[i],
        round_scores: this.roundTotals.map((totals) => totals[i]),
        hand_size: size,
        chopsticks_ready: !dummy && this.chop[i] > 0 && !this.over,
        is_dummy: dummy,
      };
    });
    return {
      options: plainOptions(this.options),
      seat,
      round: this.round,
      turn: this.turn,
      hand: seat === null ? [] : namesOf(this.hands[seat]),
      tableaus: views,
      pass_direction: this.passesLeft ? 1 : -1,
      dummy_controller: this.controller,
      is_over: this.over,
    };
  }

  /** @returns {number[]} points per tableau (final once over) */
  totals() {
    return [...this.scores];
  }
}

export function countsOf(cards) {
  const counts = new Array(CARDS.length).fill(0);
  for (const c of cards) counts[c]++;
  return counts;
}

function namesOf(counts) {
  const out = [];
  counts.forEach((count, card) => {
    for (let i = 0; i < count; i++) out.push(CARDS[card]);
  });
  return out;
}

/** The nigiri on wasabi and the wasabi left open, from a tableau in play order. */
export function wasabiPlacements(cards) {
  const on = [];
  let open = 0;
  for (const card of cards) {
    if (card === WASABI) open++;
    else if (isNigiri(card) && open) {
      open--;
      on.push(card);
    }
  }
  return [on, open];
}

/**
 * Every legal action of a hand (counts by card) of `held` cards, in the engine's order: single
 * picks by card, then chopsticks pairs (first by card, then second), each with every dummy pick
 * when the seat controls the dummy (engine/games/sushi_go/legal.py).
 */
export function legalFromHand(counts, held, chopsticks, controlsDummy) {
  const kinds = [];
  counts.forEach((count, card) => {
    if (count) kinds.push(card);
  });
  const own = kinds.map((c) => [c]);
  if (chopsticks && held >= (controlsDummy ? 3 : 2)) {
    for (const a of kinds) {
      for (const b of kinds) if (b !== a || counts[a] >= 2) own.push([a, b]);
    }
  }
  if (!controlsDummy) return own.map((cards) => ({ cards: cards.map((c) => CARDS[c]) }));
  const out = [];
  for (const cards of own) {
    const left = [...counts];
    for (const c of cards) left[c]--;
    for (const d of kinds) {
      if (left[d] > 0) out.push({ cards: cards.map((c) => CARDS[c]), dummy: CARDS[d] });
    }
  }
  return out;
}

// -- scoring ----------------------------------------------------------------------------------

const total = (p) => p.maki + p.tempura + p.sashimi + p.dumpling + p.nigiri + p.soy_sauce;

function makiPoints(icons) {
  const first = Math.max(0, ...icons);
  if (first <= 0) return icons.map(() => 0);
  const tied = icons.filter((n) => n === first).length;
  if (tied > 1) return icons.map((n) => (n === first ? Math.floor(6 / tied) : 0));
  let second = 0;
  for (const n of icons) if (second < n && n < first) second = n;
  const share = second ? Math.floor(3 / icons.filter((n) => n === second).length) : 0;
  return icons.map((n) => (n === first ? 6 : second && n === second ? share : 0));
}

/** Every tableau's points for a round, by category (engine/games/sushi_go/scoring.py's
 * `round_breakdown`). */
function roundBreakdown(tableaus) {
  const count = (tableau, card) => tableau.filter((c) => c === card).length;
  const maki = makiPoints(tableaus.map((t) => t.reduce((sum, c) => sum + (MAKI_ICONS[c] ?? 0), 0)));
  let soy = tableaus.map(() => 0);
  if (tableaus.some((t) => t.includes(SOY))) {
    const colours = tableaus.map((t) => new Set(t.map((c) => FAMILY[c])).size);
    const top = Math.max(...colours);
    const winners = tableaus.flatMap((t, i) => (t.includes(SOY) && colours[i] === top ? [i] : []));
    soy = tableaus.map((_, i) => (winners.includes(i) ? Math.floor(4 / winners.length) : 0));
  }
  return tableaus.map((tableau, i) => {
    let nigiri = 0;
    let open = 0;
    for (const card of tableau) {
      if (isNigiri(card)) {
        nigiri += open ? 3 * NIGIRI[card] : NIGIRI[card];
        if (open) open--;
      } else if (card === WASABI) open++;
    }
    return {
      maki: maki[i],
      tempura: Math.floor(count(tableau, TEMPURA) / 2) * 5,
      sashimi: Math.floor(count(tableau, SASHIMI) / 3) * 10,
      dumpling: DUMPLING_POINTS[Math.min(count(tableau, DUMPLING), 5)],
      nigiri,
      soy_sauce: soy[i],
    };
  });
}

/** End-of-game pudding points per tableau (engine/games/sushi_go/scoring.py's
 * `score_puddings`). */
function scorePuddings(puddings) {
  const k = puddings.length;
  const most = Math.max(...puddings);
  const fewest = Math.min(...puddings);
  if (k < 2 || most === fewest) return puddings.map(() => 0);
  const top = Math.floor(6 / puddings.filter((n) => n === most).length);
  if (k === 2) return puddings.map((n) => (n === most ? top : 0));
  const bottom = -Math.floor(6 / puddings.filter((n) => n === fewest).length);
  return puddings.map((n) => (n === most ? top : n === fewest ? bottom : 0));
}

// -- actions ----------------------------------------------------------------------------------

/** An action as the wire has it: no `dummy` key without a dummy pick. */
export function plainAction(action) {
  const out = { cards: [...action.cards] };
  if (action.dummy !== undefined && action.dummy !== null) out.dummy = action.dummy;
  return out;
}

export function actionKey(action) {
  return `${action.cards.join("+")}|${action.dummy ?? ""}`;
}

/** @param {any} action @returns {string} e.g. "wasabi+squid" or "salmon (dummy: egg)" */
export function describe(action) {
  const text = action.cards.join("+");
  return action.dummy ? `${text} (dummy: ${action.dummy})` : text;
}

export function plainOptions(options) {
  return {
    players: options.players,
    pass_both_ways: options.pass_both_ways,
    dummy: options.dummy,
    soy_sauce: options.soy_sauce,
  };
}

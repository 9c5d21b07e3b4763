/**
 * Everything the page checks of a game it plays or watches, as the terminal client does
 * (client/checks.py, docs/PROTOCOL.md section 6.5). Failures are never silent: each is kept, in
 * words, in the game's `Fairness`.
 *
 * As the game goes: GAME_STARTED keeps GAME_STARTING's seed commitment and holds our own seed
 * (unless the server says it drew it); every opening of a secret step opens the commitment
 * COMMITMENTS showed for that seat, and ours is the action we committed to; every action of an
 * open step is by a seat that acts in it, and one of ours only if we sent it.
 *
 * At GAME_OVER: the server's signature on the record (by the key of WELCOME), the revealed server
 * seed opens its commitment, the record holds the seeds and commitments we were shown, the record
 * replays with the game's rules to its scores, the totals, places and winners shown are the
 * replay's, and every observation we were shown is the replay's observation for our seat after
 * the same number of steps: so every card dealt and every die rolled that we saw is the one the
 * seeds give.
 * @module
 */
import { sameBytes } from "./bytes.js";
import { ProtocolError } from "./errors.js";
import { deriveGameSeed, opens, recordActions, serverSeedHash, verifyRecord, verifySignedRecord } from "./fair.js";
import { rules } from "./games/index.js";
import { same } from "./games/common.js";

/** What has been verified of one game. */
export class Fairness {
  /** @param {string} kind */
  constructor(kind = "") {
    /** The game these checks are of. */
    this.kind = kind;
    /** Openings checked against their commitments (secret steps). */
    this.openingsVerified = 0;
    /** Actions the server chose for a seat (shown, not failures). */
    this.autoPicks = 0;
    /** Open steps' actions shown, each checked to be by a seat that acts. */
    this.actionsSeen = 0;
    /** Observations shown, found equal to the replay of the record at GAME_OVER. */
    this.observationsVerified = 0;
    /** The server drew our seed (ours came after its deadline): shown, not a failure. */
    this.seedDrawn = false;
    /** @type {string[]} every check that failed, in words */
    this.failures = [];
    /** @type {"pending"|"verified"|"FAILED"} */
    this.final = "pending";
  }

  /** @returns {boolean} no check has failed */
  get ok() {
    return this.failures.length === 0;
  }

  /** @returns {string} what has been checked, in words: "27 picks verified" or "14 actions legal" */
  checking() {
    const game = rules(this.kind);
    if (game === null || game.secret) return `${this.openingsVerified} pick${this.openingsVerified === 1 ? '' : 's'} verified`;
    return `${this.actionsSeen} action${this.actionsSeen === 1 ? '' : 's'} legal`;
  }

  /**
   * The line the terminal client shows: "fair ✓ 27 picks verified", once the record verified
   * "fair ✓ 27 picks verified, seed check passed", or the first failure loudly.
   * @returns {string}
   */
  summary() {
    if (this.failures.length) return `!!! FAIRNESS CHECK FAILED: ${this.failures[0]} !!!`;
    if (this.final === "FAILED") return "!!! SEED CHECK FAILED !!!";
    if (this.final === "verified") return `fair ✓ ${this.checking()}, seed check passed`;
    return `fair ✓ ${this.checking()}`;
  }
}

/** One game as this page saw it, checked as it goes and at its end (client/checks.py). */
export class GameChecks {
  /**
   * @param {string} tableId
   * @param {number|null} seat our seat (null: watching)
   * @param {string} kind
   * @param {Uint8Array|null} seedHash GAME_STARTING's; null when we came in after it
   * @param {(fairness: Fairness) => void} [changed] called whenever a check ran or failed
   */
  constructor(tableId, seat, kind, seedHash, changed = () => {}) {
    this.tableId = tableId;
    this.seat = seat;
    this.kind = kind;
    this.seedHash = seedHash;
    /** @type {Uint8Array[]} */
    this.clientSeeds = [];
    /** @type {Uint8Array|null} */
    this.mySeed = null;
    /** @type {Map<string, Array<Uint8Array|null>>} the commitments shown, by "round/turn" */
    this.commitments = new Map();
    /** @type {number[]} the seats acting in the current step */
    this.acting = [];
    /** @type {Array<[number, any]>} every observation shown, with the steps played before it */
    this.shown = [];
    /** @type {Map<string, {seats: number[], actions: any[]}>} each secret step's actions shown */
    this.results = new Map();
    /** @type {Array<{step: number, seat: number, action: any, auto: boolean}>} every ACTED */
    this.moves = [];
    /** @type {{round: number, turn: number, action: any}|null} what we committed to */
    this.myPick = null;
    /** @type {any[]} our open-step actions sent and not yet seen applied */
    this.sent = [];
    this.fairness = new Fairness(kind);
    this.changed = changed;
  }

  get rules() {
    return rules(this.kind);
  }

  /** A check failed: keep it, loudly. @param {string} text */
  fail(text) {
    console.error(`FAIRNESS CHECK FAILED: ${text}`);
    this.fairness.failures.push(text);
  }

  /** GAME_STARTED: the seeds are fixed. */
  started(msg) {
    this.clientSeeds = msg.client_seeds;
    if (this.seedHash && !sameBytes(msg.server_seed_hash, this.seedHash)) {
      this.fail("the server changed its seed commitment after the game started");
    }
    if (this.seat !== null && this.mySeed !== null && this.seat < msg.client_seeds.length) {
      if (!sameBytes(msg.client_seeds[this.seat], this.mySeed)) {
        if (msg.drawn.includes(this.seat)) this.fairness.seedDrawn = true;
        else this.fail("our seed is not the one the server used");
      }
    }
    this.changed(this.fairness);
  }

  /** TURN_START: a step begins; keep what we were shown. */
  step(msg) {
    this.acting = msg.seats;
    this.sent = [];
    this.shown.push([msg.step, msg.observation]);
  }

  /** COMMITMENTS: keep them, to check the openings against. */
  committed(msg) {
    this.commitments.set(`${msg.round}/${msg.turn}`, msg.commitments);
  }

  /** TURN_RESULT: every opening opens its commitment; ours is what we committed to. */
  result(msg) {
    const shown = this.commitments.get(`${msg.round}/${msg.turn}`);
    const game = this.rules;
    if (shown === undefined || game === null) return; // we came in after the commitments
    const where = `round ${msg.round} turn ${msg.turn}`;
    msg.openings.forEach((opening, slot) => {
      const seat = slot < this.acting.length ? this.acting[slot] : slot;
      if (opening.auto) {
        this.fairness.autoPicks++;
        return;
      }
      const commitment = slot < shown.length ? shown[slot] : null;
      const opened = opens(game, this.tableId, { round: msg.round, turn: msg.turn, seat }, commitment, opening);
      if (opened === null) this.fail(`${where}: seat ${seat}'s pick has no commitment`);
      else if (!opened) this.fail(`${where}: seat ${seat}'s pick does not open its commitment`);
      else this.fairness.openingsVerified++;
    });
    this.results.set(`${msg.round}/${msg.turn}`, { seats: this.acting, actions: msg.openings.map((o) => o.action) });
    const pick = this.myPick;
    if (pick !== null && pick.round === msg.round && pick.turn === msg.turn) {
      const slot = this.acting.indexOf(this.seat);
      const mine = slot >= 0 && slot < msg.openings.length ? msg.openings[slot] : null;
      if (mine !== null && !mine.auto && !same(mine.action, pick.action)) {
        this.fail(`${where}: the server played another action for us`);
      }
    }
    this.changed(this.fairness);
  }

  /** ACTED: by a seat that acts in this step; ours only if we sent it. */
  acted(msg) {
    this.fairness.actionsSeen++;
    const where = `round ${msg.round} turn ${msg.turn}`;
    if (msg.auto) this.fairness.autoPicks++;
    if (this.acting.length && !this.acting.includes(msg.seat)) {
      this.fail(`${where}: seat ${msg.seat} acted, but it does not act in this step`);
    }
    if (msg.seat === this.seat && !msg.auto) {
      const i = this.sent.findIndex((action) => same(action, msg.action));
      if (i >= 0) this.sent.splice(i, 1);
      else this.fail(`${where}: the server played an action for us that we did not send`);
    }
    this.moves.push({ step: msg.step, seat: msg.seat, action: msg.action, auto: msg.auto });
    this.shown.push([msg.step + 1, msg.observation]);
    this.changed(this.fairness);
  }

  /**
   * The commitments shown for a secret step are the record's. One slot may differ: a seat the
   * record has auto-picked with no commitment, in a step whose result we never saw. Its server
   * went down after COMMITMENTS (nothing revealed), the step was played again from the last
   * stored one, and that seat's player was away past its deadline there. (The server may
   * auto-pick a seat at any step; every other slot must be the one shown.)
   */
  shownAsRecorded(step, seen) {
    if (seen.length !== step.commitments.length) return false;
    const interrupted = !this.results.has(`${step.round}/${step.turn}`);
    return step.commitments.every((c, i) =>
      (c === null && interrupted && step.openings[i].auto) || same(seen[i] ?? null, c));
  }

  /**
   * GAME_OVER: check the record and everything shown against its replay.
   * @param {any} msg
   * @param {Uint8Array|null} serverKey the key of the server's WELCOME
   */
  finished(msg, serverKey) {
    const fairness = this.fairness;
    let record;
    try {
      record = verifySignedRecord(msg.record, serverKey);
    } catch (exc) {
      if (!(exc instanceof ProtocolError)) throw exc;
      this.fail(`the game record's signature does not check out: ${exc.message}`);
      fairness.final = "FAILED";
      this.changed(fairness);
      return;
    }
    this.seedChain(msg.server_seed, record);
    for (const step of record.steps) {
      const seen = this.commitments.get(`${step.round}/${step.turn}`);
      if (step.commitments.length && seen !== undefined && !this.shownAsRecorded(step, seen)) {
        this.fail(`round ${step.round} turn ${step.turn}: the record's commitments differ from those shown`);
      }
    }
    const report = verifyRecord(record);
    for (const problem of report.problems) this.fail(problem);
    if (report.ok && report.game !== null) {
      this.actions(record);
      this.observations(record);
      const game = report.game;
      if (!same(msg.totals, game.totals()) || !same(msg.places, game.places) || !same(msg.winners, game.winners)) {
        this.fail("the final scores and places shown are not the replay's");
      }
    }
    fairness.final = fairness.ok ? "verified" : "FAILED";
    this.changed(fairness);
  }

  /** The revealed server seed opens its commitment; the record is this game's, with our seeds. */
  seedChain(serverSeed, record) {
    if (this.seedHash && !sameBytes(serverSeedHash(serverSeed), this.seedHash)) {
      this.fail("the revealed server seed does not match its commitment");
    }
    if (!sameBytes(record.server_seed, serverSeed) || record.table_id !== this.tableId || record.game !== this.kind) {
      this.fail("the record is not this game's");
    }
    if (this.clientSeeds.length && !same(record.client_seeds, this.clientSeeds)) {
      this.fail("the record's seeds differ from the ones announced");
    }
  }

  /** Every step's actions we were shown are the record's. */
  actions(record) {
    const steps = record.steps;
    for (const { step: number, seat, action, auto } of this.moves) {
      const step = number < steps.length ? steps[number] : null;
      if (
        step === null ||
        step.seats.length !== 1 ||
        step.seats[0] !== seat ||
        !same(step.openings[0].action, action) ||
        step.openings[0].auto !== auto
      ) {
        this.fail(`step ${number + 1}: seat ${seat}'s action shown is not the record's`);
        return;
      }
    }
    const byPosition = new Map(steps.filter((s) => s.commitments.length).map((s) => [`${s.round}/${s.turn}`, s]));
    for (const [position, { seats, actions }] of this.results) {
      const step = byPosition.get(position);
      if (step === undefined || !same(step.seats, seats) || !same(step.openings.map((o) => o.action), actions)) {
        const [round, turn] = position.split("/");
        this.fail(`round ${round} turn ${turn}: the actions shown are not the record's`);
        return;
      }
    }
  }

  /** Replay the record step by step: every observation shown is the replay's after as many steps. */
  observations(record) {
    const seed = deriveGameSeed(record.table_id, record.server_seed, record.client_seeds);
    const game = rules(record.game).newGame(record.options, seed);
    const wanted = [...this.shown].sort((a, b) => a[0] - b[0]);
    const actions = recordActions(record);
    let played = 0;
    for (const [steps, observation] of wanted) {
      if (steps > actions.length) {
        this.fail(`an observation after ${steps} steps, but the record has ${actions.length}`);
        return;
      }
      while (played < steps) game.step(actions[played++]);
      if (!same(game.observation(this.seat), observation)) {
        this.fail(`what we were shown after ${steps} steps is not what the seeds give`);
        return;
      }
      this.fairness.observationsVerified++;
    }
  }
}

/**
 * A finished game's record as `game_record` (MY_GAMES, GET_RECORD) hands it out, verified as at
 * GAME_OVER (docs/PROTOCOL.md section 2.3a): the signature (by `serverKey`, the key of WELCOME,
 * when given), then the replay of the record.
 * @param {{record: Uint8Array, signature: Uint8Array, server_key: Uint8Array}} signed
 * @param {Uint8Array|null} serverKey
 * @returns {{ok: boolean, problems: string[], record: any, autoPicks: any[], game: any}}
 */
export function verifyGameRecord(signed, serverKey = null) {
  let record;
  try {
    record = verifySignedRecord(signed, serverKey);
  } catch (exc) {
    if (!(exc instanceof ProtocolError)) throw exc;
    return { ok: false, problems: [exc.message], record: null, autoPicks: [], game: null };
  }
  const report = verifyRecord(record);
  return { ok: report.ok, problems: report.problems, record, autoPicks: report.autoPicks, game: report.game };
}

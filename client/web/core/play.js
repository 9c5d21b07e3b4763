/**
 * The seat's part in a game, for `SushiClient` (as client/connection.py's `Client` does it): a
 * fresh seed when a game starts; `play(action)` commits in a secret step and reveals once every
 * commitment is in, or acts in an open one; whatever the seat still owes after a resume; and
 * every check of `fairness.js`, on arrival, into the game's `Fairness`.
 * @module
 */
import { fromHex, toHex } from "./bytes.js";
import { ErrorCode, ProtocolError, ServerError } from "./errors.js";
import { freshBytes, makeCommitment } from "./fair.js";
import { Fairness, GameChecks } from "./fairness.js";
import { same } from "./games/common.js";
import { FieldError } from "./validate.js";

const PICK_KEY = "sushigo.pick";

export class GamePart {
  /** @param {import("./client.js").SushiClient} client */
  constructor(client) {
    this.client = client;
    /** Our latest observation (null outside a game). */
    this.observation = null;
    /** @type {number[]} the seats acting in the step under way */
    this.acting = [];
    /** @type {number|null} when the time for what we owe runs out (Date.now() ms) */
    this.deadline = null;
    /** @type {string[]} the names in seat order of the game under way */
    this.players = [];
    this.fairness = new Fairness();
    this.lastGameOver = null;
    /** @type {GameChecks|null} */
    this.checks = null;
    /** @type {{round: number, turn: number, action: any, nonce: Uint8Array}|null} our pick in the secret step */
    this.pick = null;
    /** @type {string|null} "round/turn" of the reveal sent */
    this.revealed = null;
    /** @type {{ref: number, action: any}|null} our open-step action not yet answered */
    this.pending = null;
    /** Our open-step actions the server refused since our last accepted one. */
    this.refusals = 0;
    /** Messages still to come that RESUMED said it replays; then what the seat owes is sent. */
    this.replaying = -1;
  }

  get conn() {
    return this.client.conn;
  }

  /** The game is left behind (a fresh login, a session given up): no table, no game. */
  forget() {
    this.observation = null;
    this.checks = null;
    this.pick = null;
    this.pending = null;
    this.acting = [];
    this.deadline = null;
  }

  changed(fairness) {
    this.client.emit("fairness", fairness);
  }

  // -- choosing -------------------------------------------------------------------------------

  /** A step waits for an action of ours. */
  get awaiting() {
    // Nothing can be sent while the connection is being taken back (the seat's choice so far is
    // kept and sent again then).
    if (this.client.status !== "open" || this.client.sock?.readyState !== 1) return false;
    const phase = this.conn.phase;
    const at = this.conn.position;
    // Never without the observation to choose from (a step is shown with it).
    if (this.observation === null) return false;
    if (phase === "committing") return at !== null && (this.pick === null || this.pick.round !== at.round || this.pick.turn !== at.turn);
    return phase === "moving" && this.pending === null;
  }

  legalActions() {
    const game = this.conn.game;
    if (game === null || this.observation === null || !this.awaiting) return [];
    return game.legalActions(this.observation);
  }

  /** Our action: `pick` in a secret step, `act` in an open one. */
  play(action) {
    if (this.conn.phase === "moving") this.act(action);
    else this.choose(action);
  }

  /** The action, as the game's wire writes it, if it is legal now; the server's refusal otherwise. */
  legal(action) {
    const game = this.conn.game;
    let plain;
    try {
      plain = game.wire.decode("action", action);
    } catch (exc) {
      if (exc instanceof FieldError) throw ServerError.of(exc.code, `action.${exc.where()}: ${exc.message}`);
      throw exc;
    }
    if (!game.legalActions(this.observation).some((legal) => same(legal, plain))) {
      throw ServerError.of(ErrorCode.ILLEGAL_ACTION, `${game.describe(plain)} is not legal now`);
    }
    return plain;
  }

  /** A secret step's choice: committed now, revealed when every commitment is in. */
  choose(action) {
    const at = this.conn.position;
    if (this.observation === null || this.conn.phase !== "committing" || at === null) {
      throw ServerError.of(ErrorCode.OUT_OF_PHASE, "no step is waiting for a pick");
    }
    const plain = this.legal(action);
    this.pick = { round: at.round, turn: at.turn, action: plain, nonce: freshBytes() };
    this.keepPick();
    this.revealed = null;
    if (this.checks !== null) this.checks.myPick = { round: at.round, turn: at.turn, action: plain };
    this.sendCommit();
  }

  /** One action of our open turn; its answer is an ACTED (or an ERROR: a `failure` event). */
  act(action) {
    const at = this.conn.position;
    if (this.observation === null || this.conn.phase !== "moving" || at === null) {
      throw ServerError.of(ErrorCode.OUT_OF_PHASE, "it is not your move");
    }
    if (this.pending !== null) throw ServerError.of(ErrorCode.ALREADY_DONE, "your last action is not answered yet");
    const plain = this.legal(action);
    const ref = this.client.send({ type: "act", round: at.round, turn: at.turn, action: plain });
    this.pending = { ref, action: plain };
    if (this.checks !== null) this.checks.sent.push(plain);
  }

  sendCommit() {
    const { round, turn, action, nonce } = this.pick;
    const tableId = this.client.table?.table_id ?? this.checks?.tableId ?? "";
    const seat = this.conn.seat ?? this.client.seat;
    const commitment = makeCommitment(tableId, round, turn, seat, this.conn.game.wire.commitBytes(action), nonce);
    this.client.send({ type: "commit", round, turn, commitment });
  }

  sendReveal() {
    const { round, turn, action, nonce } = this.pick;
    if (this.revealed === `${round}/${turn}`) return;
    this.revealed = `${round}/${turn}`;
    this.client.send({ type: "reveal", round, turn, action, nonce });
  }

  /** Send something the protocol owes, unless the connection is going (a resume sends it again). */
  owe(fn) {
    try {
      fn();
    } catch (exc) {
      if (!(exc instanceof ProtocolError) && exc.name !== "ConnectionLost") throw exc;
    }
  }

  /**
   * Keep our pick in the tab's storage (null: forget it), so that a reload of the page between
   * its commitment and its reveal still reveals it: the nonce is needed to open the commitment.
   * @param {{round: number, turn: number, action: any, nonce: Uint8Array}|null} [pick]
   */
  keepPick(pick = this.pick) {
    const storage = this.client.storage;
    try {
      if (pick === null) storage?.removeItem(PICK_KEY);
      else {
        const table = this.client.table?.table_id ?? this.checks?.tableId ?? "";
        const kept = { table, round: pick.round, turn: pick.turn, action: pick.action, nonce: toHex(pick.nonce) };
        storage?.setItem(PICK_KEY, JSON.stringify(kept));
      }
    } catch {
      // A page without storage loses its pick with a reload: the server then picks for it.
    }
  }

  /** The pick kept for (table, round, turn), or null. */
  keptPick(table, round, turn) {
    try {
      const kept = JSON.parse(this.client.storage?.getItem(PICK_KEY) ?? "null");
      if (kept === null || kept.table !== table || kept.round !== round || kept.turn !== turn) return null;
      return { round, turn, action: kept.action, nonce: fromHex(kept.nonce) };
    } catch {
      return null;
    }
  }

  // -- arriving -------------------------------------------------------------------------------

  /** As `msg` arrives: the seat's part of the protocol and every check. */
  arrived(msg) {
    const checks = this.checks;
    switch (msg.type) {
      case "turn_start":
        this.observation = msg.observation;
        this.acting = msg.seats;
        this.deadline = msg.deadline_ms ? Date.now() + msg.deadline_ms : null;
        checks?.step(msg);
        break;
      case "acted":
        this.observation = msg.observation;
        if (msg.seat === this.conn.seat) {
          this.pending = null; // whatever was applied answers ours (an auto one overtakes it)
          this.refusals = 0;
        }
        checks?.acted(msg);
        break;
      case "commitments": {
        checks?.committed(msg);
        this.deadline = msg.deadline_ms ? Date.now() + msg.deadline_ms : null;
        const pick = this.pick;
        if (pick !== null && pick.round === msg.round && pick.turn === msg.turn && this.conn.phase === "revealing") {
          this.owe(() => this.sendReveal());
        }
        break;
      }
      case "turn_result":
        if (this.pick !== null && this.pick.round === msg.round && this.pick.turn === msg.turn) this.keepPick(null);
        checks?.result(msg);
        break;
      case "game_starting":
        this.start(msg);
        break;
      case "game_started":
        checks?.started(msg);
        break;
      case "game_over":
        this.keepPick(null);
        this.pending = null;
        this.deadline = null;
        this.lastGameOver = msg;
        checks?.finished(msg, this.client.serverKey);
        break;
      case "table_joined":
      case "spectating":
        this.watch(msg);
        break;
      case "table_left":
        this.forget();
        break;
      case "resumed":
        this.resumed(msg);
        break;
      case "error":
        if (this.pending !== null && msg.ref === this.pending.ref) {
          // Refused: it changed nothing, and the seat may send another.
          const i = checks?.sent.findIndex((a) => same(a, this.pending.action)) ?? -1;
          if (i >= 0) checks.sent.splice(i, 1);
          this.pending = null;
          this.refusals++;
        }
        break;
      default:
    }
    if (this.replaying > 0 && msg.type !== "resumed") this.replaying--;
    if (this.replaying === 0) {
      this.replaying = -1;
      this.continue();
    }
  }

  /** GAME_STARTING: a new game's checks, and our seed. */
  start(msg) {
    const checks = (this.checks = new GameChecks(msg.table_id, msg.seat, msg.kind, msg.server_seed_hash, (f) => this.changed(f)));
    this.fairness = checks.fairness;
    this.players = msg.players;
    this.observation = null;
    this.pending = null;
    this.pick = null;
    this.acting = [];
    this.deadline = msg.deadline_ms ? Date.now() + msg.deadline_ms : null;
    if (msg.seat !== null) {
      checks.mySeed = freshBytes();
      this.owe(() => this.client.send({ type: "seed", seed: checks.mySeed }));
    }
    this.changed(this.fairness);
  }

  /** At a new table the last game's checks are over; watching a game under way, what is left of it is checked. */
  watch(msg) {
    this.forget();
    const table = msg.table;
    if (msg.type === "spectating" && table.status === "playing") {
      this.checks = new GameChecks(table.table_id, null, table.settings.kind, null, (f) => this.changed(f));
      this.fairness = this.checks.fairness;
      this.changed(this.fairness);
    }
  }

  /**
   * RESUMED (before any message replayed after it): an open-step action of ours still
   * unanswered was lost with the connection or is answered among the replayed messages. A
   * snapshot starts the checks afresh from where it stands.
   */
  resumed(msg) {
    this.pending = null;
    this.replaying = msg.replayed;
    const snap = msg.snapshot;
    if (snap === null) return;
    const table = snap.table;
    if (table === null) {
      this.forget();
      return;
    }
    let checks = this.checks;
    if (snap.server_seed_hash !== null && (checks === null || checks.tableId !== table.table_id)) {
      // A game this page never saw start (a reload, or a new page with a kept session).
      checks = this.checks = new GameChecks(table.table_id, snap.seat, table.settings.kind, snap.server_seed_hash, (f) => this.changed(f));
      checks.clientSeeds = snap.client_seeds;
      this.fairness = checks.fairness;
      // A pick this tab made before it was reloaded, for this very step: revealed as if the
      // page had stayed (or committed again, if the commitment never got there).
      this.pick = this.keptPick(table.table_id, msg.round, msg.turn);
      if (this.pick !== null) checks.myPick = { round: this.pick.round, turn: this.pick.turn, action: this.pick.action };
    }
    if (checks !== null) {
      checks.acting = snap.seats;
      if (snap.observation !== null) checks.shown.push([snap.steps, snap.observation]);
      if (snap.commitments.length && msg.round && msg.turn) checks.commitments.set(`${msg.round}/${msg.turn}`, snap.commitments);
    }
    if (snap.observation !== null) this.observation = snap.observation;
    this.acting = snap.seats;
    this.deadline = snap.deadline_ms ? Date.now() + snap.deadline_ms : null;
    this.changed(this.fairness);
  }

  /**
   * After a resume and the messages it replays: send again what the seat owes in the current
   * step, if it kept it (a restarted server asks for the step again), judged by the protocol
   * state now.
   */
  continue() {
    const checks = this.checks;
    const phase = this.conn.phase;
    if (phase === "seeding" && checks !== null && checks.seat !== null) {
      // The same seed again (what the deal is checked against does not change), or a first one
      // when the game's start never reached us.
      if (checks.mySeed === null) checks.mySeed = freshBytes();
      this.owe(() => this.client.send({ type: "seed", seed: checks.mySeed }));
      return;
    }
    const pick = this.pick;
    const at = this.conn.position;
    if (pick === null || at === null || pick.round !== at.round || pick.turn !== at.turn) return;
    if (phase === "committing") {
      this.revealed = null;
      this.owe(() => this.sendCommit());
    } else if (phase === "revealing") {
      this.owe(() => this.sendReveal());
    }
  }
}

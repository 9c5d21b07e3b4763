/**
 * The requests of a `SushiClient` below the game, one method each (as client/lobby_calls.py's
 * `LobbyCalls`): the lobby (tables, seats, a quick match, bots, chat, the ladder), our finished
 * games and tournaments. Each sends its request and resolves with the answer by `ref` (a
 * `ServerError` for an ERROR); on a cluster, a REDIRECT to the node that holds the table or the
 * tournament, or is to open it, is followed and the request asked again there.
 * @module
 */
import { verifyGameRecord } from "./fairness.js";

const MAX_REDIRECTS = 3;

export class LobbyCalls extends EventTarget {
  /** A request that a REDIRECT may answer (a table or tournament on another node): followed, and asked again there. */
  async redirected(message, times = 1) {
    let reply = await this.request(message);
    for (let i = 0; i < times && reply.type === "redirect"; i++) {
      await this.follow(reply);
      reply = await this.request(message);
    }
    return reply;
  }

  listTables({ kind = null, status = null, offset = 0, limit = 50 } = {}) {
    return this.request({ type: "list_tables", kind, status, offset, limit });
  }

  createTable({ kind = "sushi-go", players = 4, variants = [], turn_seconds = 60 } = {}) {
    return this.redirected({ type: "create_table", settings: { kind, players, variants, turn_seconds } });
  }

  joinTable(tableId, seat = null) {
    return this.redirected({ type: "join_table", table_id: tableId, seat });
  }

  spectate(tableId) {
    return this.redirected({ type: "spectate", table_id: tableId });
  }

  quickMatch(kind, players = 4) {
    return this.redirected({ type: "quick_match", kind, players }, MAX_REDIRECTS);
  }

  leaveTable() {
    return this.request({ type: "leave_table" });
  }

  addBot(strategy = "default", seat = null) {
    return this.request({ type: "add_bot", strategy, seat });
  }

  startGame() {
    this.send({ type: "start_game" });
  }

  chat(text) {
    this.send({ type: "chat", text });
  }

  leaderboard(kind = "sushi-go", limit = 20) {
    return this.request({ type: "get_leaderboard", kind, limit });
  }

  myGames(offset = 0, limit = 20) {
    return this.request({ type: "my_games", offset, limit });
  }

  async getRecord(gameId) {
    const message = await this.request({ type: "get_record", game_id: gameId });
    return { message, check: verifyGameRecord(message.record, this.serverKey) };
  }

  listTournaments() {
    return this.request({ type: "list_tournaments" });
  }

  createTournament(settings) {
    return this.redirected({ type: "create_tournament", settings });
  }

  registerTournament(name) {
    return this.redirected({ type: "register_tournament", name });
  }

  watchTournament(name) {
    return this.redirected({ type: "watch_tournament", name });
  }

  startTournament(name) {
    return this.redirected({ type: "start_tournament", name });
  }
}

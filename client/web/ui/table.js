/**
 * Our table: before its game (the seats, bots, the start), the game (the board of its kind,
 * the timer, what was just played, the score pad, the round's and the game's summaries, the
 * fairness line), and the table's chat. `GameMemory` keeps what the screen shows of the game
 * beyond the client's state: the picks just revealed, every round's scores, the end.
 * @module
 */
import { choice, h, timerText } from "./dom.js";
import { board, notHere } from "./games.js";
import { LEVEL_OPTIONS, ordinal, title } from "./names.js";

/** What the screen remembers of the game under way (and of the one just over). */
export class GameMemory {
  constructor() {
    this.reset();
    this.chat = [];
  }

  reset() {
    /** Steps seen, newest last, in words ("Ann: tempura"), at most a dozen. */
    this.log = [];
    /** Every round's `round_scored` event, in order. */
    this.rounds = [];
    /** The round summary shown (a `round_scored` event), until dismissed. */
    this.showRound = null;
    /** The GAME_OVER message, once the game is over. */
    this.over = null;
    /** The game's `game_over` event (its pudding points, bonuses, places). */
    this.final = null;
    /** Our action in the step under way, once sent. */
    this.myPick = null;
    /** Indices chosen in our hand or belt for the action being made. */
    this.marks = [];
    /** Sushi Go!: the next pick takes two cards (chopsticks). */
    this.chop = false;
    this.started = false;
  }

  heard(message, client) {
    const names = () => client.players ?? [];
    switch (message.type) {
      case "game_starting":
        this.reset();
        this.started = true;
        break;
      case "resumed":
        if (message.kind !== null) this.started = true;
        break;
      case "turn_start":
        this.started = true;
        this.myPick = null;
        this.marks = [];
        break;
      case "turn_result":
        this.logLine(board(client.kind)?.describe(message, names()) ?? null);
        this.events(message.events, names(), client);
        break;
      case "acted":
        this.marks = []; // the belts moved: what was marked is no longer where it was
        this.logLine(board(client.kind)?.describe(message, names()) ?? null);
        this.events(message.events, names(), client);
        break;
      case "game_over":
        this.over = message;
        this.showRound = null;
        break;
      case "chat_message":
        if (message.table_id !== null) this.chat = [...this.chat.slice(-49), message];
        break;
      case "table_joined":
      case "spectating":
        this.chat = [];
        break;
      default:
    }
  }

  events(events, names) {
    for (const event of events) {
      if (event.event === "round_scored") {
        this.rounds = [...this.rounds.filter((r) => r.round !== event.round), event];
        this.showRound = event;
      } else if (event.event === "game_over") {
        this.final = event;
      } else if (event.event === "wasabi_used") {
        this.logLine(`${names[event.tableau] ?? "the dummy"} put ${event.card} on wasabi (×3)`);
      } else if (event.event === "chopsticks_returned") {
        this.logLine(`${names[event.seat] ?? `seat ${event.seat}`} used chopsticks`);
      }
    }
  }

  logLine(line) {
    if (line) this.log = [...this.log.slice(-11), line];
  }

  /** Keys at the table that no control names (`data-keys`): the board's. */
  key(e, app) {
    const client = app.client;
    if (!client.observation || this.over) return;
    board(client.kind)?.key(e, app);
  }
}

/** The table screen. */
export function drawTable(app) {
  const client = app.client;
  const memory = app.game;
  const table = client.table;
  const playing = memory.started && (client.observation !== null || memory.over !== null);
  const known = board(table.settings.kind) !== null;
  return h(
    "main",
    { class: "table" },
    h(
      "header",
      { class: "top" },
      h("h1", null, `${title(table.settings.kind)} · table ${table.table_id}`),
      h("p", { class: "who" }, client.seat === null ? "watching" : `${client.name}, seat ${client.seat + 1}`),
    ),
    known ? (playing ? drawGame(app) : waitingRoom(app)) : elsewhere(app, table.settings.kind),
    chatPanel(app, memory.chat, "table chat"),
  );
}

/** A table of a game this page does not play: where to play it, and the way out. */
function elsewhere(app, kind) {
  const client = app.client;
  return h(
    "section",
    { class: "waiting", "aria-labelledby": "elsewhere-title", "data-keys": "l=leave-table" },
    h("h2", { id: "elsewhere-title" }, "Not in this page"),
    h("p", { role: "alert" }, notHere(kind)),
    h("button", { type: "button", key: "leave-table", onclick: () => app.run("cannot leave", () => client.leaveTable()) }, client.seat === null ? "stop watching" : "leave table"),
  );
}

function waitingRoom(app) {
  const client = app.client;
  const table = client.table;
  const host = table.host === client.playerId;
  const full = table.seats.every((s) => s.name !== null);
  const seats = table.seats.map((s) =>
    h(
      "li",
      null,
      `seat ${s.seat + 1}: `,
      s.name === null ? h("em", null, "empty") : `${s.name}${s.bot && s.player_id === null ? " (bot)" : ""}${s.connected ? "" : " (away)"}`,
      s.player_id !== null && s.player_id === table.host ? " · host" : "",
    ),
  );
  const act = (what, job) => () => app.run(`cannot ${what}`, job);
  return h(
    "section",
    { class: "waiting", "aria-labelledby": "waiting-title", "data-keys": "b=add-bot s=start-game l=leave-table" },
    h("h2", { id: "waiting-title" }, table.status === "open" ? "Waiting for players" : "Table"),
    h("ul", { class: "seats" }, seats),
    host
      ? h(
          "div",
          { class: "row" },
          choice("bot-level", "Bot's level", LEVEL_OPTIONS, app.botLevel, (v) => {
            app.botLevel = v;
          }),
          h("button", { type: "button", key: "add-bot", disabled: full, onclick: act("add a bot", () => client.addBot(app.botLevel)) }, "add a bot"),
          h("button", { type: "button", key: "start-game", class: "primary", disabled: !full, onclick: act("start the game", async () => client.startGame()) }, "start the game"),
        )
      : h("p", null, full ? "Waiting for the host to start the game." : "Waiting for the table to fill."),
    h("button", { type: "button", key: "leave-table", onclick: act("leave", () => client.leaveTable()) }, client.seat === null ? "stop watching" : "leave table"),
  );
}

function drawGame(app) {
  const client = app.client;
  const memory = app.game;
  const obs = client.observation;
  const names = playerNames(client);
  const fairness = client.fairness;
  const position = client.position;
  const leave = () => app.run("cannot leave", () => client.leaveTable());
  const parts = [];
  parts.push(
    h(
      "div",
      { class: "gamebar" },
      position ? h("span", null, `round ${position.round} · ${board(client.kind).step} ${position.turn}`) : null,
      h("span", { class: "timer", "data-timer": "", "aria-label": "time left" }, timerText(client)),
      fairness ? h("span", { class: `fair${fairness.ok ? "" : " failed"}`, role: fairness.ok ? "status" : "alert" }, fairness.summary()) : null,
    ),
  );
  if (fairness && !fairness.ok) {
    parts.push(h("ul", { class: "failures", role: "alert", "aria-label": "fairness failures" }, fairness.failures.map((f) => h("li", null, f))));
  }
  if (memory.over) parts.push(gameSummary(app, names));
  if (obs) {
    if (!memory.over) parts.push(h("p", { class: "duty", "aria-live": "polite" }, duty(client, memory, names)));
    if (memory.showRound && !memory.over) parts.push(roundSummary(app, memory.showRound, names));
    if (memory.over) parts.push(board(client.kind).drawPublic(obs, names));
    else parts.push(board(client.kind).draw(app, obs, names));
  }
  if (memory.log.length) {
    parts.push(h("section", { class: "log", "aria-label": "what was played" }, h("h2", null, "Played"), h("ol", { "aria-live": "polite" }, memory.log.slice(-6).map((line) => h("li", null, line)))));
  }
  if (obs) parts.push(scorePad(client, obs, memory, names));
  if (!memory.over) parts.push(h("div", { class: "row", "data-keys": client.seat === null ? "l=leave-game" : "" }, h("button", { type: "button", key: "leave-game", onclick: leave }, client.seat === null ? "stop watching" : "leave the game (a bot plays your seat)")));
  return h("section", { class: "game", "aria-label": "the game" }, parts);
}

/** What we owe now, in words. */
function duty(client, memory, names) {
  const obs = client.observation;
  if (memory.over || obs.is_over) return "The game is over.";
  return board(client.kind).duty(client, memory, names);
}

/** The players' names in seat order. */
export function playerNames(client) {
  if (client.players && client.players.length) return client.players;
  return (client.table?.seats ?? []).map((s) => s.name ?? `seat ${s.seat + 1}`);
}

function scorePad(client, obs, memory, names) {
  const views = board(client.kind).views(obs);
  const rounds = [1, 2, 3];
  // A round's points: its `round_scored` event's, once seen (the last round's comes with the
  // game's end, after the last observation); else the observation's.
  const scored = (r, i, v) => {
    const event = memory.rounds.find((e) => e.round === r);
    if (event) return Object.values(event.points[i] ?? {}).reduce((a, b) => a + b, 0);
    return v.round_scores[r - 1] ?? "";
  };
  const puddings = (i, v) => {
    const last = memory.rounds.at(-1);
    const count = last ? last.puddings[i] : v.puddings;
    const points = memory.final?.pudding_points?.[i];
    return points === undefined ? count : `${count} (${points > 0 ? "+" : ""}${points})`;
  };
  const rows = views.map((v, i) =>
    h(
      "tr",
      { class: i === client.seat ? "me" : null },
      h("th", { scope: "row" }, v.is_dummy ? "dummy" : names[i] ?? `seat ${i + 1}`),
      rounds.map((r) => h("td", null, scored(r, i, v))),
      h("td", null, puddings(i, v)),
      h("td", null, memory.over ? memory.over.totals[i] : v.score),
    ),
  );
  return h(
    "section",
    { class: "scores", "aria-labelledby": "scores-title" },
    h("h2", { id: "scores-title" }, "Score pad"),
    h(
      "table",
      null,
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "player"), rounds.map((r) => h("th", { scope: "col" }, `round ${r}`)), h("th", { scope: "col" }, "puddings"), h("th", { scope: "col" }, "total"))),
      h("tbody", null, rows),
    ),
  );
}

function roundSummary(app, scored, names) {
  const kinds = Object.keys(scored.points[0] ?? {});
  return h(
    "section",
    { class: "summary", role: "region", "aria-labelledby": "round-title" },
    h("h2", { id: "round-title" }, `Round ${scored.round} scored`),
    h(
      "table",
      null,
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "player"), kinds.map((k) => h("th", { scope: "col" }, k.replace("_", " "))), h("th", { scope: "col" }, "total"))),
      h(
        "tbody",
        null,
        scored.points.map((p, i) => h("tr", null, h("th", { scope: "row" }, names[i] ?? "dummy"), kinds.map((k) => h("td", null, p[k])), h("td", null, scored.totals[i]))),
      ),
    ),
    h(
      "button",
      {
        type: "button",
        key: "round-close",
        onclick: () => {
          app.game.showRound = null;
          app.draw();
        },
      },
      "close the round summary",
    ),
  );
}

function gameSummary(app, names) {
  const client = app.client;
  const over = app.game.over;
  const host = client.table?.host === client.playerId;
  const order = over.places.map((place, seat) => ({ place, seat })).sort((a, b) => a.place - b.place || a.seat - b.seat);
  const fairness = client.fairness;
  return h(
    "section",
    { class: "summary end", role: "region", "aria-labelledby": "end-title", "data-keys": "n=play-again l=leave-after" },
    h("h2", { id: "end-title" }, "Game over"),
    h(
      "ol",
      { class: "places" },
      order.map(({ place, seat }) => h("li", { class: over.winners.includes(seat) ? "winner" : null }, `${ordinal(place)}: ${names[seat] ?? `seat ${seat + 1}`}, ${over.totals[seat]} points${over.winners.includes(seat) ? " (winner)" : ""}`)),
    ),
    fairness ? h("p", { class: `fair${fairness.ok ? "" : " failed"}`, role: fairness.ok ? "status" : "alert" }, fairness.summary()) : null,
    h(
      "div",
      { class: "row" },
      host && client.seat !== null ? h("button", { type: "button", key: "play-again", class: "primary", onclick: () => app.run("cannot start", async () => client.startGame()) }, "play again") : null,
      h("button", { type: "button", key: "leave-after", onclick: () => app.run("cannot leave", () => client.leaveTable()) }, client.seat === null ? "stop watching" : "leave table"),
    ),
  );
}

/** A chat panel: the messages, a line to type, and send. */
export function chatPanel(app, messages, label) {
  const send = async () => {
    const input = app.root.querySelector("[data-key=chat-text]");
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    await app.run("cannot chat", async () => app.client.chat(text));
  };
  return h(
    "section",
    { class: "chat", "aria-label": label },
    h("h2", null, label),
    h(
      "ol",
      { class: "messages", "aria-live": "polite" },
      messages.map((m) => h("li", null, h("strong", null, m.name), `: ${m.text}`)),
    ),
    h(
      "form",
      {
        class: "row",
        onsubmit: (e) => {
          e.preventDefault();
          send();
        },
      },
      h("label", { for: "chat-text", class: "visually-hidden" }, "chat message"),
      h("input", { id: "chat-text", key: "chat-text", maxlength: 500, placeholder: "say something (c)", autocomplete: "off" }),
      h("button", { type: "submit", key: "chat-send" }, "send"),
    ),
  );
}

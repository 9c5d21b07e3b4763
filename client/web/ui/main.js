/**
 * The web client's page: one `App` holds the connection (the core's `SushiClient`) and what the
 * screens remember between redraws, and draws the screen that fits the client's state: the
 * login, the lobby (tables, quick match, bots, a new table, leaderboards, our finished games and
 * their replays), or our table (before its game, the game, its end). Every change of the
 * client's state redraws the screen (`dom.redraw` keeps the keyboard's place).
 *
 * Keys (as the terminal client's, where they make sense; `?` lists them): see `KEYS`.
 * @module
 */
import { SushiClient } from "../core/client.js";
import { Identity } from "../core/identity.js";
import { h, redraw, timerText } from "./dom.js";
import { drawLogin } from "./login.js";
import { drawLobby } from "./lobby.js";
import { drawTable, GameMemory } from "./table.js";
import { LEVELS } from "./names.js";

const VISIT_KEY = "sushigo.visit";

/** The keys, by screen, for the help panel (and what `onKey` does). */
export const KEYS = [
  ["everywhere", "? help · c chat · Esc close a panel"],
  ["lobby", "m quick match · b play against bots · v bots' level · g game · n new table · r refresh · ↑↓ tables, Enter join, w watch · l leaderboard · h my games"],
  ["at a table", "b add a bot · s start (the host) · l leave"],
  ["Sushi Go!", "←→ or 1-9 a card · Enter/click plays it · x chopsticks: pick two · d the dummy's card"],
  ["Sushi Roll", "←→ or 1-8 a die · Space/click marks it · Enter takes it · r re-rolls the marked · a marked die then another belt's die swaps"],
  ["after a game", "n play again (the host) · l leave"],
  ["replay", "← → previous/next turn · Home/End first/last"],
];

export class App {
  constructor(root) {
    this.root = root;
    /** @type {import("../core/client.js").SushiClient|null} */
    this.client = null;
    this.status = { text: "", error: false };
    this.connection = "";
    this.help = false;
    /** The lobby's panel: "tables", "games" (ours, finished), "replay", "leaders". */
    this.panel = "tables";
    this.tables = [];
    this.tableCursor = 0;
    this.lobbyChat = [];
    this.quick = { kind: "sushi-go", players: "4", level: "medium" };
    this.form = { kind: "sushi-go", players: "4", turn: "60", variants: new Set() };
    this.botLevel = "medium";
    this.games = null;
    this.replay = null;
    this.leaders = null;
    this.leadersKind = "sushi-go";
    this.game = new GameMemory();
    this.pending = false;
    this.drawing = false;
    this.timer = setInterval(() => this.tick(), 500);
    document.addEventListener("keydown", (e) => this.onKey(e));
  }

  /** Say something in the status line (`error`: as an alert). */
  say(text, error = false) {
    this.status = { text, error };
    this.draw();
  }

  /** Run a request, saying what went wrong if it fails (the server's words). */
  async run(what, job) {
    try {
      const result = await job();
      return result;
    } catch (exc) {
      const words = exc?.message || String(exc);
      this.say(`${what}: ${words}`, true);
      return undefined;
    }
  }

  /** Connect as `name` (with `identity`, or as a guest). */
  async connect(name, identity) {
    const client = new SushiClient({ name, identity });
    this.client = client;
    client.addEventListener("message", (e) => this.heard(e.detail));
    client.addEventListener("state", () => this.draw());
    client.addEventListener("fairness", () => this.draw());
    client.addEventListener("connection", (e) => {
      const { status, reason } = e.detail;
      this.connection =
        status === "reconnecting" ? `connection lost${reason ? ` (${reason})` : ""}: reconnecting…` : status === "closed" && reason ? `disconnected: ${reason}` : "";
      this.draw();
    });
    client.addEventListener("failure", (e) => this.say(e.detail.message || String(e.detail), true));
    await client.connect();
    // A reload of the page comes back as this player, into its seat (the core resumes).
    sessionStorage.setItem(VISIT_KEY, JSON.stringify({ name, key: identity !== null }));
    this.say(`logged in as ${client.name}`);
    if (!client.table) await this.refresh();
  }

  /** Log out: the session ends, and the page shows the login. */
  logout() {
    sessionStorage.removeItem(VISIT_KEY);
    this.client?.close();
    this.client = null;
    this.game = new GameMemory();
    this.panel = "tables";
    this.say("logged out");
  }

  /** Back after a reload: connect again as the same player (taking its seat back). */
  async comeBack() {
    let visit = null;
    try {
      visit = JSON.parse(sessionStorage.getItem(VISIT_KEY) ?? "null");
    } catch {
      visit = null;
    }
    if (!visit?.name) return;
    const identity = visit.key ? Identity.load() : null;
    this.say("reconnecting…");
    await this.run("cannot reconnect", () => this.connect(visit.name, identity));
  }

  heard(message) {
    this.game.heard(message, this.client);
    if (message.type === "chat_message" && message.table_id === null) {
      this.lobbyChat = [...this.lobbyChat.slice(-49), message];
    }
    if (message.type === "announcement") this.say(`announcement: ${message.text}`);
    if (message.type === "table_left") {
      this.game = new GameMemory();
      this.refresh();
    }
  }

  async refresh() {
    const list = await this.run("listing the tables", () => this.client.listTables({ limit: 50 }));
    if (list) {
      this.tables = list.tables;
      this.tableCursor = Math.min(this.tableCursor, Math.max(0, this.tables.length - 1));
      this.draw();
    }
  }

  tick() {
    const timer = this.root.querySelector("[data-timer]");
    if (timer && this.client) {
      timer.textContent = timerText(this.client);
    }
  }

  /**
   * Redraw the screen at the next frame: a message often moves the client's state two or three
   * times (the message, the state, a fairness check), and one redraw a frame is enough.
   */
  draw() {
    if (this.drawing) return;
    this.drawing = true;
    requestAnimationFrame(() => {
      this.drawing = false;
      this.drawNow();
    });
  }

  /** Redraw now (then the page's `sushigo-drawn` event: what the screen shows is current). */
  drawNow() {
    const client = this.client;
    const content = [];
    if (this.connection) content.push(h("p", { class: "banner", role: "alert" }, this.connection));
    if (!client || !client.playerId) {
      content.push(drawLogin(this));
    } else if (client.table) {
      content.push(drawTable(this));
    } else {
      content.push(drawLobby(this));
    }
    content.push(
      h("p", { class: `status${this.status.error ? " error" : ""}`, role: this.status.error ? "alert" : "status", "aria-live": "polite" }, this.status.text),
    );
    if (this.help) content.push(helpPanel(this));
    redraw(this.root, content);
    document.dispatchEvent(new Event("sushigo-drawn"));
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    const typing = target instanceof HTMLElement && (target.matches("input, textarea, select") || target.isContentEditable);
    if (e.key === "Escape") {
      if (typing && target.blur) target.blur();
      if (this.help) this.help = false;
      else if (this.panel !== "tables" && !this.client?.table) this.panel = this.panel === "replay" ? "games" : "tables";
      this.draw();
      return;
    }
    if (typing) return;
    if (e.key === "?") {
      this.help = !this.help;
      this.draw();
      e.preventDefault();
      return;
    }
    if (e.key === "c") {
      const chat = this.root.querySelector("[data-key=chat-text]");
      if (chat) {
        chat.focus();
        e.preventDefault();
      }
      return;
    }
    // Each screen names its keys in `data-keys` ("m:quick b:bots ..."): the control with that
    // `data-key` is clicked (the same as with the mouse), so a key does nothing a click would not.
    const keys = new Map();
    for (const el of this.root.querySelectorAll("[data-keys]")) {
      for (const pair of el.dataset.keys.split(" ")) {
        const [key, control] = pair.split("=");
        keys.set(key, control);
      }
    }
    const control = keys.get(e.key);
    if (control) {
      const el = this.root.querySelector(`[data-key="${CSS.escape(control)}"]`);
      if (el instanceof HTMLElement && !el.hasAttribute("disabled")) {
        e.preventDefault();
        el.click();
        return;
      }
    }
    if (this.client?.table) this.game.key(e, this);
    else if (this.panel === "tables") this.lobbyKey(e);
    else if (this.panel === "replay" && this.replay) this.replayKey(e);
  }

  lobbyKey(e) {
    const keys = { ArrowUp: -1, k: -1, ArrowDown: 1, j: 1 };
    if (e.key in keys && this.tables.length) {
      this.tableCursor = Math.max(0, Math.min(this.tables.length - 1, this.tableCursor + keys[e.key]));
      this.draw();
      this.root.querySelector(`[data-key="join-${this.tableCursor}"]`)?.focus();
      e.preventDefault();
    } else if (e.key === "v") {
      this.quick.level = LEVELS[(LEVELS.indexOf(this.quick.level) + 1) % LEVELS.length];
      this.say(`bots now play at level ${this.quick.level}`);
    } else if (e.key === "g") {
      this.quick.kind = this.quick.kind === "sushi-go" ? "sushi-roll" : "sushi-go";
      this.say(`quick match and bots now play ${this.quick.kind === "sushi-go" ? "Sushi Go!" : "Sushi Roll"}`);
    }
  }

  replayKey(e) {
    const moves = { ArrowLeft: "replay-prev", ArrowRight: "replay-next", Home: "replay-first", End: "replay-last" };
    const control = moves[e.key];
    if (control) {
      e.preventDefault();
      this.root.querySelector(`[data-key="${control}"]`)?.click();
    }
  }
}

function helpPanel(app) {
  return h(
    "section",
    { class: "help", role: "dialog", "aria-label": "keys", "aria-modal": "false" },
    h("h2", null, "Keys"),
    h(
      "dl",
      null,
      KEYS.map(([where, what]) => [h("dt", null, where), h("dd", null, what)]),
    ),
    h("button", { type: "button", key: "help-close", onclick: () => { app.help = false; app.draw(); } }, "close help"),
  );
}

const app = new App(document.getElementById("app"));
globalThis.sushigoApp = app;
app.drawNow();
app.comeBack();
// The page is usable from here (scripts/bench_web.py measures the time to this mark).
performance.mark("sushigo-ready");

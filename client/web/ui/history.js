/**
 * The lobby's other panels: our finished games (`my_games`), each record verified in the page
 * before it is shown (`verifyGameRecord`: the signature by the server's key, then every step
 * replayed) and stepped through in the replay viewer; and the leaderboards.
 * @module
 */
import { replayRecord } from "../core/replay.js";
import { drawCardsPublic, describeAction } from "./cards.js";
import { drawDicePublic } from "./dice.js";
import { choice, h } from "./dom.js";
import { GAME_OPTIONS, ordinal, title } from "./names.js";

/** Show our finished games. */
export async function openGames(app) {
  app.panel = "games";
  app.games = null;
  app.draw();
  const list = await app.run("cannot list your games", () => app.client.myGames(0, 20));
  if (list) {
    app.games = list;
    app.draw();
  }
}

/** Show the leaderboard of `app.leadersKind`. */
export async function openLeaders(app) {
  app.panel = "leaders";
  app.leaders = null;
  app.draw();
  const board = await app.run("cannot read the leaderboard", () => app.client.leaderboard(app.leadersKind, 20));
  if (board) {
    app.leaders = board;
    app.draw();
  }
}

/** Fetch a game's record, verify it, and open the replay viewer on it. */
async function openReplay(app, summary) {
  app.panel = "replay";
  app.replay = { summary, check: null, replay: null, at: 0 };
  app.draw();
  const got = await app.run("cannot fetch the record", () => app.client.getRecord(summary.game_id));
  if (!got) return;
  const { check } = got;
  const replay = check.ok ? replayRecord(check.record) : null;
  app.replay = { summary, check, replay, at: 0 };
  app.say(check.ok ? `record of ${summary.game_id} verified` : `record of ${summary.game_id} refused`, !check.ok);
}

/** The list of our finished games. */
export function drawGames(app) {
  const list = app.games;
  let body;
  if (list === null) body = h("p", null, "Loading…");
  else if (!list.games.length) body = h("p", null, list.guest ? "No finished games in this session yet (a guest's games last as long as its session)." : "No finished games yet.");
  else {
    body = h(
      "ul",
      { class: "game-list" },
      list.games.map((g) => {
        const me = g.players.find((p) => p.seat === g.seat);
        const when = new Date(g.finished_ms).toLocaleString();
        const others = g.players.map((p) => `${p.name} ${p.score}`).join(", ");
        return h(
          "li",
          null,
          h("span", { class: "what" }, `${title(g.kind)} · ${when} · ${me ? `${ordinal(me.place)} with ${me.score}` : ""} · ${others}`),
          h("button", { type: "button", key: `replay-${g.game_id}`, onclick: () => openReplay(app, g) }, `replay game ${g.game_id}`),
        );
      }),
    );
  }
  return h("section", { class: "games", "aria-labelledby": "games-title" }, h("h2", { id: "games-title" }, "My games"), body);
}

/** The replay viewer: the verified record, a step at a time. */
export function drawReplay(app) {
  const view = app.replay;
  const back = h(
    "button",
    {
      type: "button",
      key: "replay-back",
      onclick: () => {
        app.panel = "games";
        app.draw();
      },
    },
    "back to my games",
  );
  if (view === null || view.check === null) return h("section", { class: "replay" }, h("h2", null, "Replay"), h("p", null, "Verifying the record…"), back);
  const { summary, check, replay } = view;
  if (!check.ok) {
    return h(
      "section",
      { class: "replay", "aria-labelledby": "replay-title" },
      h("h2", { id: "replay-title" }, `Game ${summary.game_id}`),
      h("p", { class: "fair failed", role: "alert" }, "!!! RECORD REFUSED: it does not verify !!!"),
      h("ul", { class: "failures" }, check.problems.map((p) => h("li", null, p))),
      back,
    );
  }
  if (replay === null) return h("section", { class: "replay" }, h("p", null, `This page cannot show ${summary.kind} games.`), back);
  const names = [...summary.players].sort((a, b) => a.seat - b.seat).map((p) => p.name);
  const last = replay.frames.length - 1;
  const at = Math.max(0, Math.min(view.at, last));
  const frame = replay.frames[at];
  const go = (to) => () => {
    view.at = Math.max(0, Math.min(to, last));
    app.draw();
  };
  const what =
    at === 0
      ? "The deal, before the first step."
      : `Round ${frame.round}, ${replay.kind === "sushi-roll" ? "cycle" : "turn"} ${frame.turn}: ` +
        frame.seats.map((seat, i) => `${names[seat] ?? `seat ${seat + 1}`} ${describe(replay.kind, frame.actions[i])}${frame.autos[i] ? " (auto)" : ""}`).join(" · ");
  return h(
    "section",
    { class: "replay", "aria-labelledby": "replay-title" },
    h("h2", { id: "replay-title" }, `Replay of ${title(summary.kind)} game ${summary.game_id}`),
    h("p", { class: "fair", role: "status" }, `fair ✓ record verified: signature and ${last} steps`),
    h(
      "div",
      { class: "row", role: "group", "aria-label": "replay controls" },
      h("button", { type: "button", key: "replay-first", disabled: at === 0, onclick: go(0) }, "first turn"),
      h("button", { type: "button", key: "replay-prev", disabled: at === 0, onclick: go(at - 1) }, "previous turn"),
      h("span", { class: "step", "aria-live": "polite" }, `step ${at} of ${last}`),
      h("button", { type: "button", key: "replay-next", disabled: at === last, onclick: go(at + 1) }, "next turn"),
      h("button", { type: "button", key: "replay-last", disabled: at === last, onclick: go(last) }, "last turn"),
    ),
    h("p", { class: "played" }, what),
    replay.kind === "sushi-roll" ? drawDicePublic(frame.observation, names) : drawCardsPublic(frame.observation, names),
    back,
  );
}

function describe(kind, action) {
  if (kind !== "sushi-roll") return describeAction(action);
  if (action.type === "reroll") return `re-rolled ${action.dice.map((d) => d + 1).join(", ")}`;
  if (action.type === "swap") return `swapped ${action.mine + 1} for seat ${action.other_seat + 1}'s ${action.theirs + 1}`;
  return `took ${action.position + 1}`;
}

/** The leaderboards. */
export function drawLeaders(app) {
  const board = app.leaders;
  const rows =
    board === null
      ? h("p", null, "Loading…")
      : board.top.length
        ? h(
            "table",
            null,
            h("thead", null, h("tr", null, ["rank", "player", "rating", "games"].map((c) => h("th", { scope: "col" }, c)))),
            h(
              "tbody",
              null,
              board.top.map((r) => h("tr", { class: r.player_id === app.client.playerId ? "me" : null }, h("td", null, r.rank), h("th", { scope: "row" }, r.name), h("td", null, (r.rating_milli / 1000).toFixed(1)), h("td", null, r.games))),
            ),
          )
        : h("p", null, "Nobody is rated at this game yet: players with a key are rated after each game.");
  return h(
    "section",
    { class: "leaders", "aria-labelledby": "leaders-title" },
    h("h2", { id: "leaders-title" }, "Leaderboard"),
    choice("leaders-kind", "Game", GAME_OPTIONS, app.leadersKind, (v) => {
      app.leadersKind = v;
      openLeaders(app);
    }),
    rows,
    board?.mine ? h("p", null, `You: rank ${board.mine.rank} of ${board.total}, rating ${(board.mine.rating_milli / 1000).toFixed(1)}`) : null,
  );
}

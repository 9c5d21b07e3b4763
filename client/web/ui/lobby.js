/**
 * The lobby: the server's tables (join, watch), a quick match, a game against bots at a level,
 * a new table of any size and variant, the lobby's chat; and its other panels: the leaderboards,
 * our finished games and the replay viewer (`history.js`).
 * @module
 */
import { choice, h } from "./dom.js";
import { drawGames, drawLeaders, drawReplay, openGames, openLeaders } from "./history.js";
import { board, notHere } from "./games.js";
import { GAME_OPTIONS, GAMES, LEVEL_OPTIONS, playerOptions, title, VARIANTS } from "./names.js";
import { chatPanel } from "./table.js";

/** The lobby screen. */
export function drawLobby(app) {
  const client = app.client;
  const nav = h(
    "nav",
    { class: "nav", "aria-label": "lobby", "data-keys": "l=nav-leaders h=nav-games" },
    navButton(app, "tables", "Tables", () => {
      app.panel = "tables";
      app.refresh();
    }),
    navButton(app, "games", "My games", () => openGames(app)),
    navButton(app, "leaders", "Leaderboards", () => openLeaders(app)),
    h("button", { type: "button", key: "logout", onclick: () => app.logout() }, "log out"),
  );
  let body;
  if (app.panel === "games") body = drawGames(app);
  else if (app.panel === "replay") body = drawReplay(app);
  else if (app.panel === "leaders") body = drawLeaders(app);
  else body = drawTables(app);
  return h(
    "main",
    { class: "lobby" },
    h("header", { class: "top" }, h("h1", null, "Lobby"), h("p", { class: "who" }, `${client.name}${client.guest ? " (guest)" : ""} · ${client.welcome?.server_name ?? ""}`), nav),
    body,
  );
}

function navButton(app, panel, label, onclick) {
  const current = app.panel === panel || (panel === "games" && app.panel === "replay");
  return h("button", { type: "button", key: `nav-${panel}`, "aria-current": current ? "page" : null, onclick }, label);
}

function drawTables(app) {
  const client = app.client;
  const quick = app.quick;
  const start = (what, job) => async () => {
    if (app.pending) return;
    app.pending = true;
    app.say(`${what}…`);
    try {
      await app.run(`cannot ${what}`, job);
    } finally {
      app.pending = false;
      app.draw();
    }
  };
  const playBots = start("start a game against bots", async () => {
    const players = Number(quick.players);
    await client.createTable({ kind: quick.kind, players, variants: [], turn_seconds: 60 });
    for (let i = 1; i < players; i += 1) await client.addBot(quick.level);
    client.startGame();
  });
  const quickMatch = start("find a quick match", () => client.quickMatch(quick.kind, Number(quick.players)));
  const play = h(
    "section",
    { class: "play", "aria-labelledby": "play-title", "data-keys": "m=quick-match b=play-bots r=refresh n=new-kind" },
    h("h2", { id: "play-title" }, "Play"),
    h(
      "div",
      { class: "row" },
      ...gameChoices(app, "quick", quick),
      choice("quick-level", "Bots' level", LEVEL_OPTIONS, quick.level, (v) => {
        quick.level = v;
      }),
    ),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", key: "play-bots", class: "primary", onclick: playBots, disabled: app.pending }, "Play against bots"),
      h("button", { type: "button", key: "quick-match", onclick: quickMatch, disabled: app.pending }, "Quick match"),
    ),
  );
  return h("div", { class: "panels" }, play, tableList(app, start), createForm(app, start), chatPanel(app, app.lobbyChat, "lobby chat"));
}

function tableList(app, start) {
  const client = app.client;
  const rows = app.tables.map((t, i) => {
    const seated = t.seats.filter((s) => s.name !== null).length;
    const what = `${title(t.settings.kind)}, ${seated}/${t.settings.players} seated, ${t.status}${t.settings.variants.length ? `, ${t.settings.variants.join(", ")}` : ""}`;
    if (board(t.settings.kind) === null) {
      // A game the server has (a plug-in) and this page does not play: no way in from here.
      return h(
        "li",
        { class: i === app.tableCursor ? "current" : null },
        h("span", { class: "what" }, h("strong", null, t.table_id), ` ${what}`),
        h("span", { class: "elsewhere" }, notHere(t.settings.kind)),
      );
    }
    return h(
      "li",
      { class: i === app.tableCursor ? "current" : null },
      h("span", { class: "what" }, h("strong", null, t.table_id), ` ${what}`),
      h(
        "button",
        {
          type: "button",
          key: `join-${i}`,
          disabled: t.status !== "open" || seated >= t.settings.players,
          onclick: start(`join table ${t.table_id}`, () => client.joinTable(t.table_id)),
          onfocus: () => {
            app.tableCursor = i;
          },
          onkeydown: (e) => {
            if (e.key === "w") {
              e.preventDefault();
              e.stopPropagation();
              start(`watch table ${t.table_id}`, () => client.spectate(t.table_id))();
            }
          },
        },
        `join table ${t.table_id}`,
      ),
      h("button", { type: "button", key: `watch-${i}`, onclick: start(`watch table ${t.table_id}`, () => client.spectate(t.table_id)) }, `watch table ${t.table_id}`),
    );
  });
  return h(
    "section",
    { class: "tables", "aria-labelledby": "tables-title" },
    h("h2", { id: "tables-title" }, "Tables"),
    h("button", { type: "button", key: "refresh", onclick: () => app.refresh() }, "refresh tables"),
    rows.length ? h("ul", { class: "table-list" }, rows) : h("p", null, "No tables yet: play against bots, or make one."),
  );
}

/**
 * A form's game and players selects (keyed `${key}-kind` and `${key}-players`), over `values`'
 * `kind` and `players`; a change draws the page again (the players and variants offered follow).
 */
function gameChoices(app, key, values) {
  const set = (field) => (v) => {
    values[field] = v;
    app.draw();
  };
  return [
    choice(`${key}-kind`, "Game", GAME_OPTIONS, values.kind, set("kind")),
    choice(`${key}-players`, "Players", playerOptions(values.kind), values.players, set("players")),
  ];
}

function createForm(app, start) {
  const form = app.form;
  const client = app.client;
  const variants = GAMES[form.kind].variants.filter((v) => v !== "dummy" || form.players === "2");
  const create = start("create the table", () =>
    client.createTable({
      kind: form.kind,
      players: Number(form.players),
      variants: [...form.variants].filter((v) => variants.includes(v)),
      turn_seconds: Number(form.turn),
    }),
  );
  return h(
    "section",
    { class: "create", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title" }, "New table"),
    h(
      "form",
      {
        onsubmit: (e) => {
          e.preventDefault();
          create();
        },
      },
      h(
        "div",
        { class: "row" },
        ...gameChoices(app, "new", form),
        choice(
          "new-turn",
          "Turn time",
          [
            ["30", "30 s"],
            ["60", "60 s"],
            ["120", "2 min"],
            ["0", "no timer"],
          ],
          form.turn,
          (v) => {
            form.turn = v;
          },
        ),
      ),
      variants.length
        ? h(
            "fieldset",
            null,
            h("legend", null, "Variants"),
            variants.map((v) =>
              h(
                "label",
                { class: "check" },
                h("input", {
                  type: "checkbox",
                  key: `variant-${v}`,
                  checked: form.variants.has(v),
                  onchange: (e) => {
                    if (e.target.checked) form.variants.add(v);
                    else form.variants.delete(v);
                  },
                }),
                ` ${VARIANTS[v]}`,
              ),
            ),
          )
        : null,
      h("button", { type: "submit", key: "create-table", disabled: app.pending }, "Create table"),
    ),
  );
}

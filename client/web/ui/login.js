/**
 * The login: a name, and either a guest's session or the player's key, kept in this browser
 * (`Identity`, in localStorage) and exportable as the terminal client's key file (PEM), or
 * imported from one. A player with a key keeps its games and its rating across visits.
 * @module
 */
import { Identity } from "../core/identity.js";
import { h } from "./dom.js";

const NAME_KEY = "sushigo.name";

/** The login screen. */
export function drawLogin(app) {
  const kept = safeLoad();
  const login = app.login ?? (app.login = { name: localStorage.getItem(NAME_KEY) ?? "", exported: "", importing: false });
  const go = async (identity) => {
    const input = app.root.querySelector("[data-key=login-name]");
    const name = (input?.value ?? "").trim();
    if (!name) {
      app.say("type a name first", true);
      input?.focus();
      return;
    }
    localStorage.setItem(NAME_KEY, name);
    login.name = name;
    app.say("connecting…");
    await app.run("cannot log in", () => app.connect(name, identity));
  };
  const keyPart = kept
    ? [
        h("p", null, "Your key (kept in this browser): ", h("code", null, kept.playerId)),
        h("button", { type: "button", key: "login-key", onclick: () => go(kept) }, "Log in with my key"),
        h(
          "button",
          {
            type: "button",
            key: "key-export",
            onclick: () => {
              login.exported = kept.toPem();
              if (login.url) URL.revokeObjectURL(login.url);
              login.url = URL.createObjectURL(new Blob([login.exported], { type: "application/x-pem-file" }));
              app.draw();
            },
          },
          "Export my key",
        ),
        login.exported
          ? h(
              "div",
              { class: "export" },
              h("label", { for: "key-pem" }, "Your key file (keep it secret; sushigo-client --key reads it):"),
              h("textarea", { id: "key-pem", key: "key-pem", readonly: true, rows: 4 }, login.exported),
              h("a", { href: login.url, download: "sushigo.key" }, "download sushigo.key"),
            )
          : null,
        h(
          "button",
          {
            type: "button",
            key: "key-forget",
            onclick: () => {
              if (confirm("Forget the key kept in this browser? Export it first to keep your games and rating.")) {
                Identity.forget();
                login.exported = "";
                app.draw();
              }
            },
          },
          "Forget my key",
        ),
      ]
    : [
        h(
          "button",
          {
            type: "button",
            key: "key-new",
            onclick: () => {
              Identity.generate().save();
              app.say("a new key is kept in this browser: log in with it to keep your games and rating");
            },
          },
          "Create a key",
        ),
      ];
  return h(
    "main",
    { class: "login" },
    h("h1", null, "Sushi Go! and Sushi Roll"),
    h("p", { class: "lede" }, "Pick cards or roll dice against friends and bots. Every deal and roll is checked in this page."),
    h(
      "form",
      {
        onsubmit: (e) => {
          e.preventDefault();
          go(null);
        },
      },
      h("div", { class: "field" }, h("label", { for: "login-name" }, "Name"), h("input", { id: "login-name", key: "login-name", value: login.name, maxlength: 24, autocomplete: "nickname", required: true })),
      h("button", { type: "submit", key: "login-guest", class: "primary" }, "Play as a guest"),
    ),
    h("section", { class: "keys", "aria-label": "your key" }, h("h2", null, "Your key"), keyPart, importPart(app, login)),
  );
}

function importPart(app, login) {
  if (!login.importing) {
    return h(
      "button",
      {
        type: "button",
        key: "key-import",
        onclick: () => {
          login.importing = true;
          app.draw();
        },
      },
      "Import a key file",
    );
  }
  return h(
    "div",
    { class: "import" },
    h("label", { for: "key-import-text" }, "Paste a key file (PEM) from the terminal client:"),
    h("textarea", { id: "key-import-text", key: "key-import-text", rows: 4 }),
    h(
      "button",
      {
        type: "button",
        key: "key-import-go",
        onclick: () => {
          const text = app.root.querySelector("[data-key=key-import-text]").value;
          try {
            Identity.fromPem(text).save();
            login.importing = false;
            app.say("key imported: it is kept in this browser");
          } catch (exc) {
            app.say(`not a key file: ${exc.message}`, true);
          }
        },
      },
      "Use this key",
    ),
  );
}

function safeLoad() {
  try {
    return Identity.load();
  } catch {
    return null;
  }
}

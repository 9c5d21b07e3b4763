/**
 * Sushi Go!'s board: our hand (each card a button named by the card: "tempura"), every seat's
 * tableau, and the pick: a card, or two in order with chopsticks (`x`, or the chopsticks
 * button), and the dummy's card when we control the dummy. The action made is played only if
 * the core lists it among our legal actions.
 * @module
 */
import { h } from "./dom.js";
import { card } from "./names.js";

function sameAction(a, b) {
  return a.cards.length === b.cards.length && a.cards.every((c, i) => c === b.cards[i]) && (a.dummy ?? null) === (b.dummy ?? null);
}

/** How many cards of the hand the pick takes, and whether the last is the dummy's. */
function needs(obs, memory) {
  const dummy = obs.dummy_controller !== null && obs.dummy_controller === obs.seat;
  return { mine: memory.chop ? 2 : 1, dummy };
}

/** Choose the card at `index` of our hand for the pick being made; play it once complete. */
export function choose(app, index) {
  const client = app.client;
  const memory = app.game;
  const obs = client.observation;
  if (!client.awaiting) {
    app.say(memory.myPick ? "you picked already: waiting for the others" : "not your pick now", true);
    return;
  }
  const at = memory.marks.indexOf(index);
  if (at >= 0) {
    memory.marks.splice(at, 1);
    app.draw();
    return;
  }
  memory.marks.push(index);
  const { mine, dummy } = needs(obs, memory);
  const total = mine + (dummy ? 1 : 0);
  if (memory.marks.length < total) {
    app.say(memory.marks.length < mine ? "now the second card" : "now the dummy's card");
    return;
  }
  const cards = memory.marks.slice(0, mine).map((i) => obs.hand[i]);
  const action = dummy ? { cards, dummy: obs.hand[memory.marks[mine]] } : { cards };
  memory.marks = [];
  const legal = client.legalActions().find((a) => sameAction(a, action));
  if (!legal) {
    app.say(`cannot play ${describeAction(action)} now`, true);
    return;
  }
  try {
    client.play(legal);
  } catch (exc) {
    app.say(`cannot play ${describeAction(action)}: ${exc.message}`, true);
    return;
  }
  memory.myPick = legal;
  memory.chop = false;
  app.say(`you picked ${describeAction(legal)}`);
}

/** "tempura", "wasabi + squid", "egg (dummy: maki2)". */
export function describeAction(action) {
  const mine = action.cards.join(" + ");
  return action.dummy ? `${mine} (dummy: ${action.dummy})` : mine;
}

/** The board. */
export function drawCards(app, obs, names) {
  const client = app.client;
  const memory = app.game;
  const parts = [];
  if (obs.seat !== null) parts.push(hand(app, obs));
  parts.push(
    h(
      "section",
      { class: "tableaus", "aria-labelledby": "tableaus-title" },
      h("h2", { id: "tableaus-title" }, `Tableaus · round ${obs.round} · hands pass ${obs.pass_direction > 0 ? "left" : "right"}`),
      h(
        "ul",
        { class: "seat-list" },
        obs.tableaus.map((t, i) => tableau(t, i, obs, names, client)),
      ),
    ),
  );
  if (memory.myPick) parts.unshift(h("p", { class: "picked" }, `your pick: ${describeAction(memory.myPick)}`));
  return h("div", { class: "board cards-board" }, parts);
}

function hand(app, obs) {
  const client = app.client;
  const memory = app.game;
  const me = obs.tableaus[obs.seat];
  const canChop = me.chopsticks_ready && obs.hand.length >= 2;
  if (!canChop) memory.chop = false;
  const dummy = obs.dummy_controller !== null && obs.dummy_controller === obs.seat;
  const active = client.awaiting;
  const buttons = obs.hand.map((name, i) => {
    const c = card(name);
    const at = memory.marks.indexOf(i);
    const marked = at >= 0 ? `, chosen ${at === 0 ? "first" : "second"}` : "";
    return h(
      "li",
      null,
      h(
        "button",
        {
          type: "button",
          class: `card ${c.family}${at >= 0 ? " marked" : ""}`,
          key: `hand-${i}`,
          "aria-label": `${name}${marked}${i < 9 ? `, key ${i + 1}` : ""}`,
          "aria-pressed": at >= 0 ? "true" : "false",
          "aria-disabled": active ? null : "true",
          title: c.hint,
          onclick: () => choose(app, i),
        },
        h("span", { class: "label" }, c.label),
        h("span", { class: "hint" }, c.hint),
      ),
    );
  });
  return h(
    "section",
    { class: "hand", "aria-labelledby": "hand-title", "data-keys": "x=chopsticks" },
    h("h2", { id: "hand-title" }, `Your hand (${obs.hand.length})${dummy ? " · you choose the dummy's card too" : ""}`),
    h("ul", { class: "card-row", role: "list" }, buttons),
    canChop
      ? h(
          "button",
          {
            type: "button",
            key: "chopsticks",
            class: "toggle",
            "aria-pressed": memory.chop ? "true" : "false",
            disabled: !active,
            onclick: () => {
              memory.chop = !memory.chop;
              memory.marks = [];
              app.say(memory.chop ? "chopsticks: choose two cards, in order" : "one card this turn");
            },
          },
          "pick two cards with chopsticks",
        )
      : null,
  );
}

function tableau(t, i, obs, names, client) {
  const who = t.is_dummy ? "dummy" : names[i] ?? `seat ${i + 1}`;
  const onWasabi = [...t.on_wasabi];
  const cards = t.cards.map((name) => {
    const wasabied = ["egg", "salmon", "squid"].includes(name) && onWasabi.includes(name);
    if (wasabied) onWasabi.splice(onWasabi.indexOf(name), 1);
    const c = card(name);
    return h("li", { class: `tcard ${c.family}`, "aria-label": `${name}${wasabied ? " on wasabi" : ""}` }, c.label, wasabied ? " (wasabi ×3)" : "");
  });
  const facts = [
    `${t.score} points`,
    t.puddings ? `${t.puddings} pudding${t.puddings > 1 ? "s" : ""}` : null,
    t.open_wasabi ? `${t.open_wasabi} open wasabi` : null,
    t.chopsticks_ready ? "chopsticks ready" : null,
    t.is_dummy ? null : `${t.hand_size} in hand`,
  ].filter(Boolean);
  return h(
    "li",
    { class: `seat${i === client.seat ? " me" : ""}` },
    h("h3", null, who, i === client.seat ? " (you)" : ""),
    h("p", { class: "facts" }, facts.join(" · ")),
    cards.length ? h("ul", { class: "card-row small", "aria-label": `${who}'s cards` }, cards) : h("p", { class: "empty" }, "no cards yet this round"),
  );
}

/** A step's revealed picks, in words ("Ann: tempura · Bob: egg"). */
export function describeCards(message, names) {
  const revealed = message.events.find((e) => e.event === "picks_revealed");
  if (!revealed) return "";
  const picks = revealed.actions.map((a, i) => `${names[i] ?? `seat ${i + 1}`}: ${describeAction(a)}${message.openings[i]?.auto ? " (auto)" : ""}`);
  return `round ${message.round} turn ${message.turn}: ${picks.join(" · ")}`;
}

/** Keys of the board: 1-9 choose a card, arrows move along the hand. */
/** What we owe now at a Sushi Go! table, in words (the game not over). */
export function cardsDuty(client, memory) {
  if (client.seat === null) return "You are watching.";
  if (client.awaiting) return memory.chop ? "Your pick: choose two cards, in order." : "Your pick: choose a card.";
  if (memory.myPick) return "Picked: waiting for the others.";
  return "Waiting for the turn.";
}

export function cardKey(e, app) {
  const client = app.client;
  const obs = client.observation;
  if (obs.seat === null) return;
  if (/^[1-9]$/.test(e.key)) {
    const i = Number(e.key) - 1;
    if (i < obs.hand.length) {
      e.preventDefault();
      choose(app, i);
    }
    return;
  }
  const move = { ArrowLeft: -1, ArrowUp: -1, k: -1, ArrowRight: 1, ArrowDown: 1, j: 1 }[e.key];
  if (move !== undefined) {
    const buttons = [...app.root.querySelectorAll(".hand .card")];
    if (!buttons.length) return;
    const at = buttons.indexOf(document.activeElement);
    const next = at < 0 ? 0 : (at + move + buttons.length) % buttons.length;
    buttons[next].focus();
    e.preventDefault();
  } else if (e.key === "d" && obs.dummy_controller === obs.seat) {
    app.say("choose your card, then the dummy's (the last card chosen is the dummy's)");
  }
}

/** Every tableau of a public observation, for the replay viewer. */
export function drawCardsPublic(obs, names) {
  return h(
    "section",
    { class: "tableaus", "aria-label": "tableaus" },
    h("h2", null, `Tableaus · round ${obs.round}, turn ${obs.turn}`),
    h(
      "ul",
      { class: "seat-list" },
      obs.tableaus.map((t, i) => tableau(t, i, obs, names, { seat: null })),
    ),
  );
}

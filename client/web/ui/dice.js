/**
 * Sushi Roll's board: every seat's belt and tray, tokens and puddings; on our turn our belt's
 * dice are buttons (named by their face: "salmon die, position 2"): a click or Space marks one,
 * Enter takes the die under the focus; "re-roll" re-rolls the marked dice (a menu token); with
 * one die marked, another belt's die is a button that swaps the two (a chopsticks token).
 * @module
 */
import { h } from "./dom.js";
import { die } from "./names.js";

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Play `action` if the core lists it among our legal actions now. */
function act(app, action, words) {
  const client = app.client;
  if (!client.awaiting) {
    app.say("not your move now", true);
    return;
  }
  const legal = client.legalActions().find((a) => same(a, action));
  if (!legal) {
    app.say(`cannot ${words} now`, true);
    return;
  }
  try {
    client.play(legal);
  } catch (exc) {
    app.say(`cannot ${words}: ${exc.message}`, true);
    return;
  }
  app.game.marks = [];
  app.say(words);
}

function mark(app, position) {
  const memory = app.game;
  const at = memory.marks.indexOf(position);
  if (at >= 0) memory.marks.splice(at, 1);
  else memory.marks.push(position);
  app.draw();
}

function take(app, position) {
  const obs = app.client.observation;
  const d = die(obs.players[obs.seat].belt[position]);
  act(app, { type: "take", position }, `take ${d.face}`);
}

function reroll(app) {
  const dice = [...app.game.marks].sort((a, b) => a - b);
  if (!dice.length) {
    app.say("mark the dice to re-roll first", true);
    return;
  }
  act(app, { type: "reroll", dice }, `re-roll ${dice.length} ${dice.length === 1 ? "die" : "dice"}`);
}

function swap(app, otherSeat, theirs) {
  const [mine] = app.game.marks;
  act(app, { type: "swap", mine, other_seat: otherSeat, theirs }, "swap");
}

/** The board. */
export function drawDice(app, obs, names) {
  const client = app.client;
  const memory = app.game;
  const me = obs.seat === null ? null : obs.players[obs.seat];
  const mine = client.awaiting;
  const canMenu = me !== null && me.menu > me.fresh_menu;
  const canSwap = me !== null && me.chopsticks > me.fresh_chopsticks && memory.marks.length === 1 && mine;
  const seats = obs.players.map((p, i) => belt(app, obs, p, i, names, { mine: mine && i === obs.seat, swapTo: canSwap && i !== obs.seat }));
  const actions =
    obs.seat === null
      ? null
      : h(
          "div",
          { class: "row actions", "data-keys": "r=reroll" },
          h(
            "button",
            {
              type: "button",
              key: "take",
              disabled: !mine || memory.marks.length !== 1,
              onclick: () => take(app, memory.marks[0]),
            },
            memory.marks.length === 1 && me ? `take ${die(me.belt[memory.marks[0]]).face}` : "take the marked die",
          ),
          h(
            "button",
            { type: "button", key: "reroll", disabled: !mine || !canMenu || !memory.marks.length, onclick: () => reroll(app) },
            `re-roll ${memory.marks.length || ""} marked (menu token)`.replace("  ", " "),
          ),
          canSwap ? h("p", { class: "hint" }, "Swap: choose a die on another belt (chopsticks token).") : null,
        );
  return h(
    "div",
    { class: "board dice-board" },
    h(
      "p",
      { class: "supply" },
      `bag ${obs.bag} dice · supply: ${obs.menu_supply} menu, ${obs.chopsticks_supply} chopsticks tokens · round ${obs.round}, cycle ${obs.cycle}`,
    ),
    actions,
    h("ul", { class: "seat-list" }, seats),
  );
}

function belt(app, obs, p, i, names, { mine, swapTo }) {
  const memory = app.game;
  const who = names[i] ?? `seat ${i + 1}`;
  const dice = p.belt.map((d, pos) => {
    const shown = die(d);
    const marked = mine && memory.marks.includes(pos);
    const label = `${shown.face} die, ${shown.kind}, position ${pos + 1}${marked ? ", marked" : ""}`;
    if (mine) {
      return h(
        "li",
        null,
        h(
          "button",
          {
            type: "button",
            class: `die ${shown.kind}${marked ? " marked" : ""}`,
            key: `belt-${pos}`,
            "aria-label": label,
            "aria-pressed": marked ? "true" : "false",
            onclick: () => mark(app, pos),
            onkeydown: (e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                take(app, pos);
              }
            },
          },
          shown.label,
        ),
      );
    }
    if (swapTo) {
      return h(
        "li",
        null,
        h(
          "button",
          {
            type: "button",
            class: `die ${shown.kind}`,
            key: `swap-${i}-${pos}`,
            "aria-label": `${shown.face} die, ${shown.kind}, ${who}'s position ${pos + 1}: swap for your marked die`,
            onclick: () => swap(app, i, pos),
          },
          shown.label,
        ),
      );
    }
    return h("li", { class: `die ${shown.kind}`, "aria-label": label }, shown.label);
  });
  const tray = p.tray.map((d, t) => {
    const shown = die(d);
    const wasabied = p.on_wasabi.includes(t);
    return h("li", { class: `die small ${shown.kind}`, "aria-label": `${shown.face}${wasabied ? " on wasabi" : ""}` }, shown.label, wasabied ? " ×3" : "");
  });
  const facts = [
    `${p.score} points`,
    `menu ${p.menu}${p.fresh_menu ? ` (${p.fresh_menu} new)` : ""}`,
    `chopsticks ${p.chopsticks}${p.fresh_chopsticks ? ` (${p.fresh_chopsticks} new)` : ""}`,
    p.puddings ? `${p.puddings} pudding${p.puddings > 1 ? "s" : ""}` : null,
    p.has_red_belt ? "red belt" : null,
    obs.to_move === i ? "moving" : null,
  ].filter(Boolean);
  return h(
    "li",
    { class: `seat${i === obs.seat ? " me" : ""}${obs.to_move === i ? " moving" : ""}` },
    h("h3", null, who, i === obs.seat ? " (you)" : ""),
    h("p", { class: "facts" }, facts.join(" · ")),
    h("h4", null, "belt"),
    h("ul", { class: "dice-row", "aria-label": `${who}'s belt` }, dice),
    h("h4", null, "tray"),
    tray.length ? h("ul", { class: "dice-row small", "aria-label": `${who}'s tray` }, tray) : h("p", { class: "empty" }, "nothing taken this round"),
  );
}

/** An ACTED message in words ("Ann re-rolled 2 dice", "Bob took salmon"). */
export function describeDice(message, names) {
  const who = names[message.seat] ?? `seat ${message.seat + 1}`;
  const a = message.action;
  const auto = message.auto ? " (auto)" : "";
  if (a.type === "reroll") return `${who} re-rolled ${a.dice.length} ${a.dice.length === 1 ? "die" : "dice"}${auto}`;
  if (a.type === "swap") {
    const swapped = message.events.find((e) => e.event === "swapped");
    const got = swapped ? ` (${swapped.given[1]} for ${swapped.received[1]})` : "";
    return `${who} swapped with ${names[a.other_seat] ?? `seat ${a.other_seat + 1}`}${got}${auto}`;
  }
  const taken = message.events.find((e) => e.event === "taken");
  return `${who} took ${taken ? taken.die[1] : `position ${a.position + 1}`}${auto}`;
}

/** Keys of the board: 1-8 mark a die, arrows move along the belt, r re-rolls. */
/** What we owe now at a Sushi Roll table, in words (the game not over). */
export function diceDuty(client, memory, names) {
  const obs = client.observation;
  const mover = obs.to_move !== null ? `${names[obs.to_move] ?? "someone"} is moving.` : null;
  if (client.seat === null) return mover ?? "You are watching.";
  if (client.awaiting) return "Your move: mark dice to re-roll, or a die to take (Enter) or to swap.";
  if (client.pending) return "Waiting for the server…";
  return mover ?? "Waiting…";
}

export function diceKey(e, app) {
  const obs = app.client.observation;
  if (obs.seat === null) return;
  if (/^[1-8]$/.test(e.key)) {
    const pos = Number(e.key) - 1;
    if (pos < obs.players[obs.seat].belt.length && app.client.awaiting) {
      e.preventDefault();
      mark(app, pos);
    }
    return;
  }
  const move = { ArrowLeft: -1, h: -1, ArrowRight: 1, l: 1 }[e.key];
  if (move !== undefined) {
    const buttons = [...app.root.querySelectorAll(".seat.me .die")].filter((b) => b instanceof HTMLButtonElement);
    if (!buttons.length) return;
    const at = buttons.indexOf(document.activeElement);
    buttons[at < 0 ? 0 : (at + move + buttons.length) % buttons.length].focus();
    e.preventDefault();
  }
}

/** Every belt and tray of a public observation, for the replay viewer. */
export function drawDicePublic(obs, names) {
  const still = { game: { marks: [] } };
  return h(
    "section",
    { class: "belts", "aria-label": "belts and trays" },
    h("h2", null, `Belts and trays · round ${obs.round}, cycle ${obs.cycle}`),
    h(
      "ul",
      { class: "seat-list" },
      obs.players.map((p, i) => belt(still, obs, p, i, names, { mine: false, swapTo: false })),
    ),
  );
}

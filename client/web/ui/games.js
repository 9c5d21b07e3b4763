/**
 * The page's door to the games' boards, by kind: what each game this page plays draws and
 * hears at the table (its board, the board of a game over, its keys, what its steps say in the
 * log, the players' score views and what we owe now, in words). Sushi Go!'s are `cards.js`,
 * Sushi Roll's `dice.js`; the rules and wire under them are the core's (`core/games/`).
 *
 * A game installed on the server as a plug-in has neither here: the lobby lists its tables
 * without join or watch, saying to play it with the terminal client (`notHere`), and a table of
 * one reached anyway (a resume) says the same instead of a board.
 * @module
 */
import { rules } from "../core/games/index.js";
import { cardKey, cardsDuty, describeCards, drawCards, drawCardsPublic } from "./cards.js";
import { describeDice, diceDuty, diceKey, drawDice, drawDicePublic } from "./dice.js";
import { title } from "./names.js";

const BOARDS = new Map([
  ["sushi-go", { draw: drawCards, drawPublic: drawCardsPublic, key: cardKey, describe: describeCards, duty: cardsDuty, views: (obs) => obs.tableaus, step: "turn" }],
  ["sushi-roll", { draw: drawDice, drawPublic: drawDicePublic, key: diceKey, describe: describeDice, duty: diceDuty, views: (obs) => obs.players, step: "cycle" }],
]);

/**
 * @param {string | null} kind
 * @returns {any} the game's board in the page, or null for a game this page does not play
 */
export function board(kind) {
  return kind !== null && rules(kind) !== null ? (BOARDS.get(kind) ?? null) : null;
}

/** A game this page does not play, in words: where to play it instead. */
export function notHere(kind) {
  return `${title(kind)} is not played in this page: play it with the terminal client (sushigo-client).`;
}

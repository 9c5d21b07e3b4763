/**
 * How cards, dice and games are shown: each card's and die face's wire name (what its control's
 * accessible name starts with), a short label, its family (for its colour) and what it scores.
 * @module
 */

/** The games the page plays, by kind. */
export const GAMES = {
  "sushi-go": { title: "Sushi Go!", players: [2, 3, 4, 5], variants: ["pass_both_ways", "soy_sauce", "dummy"] },
  "sushi-roll": { title: "Sushi Roll", players: [2, 3, 4, 5], variants: [] },
};

/** The levels of the bots, weakest first (the server plays each with one of its strategies). */
export const LEVELS = ["easy", "medium", "hard", "expert"];

/** The games as a `choice`'s options: [kind, title]. */
export const GAME_OPTIONS = Object.entries(GAMES).map(([kind, g]) => [kind, g.title]);

/** The bots' levels as a `choice`'s options. */
export const LEVEL_OPTIONS = LEVELS.map((level) => [level, level]);

/** A game's numbers of players as a `choice`'s options: ["4", "4 players"]. */
export function playerOptions(kind) {
  return GAMES[kind].players.map((n) => [String(n), `${n} players`]);
}

/** The variants' names, for people. */
export const VARIANTS = {
  pass_both_ways: "hands pass both ways",
  soy_sauce: "soy sauce",
  dummy: "dummy player (2 players)",
};

const CARDS = {
  tempura: ["Tempura", "side", "2 make 5"],
  sashimi: ["Sashimi", "side", "3 make 10"],
  dumpling: ["Dumpling", "side", "1 3 6 10 15"],
  maki1: ["Maki ×1", "maki", "most maki 6, second 3"],
  maki2: ["Maki ×2", "maki", "most maki 6, second 3"],
  maki3: ["Maki ×3", "maki", "most maki 6, second 3"],
  egg: ["Egg nigiri", "nigiri", "1 (×3 on wasabi)"],
  salmon: ["Salmon nigiri", "nigiri", "2 (×3 on wasabi)"],
  squid: ["Squid nigiri", "nigiri", "3 (×3 on wasabi)"],
  wasabi: ["Wasabi", "special", "triples the next nigiri"],
  chopsticks: ["Chopsticks", "special", "later, take 2 cards in one turn"],
  pudding: ["Pudding", "dessert", "game end: most +6, fewest −6"],
  soy_sauce: ["Soy sauce", "special", "most colours: +4"],
};

/** A card's label, family and hint: `card("egg")`. */
export function card(name) {
  const [label, family, hint] = CARDS[name] ?? [name, "other", ""];
  return { name, label, family, hint };
}

const FACES = {
  dumpling: "Dumpling",
  tempura: "Tempura",
  sashimi: "Sashimi",
  maki1: "Maki ×1",
  maki2: "Maki ×2",
  maki3: "Maki ×3",
  egg: "Egg",
  salmon: "Salmon",
  squid: "Squid",
  wasabi: "Wasabi",
  chopsticks1: "Chopsticks ×1",
  chopsticks2: "Chopsticks ×2",
  menu1: "Menu ×1",
  menu2: "Menu ×2",
  pudding1: "Pudding ×1",
  pudding2: "Pudding ×2",
  pudding3: "Pudding ×3",
};

/** A die ([kind, face]) as shown: its face's label and its kind. */
export function die([kind, face]) {
  return { kind, face, label: FACES[face] ?? face };
}

/** A game's title. */
export function title(kind) {
  return GAMES[kind]?.title ?? kind;
}

/** "1st", "2nd", ... */
export function ordinal(n) {
  const suffix = n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th";
  return `${n}${suffix}`;
}

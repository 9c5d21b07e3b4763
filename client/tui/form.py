"""The create-table form: which game, its players and variants (from the game's rules), the turn
time, and the bots to seat. A plain value the lobby keys change and `lobby.form_text` draws.

Nothing here knows a particular game: the games are the installed ones (`engine.games.kinds`),
the player counts and variants are the rules', a combination is checked by the rules' own
`options` (a variant that needs two players brings the count down; a count a variant does not
allow turns that variant off), and the bot strategies are the game's built-in ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sushigo.bots import DEFAULT_LEVEL, builtin_names, levels
from sushigo.engine import EngineError
from sushigo.engine.api import Rules
from sushigo.engine.games import kinds, rules
from sushigo.protocol import TableSettings

__all__ = ["TURN_SECONDS_CHOICES", "VARIANT_LABELS", "CreateForm", "game_title"]

TURN_SECONDS_CHOICES: tuple[int, ...] = (0, 15, 30, 60, 90, 120, 300)
"""Turn times the form cycles through (0: no timer)."""

VARIANT_LABELS: dict[str, str] = {
    "pass_both_ways": "pass both ways",
    "dummy": "2-player dummy",
    "soy_sauce": "soy sauce",
}
"""Labels for variants whose name alone says too little (others show their name, spaced)."""


def game_title(kind: str) -> str:
    """A game's name on screen (its kind, when it is not installed here)."""
    try:
        return rules(kind).title
    except EngineError:
        return kind


def variant_label(name: str) -> str:
    return VARIANT_LABELS.get(name, name.replace("_", " "))


def _rules(kind: str) -> Rules | None:
    try:
        return rules(kind)
    except EngineError:
        return None


@dataclass(slots=True)
class CreateForm:
    """The create-table form: the game, the table's settings and the bots to seat."""

    game: str = "sushi-go"
    players: int = 4
    variants: list[str] = field(default_factory=list)
    """The chosen game's variants that are on."""
    turn_seconds: int = 60
    bots: int = 3
    """Server bots for the empty seats (the rest stay open for people)."""
    strategy: str = DEFAULT_LEVEL
    """The bots' level (or, for a game without levels, their strategy)."""
    field: int = 0
    """The focused field, an index into `fields()`."""

    @property
    def rules(self) -> Rules | None:
        return _rules(self.game)

    def fields(self) -> tuple[str, ...]:
        """The form's fields, top to bottom: a variant's field is ``variant:<name>``."""
        found = self.rules
        variants = tuple(f"variant:{v}" for v in found.variants) if found is not None else ()
        return ("game", "players", *variants, "turn_seconds", "bots", "strategy", "create")

    def strategies(self) -> tuple[str, ...]:
        """The bots offered for this game: its levels, easy to expert (a game without levels,
        a plug-in's, offers the server's default and its built-in strategies)."""
        offered = levels(self.game)
        if offered:
            return offered
        names = [n for n in builtin_names(self.game) if n != "default"]
        return ("default", *names)

    def move(self, delta: int) -> None:
        """Focus the next or previous field."""
        self.field = (self.field + delta) % len(self.fields())

    def focused(self) -> str:
        fields = self.fields()
        return fields[min(self.field, len(fields) - 1)]

    def change(self, step: int) -> None:
        """Change the focused field: numbers step, switches flip, the game and the bot strategy
        cycle."""
        name = self.focused()
        if name == "game":
            games = list(kinds())
            index = games.index(self.game) if self.game in games else 0
            self._set_game(games[(index + step) % len(games)])
        elif name == "players":
            allowed = self._player_counts()
            self.players = min(allowed[-1], max(allowed[0], self.players + step))
            self._fit_variants()
        elif name.startswith("variant:"):
            variant = name.removeprefix("variant:")
            if variant in self.variants:
                self.variants.remove(variant)
            else:
                self.variants.append(variant)
                self._fit_players()
        elif name == "turn_seconds":
            choices = TURN_SECONDS_CHOICES
            index = choices.index(self.turn_seconds) if self.turn_seconds in choices else 3
            self.turn_seconds = choices[(index + step) % len(choices)]
        elif name == "bots":
            self.bots = min(self.players - 1, max(0, self.bots + step))
        elif name == "strategy":
            names = self.strategies()
            index = names.index(self.strategy) if self.strategy in names else 0
            self.strategy = names[(index + step) % len(names)]
        self.bots = min(self.bots, self.players - 1)

    def _set_game(self, kind: str) -> None:
        self.game, self.variants = kind, []
        allowed = self._player_counts()
        self.players = min(allowed[-1], max(allowed[0], self.players))
        offered = self.strategies()
        if self.strategy not in offered:
            self.strategy = DEFAULT_LEVEL if DEFAULT_LEVEL in offered else offered[0]

    def _player_counts(self) -> range:
        found = self.rules
        return found.players if found is not None else range(2, 9)

    def _valid(self, players: int, variants: list[str]) -> bool:
        found = self.rules
        if found is None:
            return True
        try:
            found.options(players, variants)
        except EngineError:
            return False
        return True

    def _fit_players(self) -> None:
        """A variant was turned on: keep the count if the rules allow it, else the nearest one
        they do; if none does, the variant goes off again."""
        if self._valid(self.players, self.variants):
            return
        for players in sorted(self._player_counts(), key=lambda n: abs(n - self.players)):
            if self._valid(players, self.variants):
                self.players = players
                return
        self.variants.pop()

    def _fit_variants(self) -> None:
        """The count changed: variants that do not allow it go off."""
        for variant in list(self.variants):
            if not self._valid(self.players, self.variants):
                self.variants.remove(variant)

    def settings(self) -> TableSettings:
        """The table settings to send."""
        found = self.rules
        order = found.variants if found is not None else tuple(self.variants)
        return TableSettings(
            kind=self.game,
            players=self.players,
            variants=tuple(v for v in order if v in self.variants),
            turn_seconds=self.turn_seconds,
        )

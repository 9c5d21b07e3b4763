"""The create-table form: which game, its settings, and the bots to seat (a plain value the lobby
keys change and `lobby.form_text` draws)."""

from __future__ import annotations

from dataclasses import dataclass

from sushigo.protocol import GameKind, TableSettings

__all__ = ["BOT_STRATEGIES", "CARD_VARIANTS", "GAME_TITLES", "TURN_SECONDS_CHOICES", "CreateForm"]

BOT_STRATEGIES: tuple[str, ...] = ("default", "heuristic", "greedy", "random")
"""The server's built-in bots, as the create-table form offers them."""

TURN_SECONDS_CHOICES: tuple[int, ...] = (0, 15, 30, 60, 90, 120, 300)
"""Turn times the form cycles through (0: no timer)."""


GAME_TITLES: dict[GameKind, str] = {
    GameKind.SUSHI_GO: "Sushi Go!",
    GameKind.SUSHI_ROLL: "Sushi Roll",
}
"""Each kind of game's name on screen."""

CARD_VARIANTS: tuple[str, ...] = ("pass_both_ways", "dummy", "soy_sauce")
"""The form's fields that only the card game has."""


@dataclass(slots=True)
class CreateForm:
    """The create-table form: the game, the table's settings and the bots to seat."""

    FIELDS = (
        "game",
        "players",
        "pass_both_ways",
        "dummy",
        "soy_sauce",
        "turn_seconds",
        "bots",
        "strategy",
        "create",
    )

    game: GameKind = GameKind.SUSHI_GO
    """Sushi Go! (cards) or Sushi Roll (dice, which has no variants)."""
    players: int = 4
    pass_both_ways: bool = False
    dummy: bool = False
    soy_sauce: bool = False
    turn_seconds: int = 60
    bots: int = 3
    """Server bots for the empty seats (the rest stay open for people)."""
    strategy: str = "default"
    field: int = 0
    """The focused field, an index into FIELDS."""

    def move(self, delta: int) -> None:
        """Focus the next or previous field (Sushi Roll skips the card game's variants)."""
        self.field = (self.field + delta) % len(self.FIELDS)
        while not self.applies(self.FIELDS[self.field]):
            self.field = (self.field + delta) % len(self.FIELDS)

    def applies(self, name: str) -> bool:
        """The field means something for the game chosen."""
        return self.game == GameKind.SUSHI_GO or name not in CARD_VARIANTS

    def change(self, step: int) -> None:
        """Change the focused field: numbers step, switches flip, the game and the bot strategy
        cycle."""
        name = self.FIELDS[self.field]
        if not self.applies(name):
            return
        if name == "game":
            kinds = list(GameKind)
            self.game = kinds[(kinds.index(self.game) + step) % len(kinds)]
            if self.game != GameKind.SUSHI_GO:
                self.pass_both_ways = self.dummy = self.soy_sauce = False
        elif name == "players":
            self.players = min(5, max(2, self.players + step))
            if self.players != 2:
                self.dummy = False
            self.bots = min(self.bots, self.players - 1)
        elif name in ("pass_both_ways", "dummy", "soy_sauce"):
            setattr(self, name, not getattr(self, name))
            if self.dummy:
                self.players, self.bots = 2, min(self.bots, 1)
        elif name == "turn_seconds":
            choices = TURN_SECONDS_CHOICES
            index = choices.index(self.turn_seconds) if self.turn_seconds in choices else 3
            self.turn_seconds = choices[(index + step) % len(choices)]
        elif name == "bots":
            self.bots = min(self.players - 1, max(0, self.bots + step))
        elif name == "strategy":
            index = BOT_STRATEGIES.index(self.strategy) if self.strategy in BOT_STRATEGIES else 0
            self.strategy = BOT_STRATEGIES[(index + step) % len(BOT_STRATEGIES)]

    def settings(self) -> TableSettings:
        """The table settings to send."""
        return TableSettings(
            kind=self.game,
            players=self.players,
            pass_both_ways=self.pass_both_ways,
            dummy=self.dummy,
            soy_sauce=self.soy_sauce,
            turn_seconds=self.turn_seconds,
        )

"""The rules: pure, deterministic, no IO. See docs/RULES.md.

The game interface every game implements is `engine.api` (`Rules`, `GameState`); `engine.games`
finds a game's rules by kind (`rules("sushi-go")`). Sushi Go! is this package's top level
(`Game`, `SUSHI_GO`, and the scoring API `score_round`, `score_puddings`); Sushi Roll is
`engine.games.sushi_roll`."""

from .api import GameState, Rules, play_steps
from .errors import (
    EngineError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    OptionsError,
    RecordError,
    WrongSeatError,
)
from .games import UnknownGameError, kinds, rules
from .games.sushi_go.actions import Action
from .games.sushi_go.cards import CARDS, Card
from .games.sushi_go.errors import CardNotInHandError, ChopsticksUnavailableError, DummyPickError
from .games.sushi_go.events import (
    ChopsticksReturned,
    Event,
    GameOver,
    PicksRevealed,
    RoundStarted,
    WasabiUsed,
)
from .games.sushi_go.game import Game
from .games.sushi_go.observation import Observation, TableauView
from .games.sushi_go.options import GameOptions
from .games.sushi_go.record import GameRecord, replay
from .games.sushi_go.rules import SUSHI_GO
from .games.sushi_go.scoring import RoundPoints, score_puddings, score_round
from .rng import DeterministicRng
from .rounds import RoundScored

__all__ = [
    "CARDS",
    "SUSHI_GO",
    "Action",
    "Card",
    "CardNotInHandError",
    "ChopsticksReturned",
    "ChopsticksUnavailableError",
    "DeterministicRng",
    "DummyPickError",
    "EngineError",
    "Event",
    "Game",
    "GameOptions",
    "GameOver",
    "GameOverError",
    "GameRecord",
    "GameState",
    "IllegalActionError",
    "MalformedActionError",
    "Observation",
    "OptionsError",
    "PicksRevealed",
    "RecordError",
    "RoundPoints",
    "RoundScored",
    "RoundStarted",
    "Rules",
    "TableauView",
    "UnknownGameError",
    "WasabiUsed",
    "WrongSeatError",
    "kinds",
    "play_steps",
    "replay",
    "rules",
    "score_puddings",
    "score_round",
]

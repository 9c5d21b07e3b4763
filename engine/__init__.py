"""The rules of Sushi Go!: pure, deterministic, no IO. See docs/RULES.md."""

from .actions import Action
from .cards import CARDS, Card
from .errors import (
    CardNotInHandError,
    ChopsticksUnavailableError,
    DummyPickError,
    EngineError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    OptionsError,
    RecordError,
    WrongSeatError,
)
from .events import (
    ChopsticksReturned,
    Event,
    GameOver,
    PicksRevealed,
    RoundScored,
    RoundStarted,
    WasabiUsed,
)
from .game import Game
from .observation import Observation, TableauView
from .options import GameOptions
from .record import GameRecord, replay
from .rng import DeterministicRng
from .scoring import RoundPoints, score_puddings, score_round

__all__ = [
    "CARDS",
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
    "IllegalActionError",
    "MalformedActionError",
    "Observation",
    "OptionsError",
    "PicksRevealed",
    "RecordError",
    "RoundPoints",
    "RoundScored",
    "RoundStarted",
    "TableauView",
    "WasabiUsed",
    "WrongSeatError",
    "replay",
    "score_puddings",
    "score_round",
]

"""Sushi Roll, the dice game: pure, deterministic, no IO. See docs/RULES.md ("Sushi Roll").

The same shape as the card game in `engine` (legal actions, apply, events, observations, records,
replay, specific errors), but turns are sequential: only the seat to move acts, one action at a
time. Every roll comes from the game seed in the order `engine.roll.game` documents.
"""

from sushigo.engine.rounds import RoundScored

from .actions import ACTION_TYPES, Reroll, RollAction, Swap, Take, action_from_data
from .dice import (
    BAG_ORDER,
    CHOPSTICKS_SUPPLY,
    DICE_COUNTS,
    DICE_PER_PLAYER,
    DIE_FACES,
    MENU_SUPPLY,
    START_CHOPSTICKS,
    START_MENU,
    TOTAL_DICE,
    Die,
    DieKind,
    Face,
)
from .errors import (
    AlreadyTakenError,
    BadPositionError,
    BadTargetError,
    NoTokenError,
    NotYourTurnError,
)
from .events import (
    BeltsSlid,
    DiceRolled,
    GameOver,
    Rerolled,
    RollEvent,
    RoundStarted,
    Swapped,
    Taken,
)
from .game import BELTS_STREAM, FACES_STREAM, RollGame, bag_stream
from .observation import PlayerView, RollObservation, legal_actions
from .options import RollOptions
from .record import RollRecord, replay
from .rules import SUSHI_ROLL
from .scoring import (
    RoundPoints,
    appetizer_points,
    maki_points,
    nigiri_points,
    round_breakdown,
    score_puddings,
    score_round,
    token_bonus,
)

__all__ = [
    "ACTION_TYPES",
    "BAG_ORDER",
    "BELTS_STREAM",
    "CHOPSTICKS_SUPPLY",
    "DICE_COUNTS",
    "DICE_PER_PLAYER",
    "DIE_FACES",
    "FACES_STREAM",
    "MENU_SUPPLY",
    "START_CHOPSTICKS",
    "START_MENU",
    "SUSHI_ROLL",
    "TOTAL_DICE",
    "AlreadyTakenError",
    "BadPositionError",
    "BadTargetError",
    "BeltsSlid",
    "DiceRolled",
    "Die",
    "DieKind",
    "Face",
    "GameOver",
    "NoTokenError",
    "NotYourTurnError",
    "PlayerView",
    "Reroll",
    "Rerolled",
    "RollAction",
    "RollEvent",
    "RollGame",
    "RollObservation",
    "RollOptions",
    "RollRecord",
    "RoundPoints",
    "RoundScored",
    "RoundStarted",
    "Swap",
    "Swapped",
    "Take",
    "Taken",
    "action_from_data",
    "appetizer_points",
    "bag_stream",
    "legal_actions",
    "maki_points",
    "nigiri_points",
    "replay",
    "round_breakdown",
    "score_puddings",
    "score_round",
    "token_bonus",
]

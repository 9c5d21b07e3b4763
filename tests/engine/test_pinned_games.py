"""Pinned games: seeded games, chopsticks and every variant included, give the same records and
scores whatever the engine's hot paths become (a change here changes every replay)."""

from __future__ import annotations

import hashlib
import json
import random

from sushigo.engine import Game, GameOptions, GameRecord

SETTINGS = [
    (2, ()),
    (2, ("dummy",)),
    (3, ("soy_sauce",)),
    (4, ()),
    (5, ("pass_both_ways", "soy_sauce")),
]


def test_seeded_games_play_as_they_always_have() -> None:
    digest = hashlib.sha256()
    for players, variants in SETTINGS:
        options = GameOptions(players, **dict.fromkeys(variants, True))
        for g in range(12):
            game = Game(options, f"pinned/{players}/{g}".encode())
            rng = random.Random(g)
            while not game.is_terminal():
                picks = []
                for seat in range(players):
                    legal = game.legal_actions(seat)
                    # Chopsticks pairs half the time they are offered, so they are played often.
                    pairs = [a for a in legal if a.second is not None]
                    picks.append(rng.choice(pairs if pairs and rng.random() < 0.5 else legal))
                game.apply(picks)
            played = [GameRecord.of(game).to_data(), game.scores(), game.places()]
            digest.update(json.dumps(played, sort_keys=True).encode())
    assert digest.hexdigest() == "ad313ea8303bd4a953d0bd80d1529ea82205adbb35cc322bafe371c5ac981335"

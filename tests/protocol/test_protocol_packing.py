"""The fast packers give exactly the bytes of the generic path (``msgpack.packb(to_data(...))``):
a TURN_START whose observation's tableaus were packed for another seat must not differ by a byte."""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import OPTIONS, random_game, strategy_for

from protocol import TurnStart, encode_observation
from protocol._registry import to_bytes, to_data
from protocol.gamewire import packed_observation


def generic(message: TurnStart, seq: int) -> bytes:
    data: bytes = msgpack.packb(to_data(message, seq), use_bin_type=True)
    return data


def test_turn_starts_of_real_games_pack_as_the_generic_path() -> None:
    for options in OPTIONS:
        for seed, turns in [(1, 0), (2, 3), (3, 9), (4, 40)]:
            game, _ = random_game(options, seed, turns)
            # Every seat in a row (sharing the turn's packed tableaus), then a spectator.
            for seq, seat in enumerate([*range(options.players), None, 0], start=1):
                obs = game.observation(seat)
                message = TurnStart(round=obs.round, turn=obs.turn, observation=obs, deadline_ms=9)
                assert to_bytes(message, seq) == generic(message, seq)
                assert packed_observation(obs) == msgpack.packb(
                    encode_observation(obs), use_bin_type=True
                )


def test_the_shared_tableaus_follow_the_game() -> None:
    game, _ = random_game(OPTIONS[3], 5, 2)
    before = game.observation(1)
    first = packed_observation(before)
    game.apply([game.legal_actions(s)[0] for s in range(OPTIONS[3].players)])
    after = game.observation(1)
    assert after.tableaus is not before.tableaus
    assert packed_observation(after) == msgpack.packb(encode_observation(after), use_bin_type=True)
    assert packed_observation(before) == first  # an older observation still packs as itself


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=strategy_for(TurnStart), seq=st.integers(1, 2**40))
def test_any_turn_start_packs_as_the_generic_path(message: TurnStart, seq: int) -> None:
    assert to_bytes(message, seq) == generic(message, seq)

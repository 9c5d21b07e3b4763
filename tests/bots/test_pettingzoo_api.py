"""The PettingZoo environments pass PettingZoo's own tests, and behave as documented: secret picks,
illegal actions replaced, rewards, rendering, and numpy only where it belongs."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from gymnasium.spaces import Discrete
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec

from sushigo.bots.pettingzoo import action_of, sushi_go_v0, sushi_roll_v0
from sushigo.engine import OptionsError


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    # PettingZoo's tests warn that dict observations are not plain arrays: ours are dicts of an
    # observation and an action mask, as its own classic games' are.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


GO_SETUPS: list[dict[str, Any]] = [
    {"players": 2},
    {"players": 3, "pass_both_ways": True},
    {"players": 4},
    {"players": 5, "soy_sauce": True},
    {"players": 2, "dummy": True, "soy_sauce": True, "pass_both_ways": True},
]


@pytest.mark.parametrize(
    "kwargs", GO_SETUPS, ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items())
)
def test_sushi_go_passes_pettingzoo_api_tests(kwargs: dict[str, Any]) -> None:
    api_test(sushi_go_v0.env(**kwargs), num_cycles=1000)
    parallel_api_test(sushi_go_v0.parallel_env(**kwargs), num_cycles=1000)
    api_test(sushi_go_v0.env(reward="score", **kwargs), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sushi_roll_passes_pettingzoo_api_tests(players: int) -> None:
    api_test(sushi_roll_v0.env(players=players), num_cycles=1000)
    parallel_api_test(sushi_roll_v0.parallel_env(players=players), num_cycles=1000)


SIZES = [
    (sushi_go_v0, {"players": 2}),
    (sushi_go_v0, {"players": 2, "dummy": True}),
    (sushi_go_v0, {"players": 3}),
    (sushi_go_v0, {"players": 4, "soy_sauce": True}),
    (sushi_go_v0, {"players": 5, "pass_both_ways": True}),
    *((sushi_roll_v0, {"players": n}) for n in (2, 3, 4, 5)),
]


@pytest.mark.parametrize(
    ("module", "kwargs"),
    SIZES,
    ids=lambda x: x.__name__.rsplit(".")[-1] if hasattr(x, "__name__") else str(x),
)
def test_render_and_state_tests_pass_at_every_table_size(
    module: Any, kwargs: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    render_test(lambda render_mode=None: module.env(render_mode=render_mode, **kwargs))
    printed = capsys.readouterr().out  # render_mode="human" prints the table
    assert "player_0" in printed and "score" in printed
    state_test(module.env(**kwargs), module.parallel_env(**kwargs))
    env = module.parallel_env(**kwargs)
    observations, _ = env.reset(seed=1)
    state = env.state()
    assert state.shape == env.state_space.shape and env.state_space.contains(state)
    size = env.table.observation_size
    for seat, agent in enumerate(env.agents):  # every seat's observation, in seat order
        assert np.array_equal(
            state[seat * size : (seat + 1) * size], observations[agent]["observation"]
        )


@pytest.mark.parametrize(
    ("module", "kwargs"),
    SIZES,
    ids=lambda x: x.__name__.rsplit(".")[-1] if hasattr(x, "__name__") else str(x),
)
def test_seed_and_max_cycles_tests_at_every_table_size(module: Any, kwargs: dict[str, Any]) -> None:
    seed_test(lambda: module.env(**kwargs))
    parallel_seed_test(lambda: module.parallel_env(**kwargs))
    max_cycles_test(
        SimpleNamespace(
            env=lambda **more: module.env(**kwargs, **more),
            parallel_env=lambda **more: module.parallel_env(**kwargs, **more),
        )
    )


def test_pettingzoo_conversions_where_they_apply() -> None:
    parallel_api_test(aec_to_parallel(sushi_go_v0.env(players=3)), num_cycles=1000)
    api_test(parallel_to_aec(sushi_go_v0.parallel_env(players=3)), num_cycles=1000)
    api_test(parallel_to_aec(sushi_roll_v0.parallel_env(players=3)), num_cycles=1000)
    # A Sushi Roll seat may act several times in a row in the AEC form: PettingZoo refuses to
    # make it parallel (its own parallel_env is the parallel form).
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(sushi_roll_v0.env(players=3))


def test_action_spaces_sample_as_gymnasium_does_only_faster() -> None:
    env = sushi_go_v0.env(players=2)
    env.reset(seed=4)
    space = env.action_space("player_0")
    reference = Discrete(space.n, seed=9)
    space.seed(9)
    rng = np.random.default_rng(0)
    for _ in range(500):
        mask = (rng.random(space.n) < 0.05).astype(np.int8)
        assert space.sample(mask) == reference.sample(mask)
    assert space.sample(np.zeros(space.n, np.int8)) == 0
    assert space.contains(3) and space.contains(np.int64(181)) and not space.contains(182)
    assert not space.contains(-1) and not space.contains("3")
    with pytest.raises(AssertionError, match="should be 0 or 1"):
        space.sample(np.full(space.n, 2, np.int8))
    fresh = sushi_go_v0.env(players=2)
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        fresh.last()
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        _ = fresh.agents


def _random_game(env: Any, seed: int) -> list[Any]:
    """Play an AEC game with masked random actions; the trace of agents, rewards and masks."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, reward, obs["action_mask"].nonzero()[0].tolist()))
        action = None if term or trunc else int(rng.choice(obs["action_mask"].nonzero()[0]))
        env.step(action)
    return trace


def test_a_seed_replays_and_another_differs() -> None:
    one = _random_game(sushi_go_v0.env(players=3), 5)
    assert one == _random_game(sushi_go_v0.env(players=3), 5)
    assert one != _random_game(sushi_go_v0.env(players=3), 6)


def test_aec_picks_stay_secret_until_all_are_in() -> None:
    env = sushi_go_v0.raw_env(players=3)
    env.reset(seed=1)
    first = {agent: env.observe(agent)["observation"].copy() for agent in env.agents}
    assert env.agent_selection == "player_0"
    env.step(int(env.observe("player_0")["action_mask"].nonzero()[0][-1]))
    assert env.agent_selection == "player_1"
    for agent in env.agents:  # the pick changed nothing anyone can see
        assert np.array_equal(env.observe(agent)["observation"], first[agent])
    assert env.table.game.turn == 1
    env.step(int(env.observe("player_1")["action_mask"].nonzero()[0][0]))
    env.step(int(env.observe("player_2")["action_mask"].nonzero()[0][0]))
    assert env.table.game.turn == 2 and env.agent_selection == "player_0"
    assert not np.array_equal(env.observe("player_1")["observation"], first["player_1"])


def test_an_illegal_action_is_replaced_and_reported() -> None:
    par = sushi_go_v0.parallel_env(players=2)
    obs, _ = par.reset(seed=3)
    masks = {agent: o["action_mask"] for agent, o in obs.items()}
    illegal = int(np.flatnonzero(masks["player_0"] == 0)[0])
    legal = int(masks["player_1"].nonzero()[0][-1])
    _, _, _, _, infos = par.step({"player_0": illegal, "player_1": legal})
    assert infos == {"player_0": {"illegal_action": True}, "player_1": {}}
    assert par.table.game.history[0][0] == action_of(int(masks["player_0"].nonzero()[0][0]))

    roll = sushi_roll_v0.parallel_env(players=2)
    obs, _ = roll.reset(seed=3)
    mover = f"player_{roll.table.game.to_move}"
    waiter = next(a for a in roll.agents if a != mover)
    assert obs[waiter]["action_mask"].nonzero()[0].tolist() == [0]  # only wait
    _, _, _, _, infos = roll.step({mover: 0, waiter: 5})  # the mover cannot wait; waiter can only
    assert infos == {mover: {"illegal_action": True}, waiter: {"illegal_action": True}}
    assert roll.table.game.history[0][1].__class__.__name__ == "Take"


def test_rewards_win_is_zero_sum_and_score_adds_up_to_the_final_scores() -> None:
    for module, kwargs in ((sushi_go_v0, {"players": 4}), (sushi_roll_v0, {"players": 3})):
        for scheme in ("win", "score"):
            par = module.parallel_env(reward=scheme, **kwargs)
            obs, _ = par.reset(seed=11)
            totals = dict.fromkeys(par.agents, 0.0)
            rng = np.random.default_rng(0)
            while par.agents:
                actions = {
                    a: int(rng.choice(o["action_mask"].nonzero()[0])) for a, o in obs.items()
                }
                obs, rewards, _, _, _ = par.step(actions)
                for agent, reward in rewards.items():
                    totals[agent] += reward
            scores = par.table.scores()
            if scheme == "score":
                assert [totals[f"player_{s}"] for s in range(len(scores))] == list(scores)
            else:
                assert sum(totals.values()) == pytest.approx(0.0)
                best = max(totals.values())
                assert {a for a, r in totals.items() if r == best} == {
                    f"player_{s}" for s in par.table.winners()
                }


def test_render_ansi_shows_the_table() -> None:
    env = sushi_go_v0.env(players=2, dummy=True, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "round 1, turn 1" in text and "dummy" in text and "hand:" in text
    roll = sushi_roll_v0.parallel_env(players=2, render_mode="ansi")
    roll.reset(seed=2)
    assert "belt:" in roll.render() and "to move" in roll.render()
    assert sushi_go_v0.parallel_env().render() is None  # no render mode: a warning, no text


def test_bad_keyword_arguments_raise_clear_errors() -> None:
    with pytest.raises(OptionsError, match="dummy variant needs exactly 2 players"):
        sushi_go_v0.env(players=4, dummy=True)
    with pytest.raises(OptionsError, match="players must be"):
        sushi_roll_v0.parallel_env(players=7)
    with pytest.raises(ValueError, match="reward must be one of win, score"):
        sushi_go_v0.raw_env(reward="points")
    with pytest.raises(ValueError, match="max_cycles"):
        sushi_roll_v0.raw_env(max_cycles=0)
    with pytest.raises(ValueError, match="render_mode must be None, 'human' or 'ansi'"):
        sushi_go_v0.parallel_env(render_mode="rgb_array")
    with pytest.raises(TypeError):
        sushi_go_v0.raw_env(colour="red")  # type: ignore[call-arg]


def test_the_core_packages_do_not_need_numpy() -> None:
    code = (
        "import sys\n"
        "import sushigo.engine, sushigo.engine.games.sushi_roll, sushigo.protocol, sushigo.bots\n"
        "import sushigo.server.hub.core, sushigo.client.arena, sushigo.client.tui.app\n"
        "bad = [m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)

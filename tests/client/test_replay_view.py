"""The replay viewer's screen at 80x24, for both games, drawn from records played by the protocol
tests' helpers: what a person sees at a moment, the keys, and what a record that does not verify
looks like."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from games.plugins import install_rps, rps_entry_points
from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput
from sample_helpers import SERVER_KEY, play_record, play_roll_record
from tui_helpers import Output80x24

from sushigo.client.cli import main as client_main
from sushigo.client.replay import main as replay_main
from sushigo.client.tui.board import player_label
from sushigo.client.tui.layout import screen_text
from sushigo.client.tui.replay_state import Replay, open_record
from sushigo.client.tui.replay_view import ReplayScreen, build_replay_app
from sushigo.engine import GameOptions, games, rules
from sushigo.engine.games.sushi_roll import Reroll, Swap, Take
from sushigo.protocol import FairRecord, Opening, StepRecord, sign_record
from sushigo.protocol.records import public_key_bytes
from sushigo.server.replay import main as server_replay_main

SEEDS = tuple(bytes([i]) * 32 for i in range(0x22, 0x27))
NAMES = ("ann", "bob", "random-bot-1", "dee", "eve")
KEY = public_key_bytes(SERVER_KEY)


def cards(players: int = 3, seed: int = 3, **options: bool) -> FairRecord:
    options_ = GameOptions(players=players, **options)
    return play_record("t-view", options_, b"\x11" * 32, SEEDS[:players], seed)


def dice(players: int = 3, seed: int = 5) -> FairRecord:
    return play_roll_record("t-view", players, b"\x11" * 32, SEEDS[:players], seed)


def replay_of(record: FairRecord, key: bytes | None = KEY) -> Replay:
    return open_record(sign_record(record, SERVER_KEY), key, NAMES)


@contextmanager
def viewer(replay: Replay) -> Iterator[tuple[Application[int], PipeInput]]:
    with create_pipe_input() as keyboard:
        yield build_replay_app(replay, input=keyboard, output=Output80x24()), keyboard


def screen(replay: Replay) -> str:
    with viewer(replay) as (app, _):
        return screen_text(app, 80, 24)


def test_a_card_game_shows_every_hand_with_its_pick_and_every_tableau() -> None:
    replay = replay_of(cards())
    shown = screen(replay)
    lines = shown.split("\n")
    assert lines[0].startswith(" Replay · Sushi Go! round 1/3 · turn 1/9 · passing left →")
    assert lines[0].endswith("step 1/27")
    assert lines[1].startswith("verified ✓ the server's signature")
    game = replay.game
    for seat, name in enumerate(NAMES[:3]):
        (action, _), hand = replay.picks()[seat], game.observation(seat).hand
        head = next(line for line in lines if line.startswith(f" {player_label(name)}"))
        assert "0pt" in head and "picks" in head
        # The hand follows the seat's line, with the picked card bracketed in it.
        hand_line = lines[lines.index(head) + 1]
        assert hand_line.startswith("   hand  ")
        assert hand_line.count("[") == 1 and len(hand_line.split()) == 1 + len(hand)
        assert lines[lines.index(head) + 2] == "   table (nothing yet)"
        assert action.first.name.lower()[:3] in hand_line.split("[")[1]
    assert "←→ step · Home/End first/last · ↑↓ PgUp/PgDn round · q quit" in lines[-1]
    assert len(lines) == 24


def test_a_later_turn_shows_the_tableaus_and_what_the_last_turn_did() -> None:
    replay = replay_of(cards())
    replay.go(3)
    shown = screen(replay)
    assert "turn 4/9" in shown and "step 4/27" in shown
    assert "(nothing yet)" not in shown  # three cards on every tableau
    before = next(line for line in shown.split("\n") if line.startswith("before: "))
    assert before.startswith("before: R1T3 ann:") and " bob:" in before


def test_a_new_round_says_the_last_ones_scores_and_the_deal() -> None:
    replay = replay_of(cards())
    replay.next_round()
    shown = screen(replay)
    assert "round 2/3 · turn 1/9" in shown
    assert "round 1 scored: ann " in shown and "round 2: 9 cards each" in shown


def test_the_end_shows_who_won_and_the_final_table() -> None:
    replay = replay_of(cards())
    replay.end()
    shown = screen(replay)
    game = replay.game
    winner = NAMES[game.winners()[0]]
    assert "game over · end" in shown.split("\n")[0]
    assert f"Game over · {winner} wins" in shown
    assert "maki temp sash dump nigi  pud total  place" in shown
    row = next(line for line in shown.split("\n") if line.startswith(winner))
    assert row.endswith("1 ★") and str(game.scores()[game.winners()[0]]) in row


def test_the_dummy_variant_shows_the_dummy_and_its_card() -> None:
    replay = replay_of(cards(2, seed=4, dummy=True))
    shown = screen(replay)
    assert "(D)" in shown and " dummy:" in shown
    assert any(line.startswith(" dummy") and "table" in line for line in shown.split("\n"))
    controller = next(line for line in shown.split("\n") if "(D)" in line)
    assert "dummy:" in controller
    hand = shown.split("\n")[shown.split("\n").index(controller) + 1]
    assert hand.count("[") == 2  # our card and the dummy's


def test_sushi_roll_shows_the_belts_from_the_movers_seat_with_its_action_marked() -> None:
    replay = replay_of(dice())
    seen: set[type] = set()
    for k in range(replay.last):
        replay.go(k)
        (mover, (action, _)), *_ = replay.picks().items()
        if type(action) in seen:
            continue
        seen.add(type(action))
        shown = screen(replay)
        lines = shown.split("\n")
        assert "Sushi Roll round" in lines[0] and "cycle" in lines[0]
        assert "every action and die" in lines[1]
        mover_line = next(line for line in lines if line.startswith(f"▸{NAMES[mover]}"))
        assert "moving" in mover_line
        said = next(line for line in lines if line.startswith(f" {NAMES[mover]} "))
        if isinstance(action, Reroll):
            assert said.startswith(f" {NAMES[mover]} re-rolls ")
            assert shown.count("[x]") == len(action.dice)
        elif isinstance(action, Swap):
            assert (
                said.startswith(f" {NAMES[mover]} swaps ")
                and f"{player_label(NAMES[action.other_seat])}'s" in said
            )
            assert shown.count("[S]") == 1
        else:
            assert isinstance(action, Take) and said.startswith(f" {NAMES[mover]} takes ")
    assert seen == {Reroll, Swap, Take}


def test_sushi_roll_says_what_the_last_action_did_and_who_took_what_this_cycle() -> None:
    replay = replay_of(dice())
    take = next(
        k for k, step in enumerate(replay.record.steps) if type(step.openings[0].action) is Take
    )
    replay.go(take + 1)
    shown = screen(replay)
    assert "before: R1C1 " in shown and " took " in shown
    taker = NAMES[replay.record.steps[take].seats[0]]
    row = next(line for line in shown.split("\n") if line.startswith(f" {taker}"))
    assert "took " in row


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("make", [cards, dice], ids=["sushi-go", "sushi-roll"])
def test_every_moment_fits_80x24_with_every_seat_on_it(players: int, make: object) -> None:
    replay = replay_of(make(players))  # type: ignore[operator]
    with viewer(replay) as (app, _):
        for k in range(replay.last + 1):
            replay.go(k)
            shown = screen_text(app, 80, 24)
            lines = shown.split("\n")
            assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
            assert lines[-1].startswith(" ←→ step")
            names = [player_label(name) for name in NAMES[:players]]  # as the screens show them
            if not replay.at_end:
                assert all(f" {n[:12]}" in shown or f"▸{n[:12]}" in shown for n in names), shown
            else:
                assert all(line in shown for line in ("Game over", *names))


def test_a_record_that_does_not_verify_says_so_loudly() -> None:
    other = Ed25519PrivateKey.generate()
    replay = open_record(sign_record(cards(), other), KEY, NAMES)
    shown = screen(replay)
    assert "!!! NOT VERIFIED: signature: " in shown
    record = cards()
    steps = list(record.steps)
    steps[2] = dataclasses.replace(steps[2], commitments=(bytes(32), *steps[2].commitments[1:]))
    forged = replay_of(dataclasses.replace(record, steps=tuple(steps)))
    shown = screen(forged)
    said = " ".join(shown.split("\n")[1:3])
    assert said.startswith("!!! NOT VERIFIED: step 3 (round 1, turn 3), seat 0: the opening does")
    assert said.rstrip().endswith("not match the commitment !!!")


@pytest.mark.parametrize("key", [KEY, None], ids=["pinned", "unpinned"])
@pytest.mark.parametrize("make", [cards, dice], ids=["sushi-go", "sushi-roll"])
def test_the_verdict_fits_on_its_line(make: object, key: bytes | None) -> None:
    replay = replay_of(make(), key)  # type: ignore[operator]
    assert len("".join(text for _, text, *_ in ReplayScreen(replay).verdict_text())) < 80


def test_a_record_checked_against_its_own_key_says_it_is_not_pinned() -> None:
    shown = screen(replay_of(cards(), key=None))
    assert f"verified ✓ signature (key {KEY[:4].hex()}…, unpinned) · seeds · commitments" in shown


class Output60x20(DummyOutput):
    def get_size(self) -> Size:
        return Size(rows=20, columns=60)


def test_a_terminal_too_small_gets_a_message_instead() -> None:
    with create_pipe_input() as keyboard:
        app = build_replay_app(replay_of(cards()), input=keyboard, output=Output60x20())
        shown = screen_text(app, 60, 20)
    assert "The terminal is too small for the replay" in shown
    assert "It is 60x20: the replay needs at least 80x24." in shown
    assert "hand" not in shown


async def test_the_keys_step_jump_and_leave() -> None:
    replay = replay_of(cards())
    with viewer(replay) as (app, keyboard):
        run = asyncio.ensure_future(app.run_async())
        # → → ← : step 1; End; Home; ↓ ↓ : round 3's first turn; ↑ : round 2's; q leaves.
        keyboard.send_text("\x1b[C\x1b[C\x1b[D")
        keyboard.send_text("\x1b[F\x1b[H")
        keyboard.send_text("\x1b[B\x1b[B\x1b[A")
        keyboard.send_text("q")
        assert await asyncio.wait_for(run, 10) == 0
    assert replay.index == replay._round_start(replay.index)
    assert replay.round_at(replay.index) == 2


async def test_leaving_a_record_that_does_not_verify_ends_with_1() -> None:
    other = Ed25519PrivateKey.generate()
    replay = open_record(sign_record(cards(), other), KEY, NAMES)
    with viewer(replay) as (app, keyboard):
        run = asyncio.ensure_future(app.run_async())
        keyboard.send_text("\x1b")  # Esc
        assert await asyncio.wait_for(run, 10) == 1


# -- the commands' refusals (the screens themselves: test_replay_terminal.py) -----------------


def test_the_commands_refuse_what_they_cannot_show_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert client_main(["--replay", str(tmp_path / "missing.rec")]) == 1
    assert capsys.readouterr().err == (
        f"sushigo-client: error: cannot read {tmp_path / 'missing.rec'}: No such file or directory\n"
    )
    junk = tmp_path / "junk.rec"
    junk.write_bytes(b"\x93\x01\x02\x03")
    assert replay_main([str(junk)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sushigo-replay: error: ") and err.count("\n") == 1
    assert "junk.rec is not an exported sushigo record" in err
    assert client_main([]) == 2
    assert "give the server's HOST:PORT (or --replay FILE)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        replay_main(["--key", "abc", str(junk)])
    assert exited.value.code == 2
    with pytest.raises(SystemExit) as exited:
        server_replay_main(["--view"])
    assert exited.value.code == 2
    assert "--view needs a game id" in capsys.readouterr().err


@contextmanager
def _rps_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **parts: str | None
) -> Iterator[Replay]:
    """A game of rock-paper-scissors (a win each and a draw) in the viewer, the game installed
    with its parts (`rps_entry_points`) while it lasts."""
    install_rps(tmp_path, monkeypatch, rps_entry_points(**parts))
    game_rules = rules("rps")
    options = game_rules.options(2)
    throws = [("rock", "paper"), ("paper", "paper"), ("scissors", "paper")]
    steps = tuple(
        StepRecord(
            round=r,
            turn=1,
            seats=(0, 1),
            commitments=(bytes(32), bytes(32)),
            openings=tuple(
                Opening(action=game_rules.action_from_data(t), nonce=bytes(32)) for t in pair
            ),
        )
        for r, pair in enumerate(throws, 1)
    )
    record = FairRecord(
        game="rps",
        table_id="t-rps",
        options=options,
        server_seed=bytes(32),
        server_seed_hash=bytes(32),
        client_seeds=(bytes(32), bytes(32)),
        steps=steps,
        scores=(1, 1),
    )
    try:
        yield Replay(record, game_rules, ("ann", "bob"))
    finally:
        games.refresh()


def test_a_game_without_a_drawer_of_its_own_is_shown_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rock-paper-scissors (tests/games/rps/), installed by its entry points without its terminal
    part: each seat's throw in the rules' words, the score, and at the end who won."""
    with _rps_replay(tmp_path, monkeypatch, tui=None) as replay:
        shown = screen(replay)
        assert "Replay · Rock-paper-scissors round 1 · turn 1 · step 1/3" in shown
        assert " ann              0pt  picks rock" in shown
        assert " bob              0pt  picks paper" in shown
        replay.go(1)
        assert " bob              1pt  picks paper" in screen(replay)
        replay.end()
        shown = screen(replay)
        assert "Game over · ann and bob share the win" in shown and "total  place" in shown
        assert [line for line in shown.split("\n") if line.endswith("1 ★")] == [
            "ann               1    1 ★",
            "bob               1    1 ★",
        ]


def test_a_plug_in_game_brings_its_own_drawer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rock-paper-scissors with its terminal part: its drawer shows each throw with its sign and
    says who won the round, found through the terminal client's door like a built-in game's."""
    with _rps_replay(tmp_path, monkeypatch) as replay:
        shown = screen(replay)
        assert "Replay · Rock-paper-scissors round 1 of 3 · step 1/3" in shown
        assert "picks ✊ rock" in shown and "picks ✋ paper" in shown
        replay.go(1)
        shown = screen(replay)
        assert "bob wins round 1: paper beats rock" in shown
        assert " bob              1pt  picks ✋ paper" in shown
        replay.go(2)
        assert "round 2: a draw" in screen(replay)
        replay.end()
        shown = screen(replay)
        assert "ann wins round 3: scissors beats paper" in shown
        assert "Game over · ann and bob share the win" in shown

"""The client's record check after a step played again (its server went down after COMMITMENTS,
nothing revealed, and the step was played again from the last stored one): a seat auto-picked
there, whose player was away past the deadline, may have had another commitment shown before;
any other slot must be the one shown. A real game on a real server (bob lets one turn's timer
run out, so its record holds an auto-pick), then ann's checks of it as they would stand had she
seen that step's commitments on the node that went down and not its result."""

from __future__ import annotations

import copy
import os
from pathlib import Path

from processes import ServerProcess
from server_helpers import card_settings
from socket_helpers import play

from sushigo.client.checks import GameChecks
from sushigo.client.connection import Client
from sushigo.protocol import GameEnded, TurnResult, TurnStart, verify_signed_record


def recheck(
    checks: GameChecks, ended: GameEnded, key: bytes, position: tuple[int, int], slot: int
) -> GameChecks:
    """`checks` as they would stand after COMMITMENTS of `position` showing another commitment
    in `slot`, with that step's result never seen: GAME_OVER checked again."""
    again = copy.deepcopy(checks)
    again.fairness.failures.clear()
    again.results.pop(position, None)
    shown = list(again.commitments[position])
    shown[slot] = os.urandom(32)
    again.commitments[position] = tuple(shown)
    again.finished(ended, key)
    return again


async def test_a_seat_auto_picked_in_a_step_played_again_passes_the_record_check(
    tmp_path: Path,
) -> None:
    server = ServerProcess(tmp_path / "server.db")
    port = await server.start()
    ann = await Client.connect("127.0.0.1", port, name="ann")
    bob = await Client.connect("127.0.0.1", port, name="bob")
    try:
        joined = await ann.create_table(card_settings(2, turn_seconds=1))
        await bob.join_table(joined.table.table_id)
        ann.start_game()
        await bob.wait_for(TurnStart, 10)
        await ann.wait_for(TurnStart, 10)
        ann.pick(ann.observation.legal_actions()[0])  # bob lets the timer pick for him
        result = await ann.wait_for(TurnResult, 10)
        assert result.openings[1].auto
        played = await play(ann, timeout=60)
    finally:
        await ann.close()
        await bob.close()
        await server.stop()
    checks = ann._checks
    assert checks is not None and checks.fairness.final == "verified"
    key = ann.server_key
    record = verify_signed_record(played.ended.record, key)
    step = record.steps[0]
    assert step.commitments[1] is None and step.openings[1].auto
    position = (step.round, step.turn)

    again = recheck(checks, played.ended, key, position, slot=1)
    assert again.fairness.failures == [] and again.fairness.final == "verified"
    # Any other slot must be the one shown.
    ours = recheck(checks, played.ended, key, position, slot=0)
    assert any("commitments differ from those shown" in f for f in ours.fairness.failures)
    # A step whose result we saw: nothing may differ from what was shown.
    seen = copy.deepcopy(checks)
    seen.fairness.failures.clear()
    seen.commitments[position] = (step.commitments[0], os.urandom(32))
    seen.finished(played.ended, key)
    assert any("commitments differ from those shown" in f for f in seen.fairness.failures)

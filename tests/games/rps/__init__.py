"""Rock-paper-scissors over three rounds: a third game, written only against the public game
interface of every layer, to prove it is one (docs/ARCHITECTURE.md, "Adding a game").

It has the shape of a built-in game, a part per layer (`engine`: ``RULES``; `protocol`: ``WIRE``;
`bots`: ``STRATEGIES``, ``LEVELS``, ``DEFAULT``; `tui`: ``REPLAY_DRAWER``), installed as a plug-in
by one entry point per layer, each named ``rps`` (`tests/games/plugins.py`): nothing in the
project knows it.
"""

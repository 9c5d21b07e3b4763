"""Sushi Roll's wire: how its actions, observations and events travel (`wire.ROLL_WIRE`)."""

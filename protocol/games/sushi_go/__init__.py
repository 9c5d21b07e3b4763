"""Sushi Go!'s wire: how its actions, observations and events travel (`wire.CARD_WIRE`)."""

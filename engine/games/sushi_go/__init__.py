"""Sushi Go!, the card game's rules: cards, actions, legal sets, scoring, observations, events
and the game (`rules.SUSHI_GO`). `sushigo.engine` re-exports its public names."""

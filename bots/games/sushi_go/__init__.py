"""Sushi Go!'s strategies and what they share (card values, a seat's memory, rollouts, the
learned bot's search) and the learned network's weights (`learned_go.npz`). The strategies are
imported when first named (`_cards.CARD_BUILTIN`), so this package re-exports nothing."""

"""Sushi Go! in the terminal client: how cards look (`cards`), the board's state
(`card_state`) and its drawing (`card_board`)."""

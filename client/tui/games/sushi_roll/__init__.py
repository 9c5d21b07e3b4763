"""Sushi Roll in the terminal client: how dice look (`dice`), a turn's keys (`roll`), the
board's state (`roll_state`) and its drawing (`roll_board`)."""

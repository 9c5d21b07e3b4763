"""The built-in games' boards in the terminal client, one folder a game (`board.board_class`
finds them by kind)."""

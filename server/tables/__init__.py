"""The table driver: seats, commit-reveal steps, timers, phases, a table saved as bytes, and the
games it plays by kind (`games`). It knows no particular game and never imports the hub or the
sessions."""

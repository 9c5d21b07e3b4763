"""The client side: connection API, terminal UI, bot runner, arena, and TLS pinning."""

"""The built-in games' own strategies, one folder a game. What every game shares (the strategy
interface, the registry, levels, the learned network's loader) is at `bots`' top."""

"""Finding strategies by game and name: the built-ins, a plug-in game's, or a user's class from a
file or a module.

Every game has its own table of built-in strategies, its ``STRATEGIES``, found through the bots'
door by the game's kind (`bots._door`: a built-in game's folder, `bots.games.sushi_go` and
`bots.games.sushi_roll`, or a plug-in's module in the entry point group ``sushigo.bots``). A spec
is ``NAME``, ``path/to/file.py:ClassName`` or ``package.module:ClassName``, optionally followed by
constructor arguments as ``@key=value`` (``ismcts@ms=100``,
``bots/mine.py:MyBot@depth=2@greedy=true``). Values are read as int, float,
true/false, or else kept as text.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ._base import Strategy, StrategyError, StrategyFactory
from ._door import DOOR, part
from ._levels import level_spec

DEFAULT_BOT = "heuristic"
"""The strategy behind "default" at a game that names none (its ``DEFAULT``): server bots,
auto-picks and seats of players who left (a game without a strategy of that name gets its first
built-in one)."""


def builtins(game: str) -> Mapping[str, Callable[..., Any]]:
    """The built-in strategies of the game `game` (its ``STRATEGIES``, loaded the first time);
    `StrategyError` when the game has none installed."""
    found = getattr(part(game), "STRATEGIES", None)
    if not isinstance(found, Mapping):
        raise StrategyError(
            f"no strategies for the game {game!r} (installed: {', '.join(DOOR.kinds())})"
        )
    return found


def default_strategy(game: str) -> str:
    """The name of the strategy behind ``default`` at `game` (see `DEFAULT_BOT`); empty when the
    game has no strategies."""
    names = builtin_names(game)
    named = getattr(part(game), "DEFAULT", None) if names else None
    if isinstance(named, str) and (named in names or level_spec(named, game) is not None):
        return named
    return DEFAULT_BOT if DEFAULT_BOT in names else (names[0] if names else "")


def builtin_names(game: str) -> tuple[str, ...]:
    """The names of the game's built-in strategies (empty when it has none installed)."""
    try:
        return tuple(builtins(game))
    except StrategyError:
        return ()


def get_strategy(spec: str, *, game: str) -> Strategy:
    """A new strategy instance from a name or spec (see the module docstring), for the game
    `game` (its kind: the built-in names are that game's).

    Raises `StrategyError` with a one-line reason: unknown name, missing file or module, no such
    class, a class without ``choose``, or constructor arguments it does not take.
    """
    return strategy_factory(spec, game=game)()


def strategy_factory(
    spec: str, *, game: str, clock: Callable[[], float] | None = None
) -> StrategyFactory:
    """A function that makes a new instance of the strategy `spec` names, checked once here.

    `clock` (seconds, e.g. `time.perf_counter`) is passed to strategies whose constructor takes a
    `clock` argument, for time budgets: strategies never read a clock of their own. `game` is the
    game's kind, as in `get_strategy`.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise StrategyError("a strategy spec must be a non-empty string")
    target, *options = spec.strip().split("@")
    level = level_spec(target, game) if isinstance(game, str) else None
    if level is not None and target not in builtins(game):
        # A level ("hard") is its strategy's spec; options given with it come after the level's.
        target, *preset = level.split("@")
        options = [*preset, *options]
    kwargs = dict(_option(spec, option) for option in options)
    cls = _resolve(target, builtins(game))
    if clock is not None and "clock" not in kwargs and _takes(cls, "clock"):
        kwargs["clock"] = clock

    def make() -> Strategy:
        try:
            instance = cls(**kwargs)
        except TypeError as exc:
            raise StrategyError(f"cannot build strategy {spec!r}: {exc}") from None
        except StrategyError:
            raise
        except Exception as exc:
            raise StrategyError(
                f"strategy {spec!r} failed to start: {type(exc).__name__}: {exc}"
            ) from None
        if not callable(getattr(instance, "choose", None)):
            raise StrategyError(f"{spec!r} has no choose(observation, legal, rng) method")
        return instance  # type: ignore[no-any-return]

    make()  # fail now, with the spec in the message, rather than in the middle of a game
    return make


def _takes(cls: Callable[..., Any], name: str) -> bool:
    if type(cls) is type and not any(
        "__init__" in vars(k) or "__new__" in vars(k) for k in cls.__mro__[:-1]
    ):
        # A class that takes no arguments (`random`): `inspect.signature` would parse object's
        # signature from its text, 4 ms of a command's start-up.
        return False
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _option(spec: str, option: str) -> tuple[str, Any]:
    key, sep, text = option.partition("=")
    if not sep or not key.isidentifier():
        raise StrategyError(f"bad option {option!r} in {spec!r}: expected @key=value")
    value: Any = text
    if text.lower() in ("true", "false"):
        value = text.lower() == "true"
    else:
        for kind in (int, float):
            try:
                value = kind(text)
                break
            except ValueError:
                pass
    return key, value


def _resolve(target: str, builtins: Mapping[str, Callable[..., Any]]) -> Callable[..., Any]:
    if ":" not in target:
        if target in builtins:
            return builtins[target]
        raise StrategyError(
            f"unknown strategy {target!r}: use one of {', '.join(builtins)}, "
            "path/to/file.py:ClassName or module:ClassName"
        )
    where, _, name = target.rpartition(":")
    if not where or not name.isidentifier():
        raise StrategyError(
            f"bad strategy spec {target!r}: expected file.py:ClassName or module:ClassName"
        )
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _load_file(Path(where))
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise StrategyError(f"cannot import module {where!r}: {exc}") from None
        except Exception as exc:
            raise StrategyError(
                f"module {where!r} failed to load: {type(exc).__name__}: {exc}"
            ) from None
    cls = getattr(module, name, None)
    if cls is None:
        raise StrategyError(f"{where!r} has no {name!r}")
    if not callable(cls):
        raise StrategyError(f"{where}:{name} is not a class")
    if not callable(getattr(cls, "choose", None)):
        raise StrategyError(f"{where}:{name} has no choose(observation, legal, rng) method")
    return cls  # type: ignore[no-any-return]


def _load_file(path: Path) -> Any:
    if not path.is_file():
        raise StrategyError(f"no strategy file {str(path)!r}")
    # A stable module name per file, so worker processes and pickling see the same module.
    name = "sushigo_user_" + "".join(ch if ch.isalnum() else "_" for ch in str(path.resolve()))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise StrategyError(f"cannot load {str(path)!r} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise StrategyError(f"{str(path)!r} failed to load: {type(exc).__name__}: {exc}") from None
    return module

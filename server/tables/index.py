"""Every table of the server by id, with a count of the changes the lobby shows."""

from __future__ import annotations

from typing import Any, overload

from .table import Table


class Tables(dict[str, Table]):
    """Every table of the server by id, counting each change to the set or to what a table
    shows in the lobby (`changed`): the pages built before a change are not sent again."""

    def __init__(self) -> None:
        super().__init__()
        self.version = 0

    def changed(self) -> None:
        """What a table shows in the lobby changed (a seat, its status, its spectators)."""
        self.version += 1

    def __setitem__(self, key: str, value: Table) -> None:
        self.version += 1
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.version += 1
        super().__delitem__(key)

    @overload
    def pop(self, key: str, /) -> Table: ...

    @overload
    def pop(self, key: str, default: Any, /) -> Any: ...

    def pop(self, key: str, *default: Any) -> Any:
        self.version += 1
        return super().pop(key, *default)

    def clear(self) -> None:
        self.version += 1
        super().clear()

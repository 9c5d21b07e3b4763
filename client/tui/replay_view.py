"""The replay viewer on screen: a finished game, full screen, a step at a time.

One widget function per part, each drawing from the `Replay` alone (as `layout` does for the
game): the header (the game, where the moment stands, the step's number), the verdict (verified,
or every problem loudly), every seat at that moment and what it chose (the game's drawer,
`replay_draw`), what the step before did, and the keys. ← → step, Home/End go to either end,
↑ ↓ (or PgUp/PgDn) a round, q or Esc leaves.

The same screen runs on its own (`run_replay`: `sushigo-replay --view`, `sushigo-client
--replay FILE`) and inside the terminal client's lobby ("my recent games", where Esc goes back
to the list): `replay_container` and `replay_bindings` are the parts both use. Below 80x24 the
screen says how large the terminal must be instead of drawing a broken one.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.containers import AnyContainer
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.output import Output

from sushigo.protocol.about import INTERRUPTED

from .board import Fragments
from .games import drawer_for
from .replay_draw import ReplayDrawer
from .replay_state import Replay
from .style import MIN_COLUMNS, MIN_ROWS, STYLE, too_small

__all__ = [
    "ReplayScreen",
    "build_replay_app",
    "replay_bindings",
    "replay_container",
    "run_replay",
]


class ReplayScreen:
    """A replay and its game's drawer: what the viewer's widgets draw from."""

    def __init__(self, replay: Replay, *, back: str = "quit") -> None:
        self.replay = replay
        self.drawer: ReplayDrawer = drawer_for(replay)
        self.back = back
        """What q and Esc do, in the keys line ("quit", or "back" in the lobby)."""

    # -- widgets ----------------------------------------------------------------------------------

    def header_text(self) -> Fragments:
        """The game, where the moment stands, and the step's number."""
        replay = self.replay
        total = len(replay.record.steps)
        count = "end" if replay.at_end else f"step {replay.index + 1}/{total}"
        title = replay.rules.title
        return [
            ("class:header", f" Replay · {title} "),
            ("class:title", f"{self.drawer.where()} · {count}"),
        ]

    def verdict_text(self) -> Fragments:
        """Verified, or the problems, loudly (the first in full, the rest counted)."""
        replay = self.replay
        if not replay.ok:
            more = len(replay.problems) - 1
            tail = f" (and {more} more)" if more else ""
            said = f"!!! NOT VERIFIED: {replay.problems[0]}{tail} !!!"
            return [("class:fair.fail", textwrap.fill(said, MIN_COLUMNS - 1))]
        secret = replay.rules.secret
        if replay.pinned:
            signature = "the server's signature"
            what = "every commitment" if secret else "every action and die"
        else:  # the key the record names: say which, and that nothing vouches for it
            signature = f"signature (key {replay.key[:4].hex()}…, unpinned)"
            what = "commitments" if secret else "actions, dice"
        return [("class:fair.ok", f"verified ✓ {signature} · seeds · {what} · scores")]

    def seats_text(self) -> Fragments:
        """Every seat at this moment; at the end, who won and the final table."""
        if self.replay.at_end and self.replay.complete:
            return self.drawer.summary()
        return self.drawer.seats()

    def happened_text(self) -> Fragments:
        """What the step that led here did."""
        lines = self.drawer.happened()
        if not lines:
            return []
        return [("class:dim", "before: " if self.replay.index else "setup: "), *lines]

    def keys_text(self) -> Fragments:
        back = "q/Esc back to the list" if self.back == "back" else "q quit"
        keys = f"←→ step · Home/End first/last · ↑↓ PgUp/PgDn round · {back}"
        return [("class:keys", " " + keys)]


def _too_small_text() -> Fragments:
    size = get_app().output.get_size()
    return [
        ("class:title", "The terminal is too small for the replay\n\n"),
        ("", f"It is {size.columns}x{size.rows}: the replay needs at least "),
        ("", f"{MIN_COLUMNS}x{MIN_ROWS}.\nMake the window larger, or press q to leave."),
    ]


def _window(text: Callable[[], Fragments], **kw: object) -> Window:
    return Window(FormattedTextControl(text), always_hide_cursor=True, **kw)  # type: ignore[arg-type]


def replay_container(screen: Callable[[], ReplayScreen | None]) -> AnyContainer:
    """The viewer's screen for whichever replay `screen()` gives (nothing while it gives None)."""

    def part(draw: Callable[[ReplayScreen], Fragments]) -> Callable[[], Fragments]:
        def text() -> Fragments:
            shown = screen()
            return draw(shown) if shown is not None else []

        return text

    fits = Condition(lambda: not too_small())
    body = HSplit(
        [
            _window(part(ReplayScreen.header_text), height=1, style="class:header"),
            # A problem is said in full, on as many lines as it takes (up to three).
            _window(part(ReplayScreen.verdict_text), wrap_lines=True, height=D(min=1, max=3)),
            _window(part(ReplayScreen.seats_text), wrap_lines=True, dont_extend_height=True),
            Window(height=1, char="─", style="class:dim"),
            _window(part(ReplayScreen.happened_text), wrap_lines=True, height=D(max=5)),
            Window(),
            _window(part(ReplayScreen.keys_text), height=1),
        ]
    )
    return HSplit(
        [
            ConditionalContainer(body, fits),
            ConditionalContainer(_window(_too_small_text, wrap_lines=True), ~fits),
        ]
    )


def replay_bindings(
    screen: Callable[[], ReplayScreen | None],
    active: Filter,
    leave: Callable[[KeyPressEvent], None],
    notify: Callable[[], None] = lambda: None,
) -> KeyBindings:
    """The viewer's keys, working under `active`; q and Esc call `leave`."""
    kb = KeyBindings()
    moves: list[tuple[tuple[str, ...], Callable[[Replay], bool]]] = [
        (("right", "l", "space"), Replay.next),
        (("left", "h", "backspace"), Replay.previous),
        (("home", "g"), Replay.home),
        (("end", "G"), Replay.end),
        (("down", "pagedown", "j", "]"), Replay.next_round),
        (("up", "pageup", "k", "["), Replay.previous_round),
    ]
    for keys, move in moves:

        def handler(event: KeyPressEvent, move: Callable[[Replay], bool] = move) -> None:
            shown = screen()
            if shown is not None and move(shown.replay):
                notify()

        for key in keys:
            kb.add(key, filter=active)(handler)

    @kb.add("q", filter=active)
    @kb.add("escape", filter=active, eager=True)
    def _leave(event: KeyPressEvent) -> None:
        leave(event)

    return kb


def build_replay_app(
    replay: Replay, *, input: Input | None = None, output: Output | None = None
) -> Application[int]:
    """The viewer on its own, full screen; it ends with 0 when the record verified, else 1 (the
    exit codes of `sushigo-replay`)."""
    screen = ReplayScreen(replay)
    code = 0 if replay.ok else 1

    def leave(event: KeyPressEvent) -> None:
        event.app.exit(result=code)

    always = Condition(lambda: True)
    kb = replay_bindings(lambda: screen, always, leave)
    extra = KeyBindings()

    @extra.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(result=INTERRUPTED)

    @extra.add("c-l")
    def _redraw(event: KeyPressEvent) -> None:
        event.app.renderer.clear()

    app: Application[int] = Application(
        layout=Layout(replay_container(lambda: screen)),
        key_bindings=merge_key_bindings([kb, extra]),
        style=STYLE,
        full_screen=True,
        mouse_support=False,
        input=input,
        output=output,
    )
    app.ttimeoutlen = 0.05
    return app


def run_replay(replay: Replay) -> int:
    """Show `replay` until the person leaves; the exit code (0: the record verified)."""
    result = build_replay_app(replay).run()
    return 0 if result is None else result

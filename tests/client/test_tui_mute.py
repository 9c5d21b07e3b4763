"""Chat in the terminal client: a player muted here (/mute NAME) has their lines hidden, for this
client only; announcements from the server's operators; and a kick or ban ends the session for
good (no reconnecting by itself)."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tui_helpers import local_server, running_app

from sushigo.client.connection import Client
from sushigo.client.tui import AppState
from sushigo.protocol import AdminAnnounce, AdminBan, AdminKick, Announcement, ChatMessage
from sushigo.protocol.identity import player_id_for_key

BOB = "g:" + "b" * 16


def said(name: str, text: str, player_id: str | None = None) -> ChatMessage:
    return ChatMessage(player_id=player_id or f"g:{name[0] * 16}", name=name, text=text)


def lines(state: AppState) -> list[str]:
    return ["".join(text for _, text, *_ in line) for line in state.chat]


def test_a_muted_player_s_lines_are_hidden_here_past_and_future() -> None:
    state = AppState()
    state.apply(said("ann", "hi"))
    state.apply(said("bob", "buy gold", BOB))
    assert state.chat_command("/mute BOB")  # names compare as the server's do
    assert "muted BOB" in state.status
    assert lines(state) == ["ann: hi"]
    state.apply(said("bob", "cheap gold", BOB))
    state.apply(said("bobby", "same player, new name", BOB))
    state.apply(said("ann", "so quiet"))
    assert lines(state) == ["ann: hi", "ann: so quiet"]
    assert state.chat_command("/muted") and state.status == "muted here: BOB"
    assert state.chat_command("/unmute bob") and state.status == "unmuted bob"
    assert lines(state) == [
        "ann: hi",
        "bob: buy gold",
        "bob: cheap gold",
        "bobby: same player, new name",
        "ann: so quiet",
    ]


def test_a_name_not_seen_yet_is_muted_by_name_then_by_id() -> None:
    state = AppState()
    assert state.chat_command("/mute cat")
    state.apply(said("cat", "meow", "g:" + "c" * 16))
    state.apply(said("kitty", "renamed", "g:" + "c" * 16))
    assert lines(state) == []


def test_chat_commands_are_never_sent_and_plain_chat_is() -> None:
    state = AppState()
    assert not state.chat_command("hello /mute")
    assert state.chat_command("/shrug")
    assert "unknown chat command '/shrug'" in state.status and "/mute NAME" in state.status
    assert state.chat_command("/mute") and "unknown chat command" in state.status
    assert state.chat_command("/unmute dan") and state.status == "dan is not muted"


def test_announcements_are_shown_and_never_muted() -> None:
    state = AppState()
    state.apply(Announcement(text="restart at noon", by="root"))
    assert state.status == "announcement from root: restart at noon"
    assert state.chat_command("/mute root")
    assert lines(state) == ["announcement from root: restart at noon"]


async def test_mute_typed_in_the_chat_line_hides_a_player_and_tells_the_server_nothing(
    tmp_path: Path,
) -> None:
    async with local_server(tmp_path) as address:
        other = await Client.connect(*address, name="loud", timeout=5.0)
        try:
            async with running_app(address, None, name="quiet") as ui:
                other.chat("first")
                await ui.wait(lambda: "loud: first" in lines(ui.state), "the first line")
                ui.keys("c")
                await ui.wait(lambda: ui.state.chatting, "the chat line")
                ui.keys("/mute loud\r")
                await ui.wait(lambda: "muted loud" in ui.state.status, "the mute")
                assert lines(ui.state) == []
                other.chat("second")
                ui.client.chat("still here")  # our own line comes back after theirs
                await ui.wait(lambda: "quiet: still here" in lines(ui.state), "our line")
                assert lines(ui.state) == ["quiet: still here"]
                assert "second" not in ui.screen()
                heard = [(await other.wait_for(ChatMessage, 5)).text for _ in range(3)]
                assert heard == ["first", "second", "still here"]  # no "/mute loud" among them
        finally:
            await other.close()


async def test_a_kicked_player_is_told_and_does_not_come_back_by_itself(tmp_path: Path) -> None:
    root_key = Ed25519PrivateKey.generate()
    root_raw = root_key.public_key().public_bytes_raw()
    async with local_server(tmp_path, admins=[root_raw]) as address:
        root = await Client.connect(*address, name="root", key=root_key, timeout=5.0)
        try:
            async with running_app(address, None, name="rowdy") as ui:
                await root.request(lambda ref: AdminAnnounce(ref=ref, text="be nice"))
                await ui.wait(lambda: "be nice" in ui.state.status, "the announcement")
                player = ui.client.player_id
                await root.request(lambda ref: AdminKick(ref=ref, target=player, reason="rude"))
                await ui.wait(lambda: "press q to quit" in ui.state.status, "the kick")
                assert "an admin ended your session: rude" in ui.state.status
                assert ui.state.reconnects == 0 and not ui.client.connected
        finally:
            await root.close()


async def test_a_banned_player_is_told_and_does_not_come_back_by_itself(tmp_path: Path) -> None:
    root_key, key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    root_raw = root_key.public_key().public_bytes_raw()
    async with local_server(tmp_path, admins=[root_raw]) as address:
        root = await Client.connect(*address, name="root", key=root_key, timeout=5.0)
        try:
            async with running_app(address, None, name="cheat", key=key) as ui:
                target = player_id_for_key(key.public_key().public_bytes_raw())
                await root.request(lambda ref: AdminBan(ref=ref, target=target, reason="bots"))
                await ui.wait(lambda: "press q to quit" in ui.state.status, "the ban")
                assert "you are banned from this server (bots)" in ui.state.status
                assert ui.state.reconnects == 0
        finally:
            await root.close()

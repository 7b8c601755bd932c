"""`arena tokens add` on Windows, simulated on Linux (`tests/windows_simulation.py`): without
``fcntl`` the tokens file is guarded by msvcrt's lock (or refused with one clear line when
another holder keeps it), written with the same bytes as elsewhere, and put in place though a
reader holds the old one for a moment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.server.auth import TokenFileError, TokenStore, add_token
from tests.windows_simulation import (
    simulate_a_reader_holding_the_target,
    simulate_windows_locks,
    simulate_windows_newlines,
)


def test_tokens_add_locks_with_msvcrt_where_there_is_no_fcntl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    msvcrt = simulate_windows_locks(monkeypatch)
    tokens = tmp_path / "tokens.toml"
    first = add_token(tokens, "g1")
    second = add_token(tokens, "lead", admin=True)
    store = TokenStore.load(tokens)
    assert store.check_bot("g1", first) and store.check_admin("lead", second)
    # Each call waits for the lock (LK_LOCK) on the first byte of the lock file, which nobody
    # reads, and releases it before closing the file.
    assert [(mode, position, size) for _fd, mode, position, size in msvcrt.calls] == [
        (msvcrt.LK_LOCK, 0, 1),
        (msvcrt.LK_UNLCK, 0, 1),
    ] * 2
    assert msvcrt.locks == []


def test_tokens_add_is_refused_in_one_line_when_the_lock_is_not_let_go_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    msvcrt = simulate_windows_locks(monkeypatch)
    tokens = tmp_path / "tokens.toml"
    first = add_token(tokens, "g1")
    before = tokens.read_bytes()
    lock = tmp_path / "tokens.toml.lock"
    other = os.open(lock, os.O_RDWR)  # another `arena tokens add`, stuck
    try:
        msvcrt.hold(other, 0)
        with pytest.raises(TokenFileError) as refused:
            add_token(tokens, "g2")
    finally:
        os.close(other)
    assert str(refused.value) == (
        f"cannot lock {lock}, which guards the tokens file: another `arena tokens add` has "
        "held it for ten seconds; try again once it is done"
    )
    assert tokens.read_bytes() == before and TokenStore.load(tokens).check_bot("g1", first)
    assert add_token(tokens, "g2")  # once it is let go


def test_the_tokens_file_is_the_same_bytes_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulate_windows_newlines(monkeypatch, descriptors=False)
    tokens = tmp_path / "tokens.toml"
    add_token(tokens, "g1")
    text = tokens.read_bytes()
    assert b"\r" not in text and text.endswith(b'"\n\n[admins]\n')


def test_the_tokens_file_is_replaced_once_a_reader_lets_go_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = tmp_path / "tokens.toml"
    first = add_token(tokens, "g1")
    pauses = simulate_a_reader_holding_the_target(monkeypatch, 2)
    second = add_token(tokens, "g2")
    store = TokenStore.load(tokens)
    assert store.check_bot("g1", first) and store.check_bot("g2", second)
    assert len(pauses) == 2 and sorted(path.name for path in tmp_path.iterdir()) == [
        "tokens.toml",
        "tokens.toml.lock",
    ]

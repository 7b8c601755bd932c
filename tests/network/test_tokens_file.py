"""`arena tokens add` and its file (CLI audit H1, M2, L4): calls run at once on one file each keep
the token they report; a file or directory that cannot be written is one `error:` line naming
it, never a traceback; a file its owner made read-only is refused, not replaced; a failed write
leaves no temporary file behind."""

from __future__ import annotations

import multiprocessing
import os
import stat
import subprocess
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest
from net_helpers import arena_command, scaled

from arena.server.auth import TokenFileError, TokenStore, add_token

WRITERS = 6
TOKENS_EACH = 8

Outcome = tuple[int, str | None, dict[str, str]]
"""What a writer process reports: its number, its error (None: none) and the tokens it got."""


def _add_many(path: str, writer: int, start: Barrier, results: Queue[Outcome]) -> None:
    """A writer process: once every writer is ready, add `TOKENS_EACH` bot tokens to ``path``."""
    issued: dict[str, str] = {}
    try:
        start.wait()
        for index in range(TOKENS_EACH):
            name = f"w{writer}-{index}"
            issued[name] = add_token(Path(path), name)
    except Exception as exc:
        results.put((writer, repr(exc), issued))
        return
    results.put((writer, None, issued))


def test_parallel_adds_keep_every_token_they_report(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Barrier(WRITERS)
    results: Queue[Outcome] = spawn.Queue()
    writers = [
        spawn.Process(target=_add_many, args=(str(tokens), writer, start, results))
        for writer in range(WRITERS)
    ]
    for process in writers:
        process.start()
    try:
        outcomes = [results.get(timeout=scaled(120)) for _ in writers]
    finally:
        for process in writers:
            process.join(timeout=scaled(60))
            if process.is_alive():
                process.kill()
    assert [error for _writer, error, _issued in outcomes if error is not None] == []
    store = TokenStore.load(tokens)
    issued = {name: token for _w, _e, tokens_of in outcomes for name, token in tokens_of.items()}
    assert len(issued) == WRITERS * TOKENS_EACH
    lost = sorted(name for name, token in issued.items() if not store.check_bot(name, token))
    assert lost == [], "tokens reported as stored but missing from the file"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tokens.toml", "tokens.toml.lock"]
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600


def test_a_tokens_file_its_owner_made_read_only_is_refused_not_replaced(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    first = add_token(tokens, "g1")
    tokens.chmod(0o444)
    before = tokens.read_bytes()
    with pytest.raises(TokenFileError) as refused:
        add_token(tokens, "g2")
    said = str(refused.value)
    assert (
        said
        == f"cannot write tokens file {tokens}: it is read-only (make it writable to add tokens)"
    )
    assert tokens.read_bytes() == before
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o444
    # Made writable again (more widely than before), it takes the token and is 0600 again.
    tokens.chmod(0o644)
    second = add_token(tokens, "g2")
    store = TokenStore.load(tokens)
    assert store.check_bot("g1", first) and store.check_bot("g2", second)
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = tmp_path / "tokens.toml"
    first = add_token(tokens, "g1")
    before = tokens.read_bytes()

    def no_rename(_source: object, _target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(TokenFileError) as refused:
        add_token(tokens, "g2")
    assert str(refused.value) == f"cannot write tokens file {tokens}: No space left on device"
    monkeypatch.undo()
    assert tokens.read_bytes() == before
    assert TokenStore.load(tokens).check_bot("g1", first)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tokens.toml", "tokens.toml.lock"]


def tokens_add(*args: str) -> subprocess.CompletedProcess[str]:
    return arena_command("tokens", "add", *args)


def test_a_parent_that_is_a_file_is_one_error_line(tmp_path: Path) -> None:
    parent = tmp_path / "afile"
    parent.write_text("", encoding="utf-8")
    for path in (parent / "t.toml", parent / "deeper" / "t.toml"):
        shown = tokens_add("b", "--file", str(path))
        assert shown.returncode == 2 and shown.stdout == ""
        assert (
            shown.stderr == f"error: cannot write tokens file {path}: {parent} is not a directory\n"
        )


def test_a_directory_is_named_once(tmp_path: Path) -> None:
    shown = tokens_add("b", "--file", str(tmp_path))
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr == f"error: cannot write tokens file {tmp_path}: it is a directory\n"


def test_a_lock_file_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "t.toml.lock").mkdir()
    with pytest.raises(TokenFileError, match=r"cannot lock .*t\.toml\.lock, which guards"):
        add_token(tmp_path / "t.toml", "b")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a directory whatever its mode")
def test_a_read_only_directory_is_a_token_file_error(tmp_path: Path) -> None:
    read_only = tmp_path / "ro"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        path = read_only / "t.toml"
        with pytest.raises(TokenFileError) as refused:
            add_token(path, "b")
        assert str(refused.value) == f"cannot write tokens file {path}: Permission denied"
        assert list(read_only.iterdir()) == []
    finally:
        read_only.chmod(0o755)


def test_a_tokens_file_in_another_encoding_is_one_error_line(tmp_path: Path) -> None:
    """An operator's edit saved in Big5 (cp950) was a UnicodeDecodeError traceback; one saved
    with a byte-order mark (Notepad) is read."""
    legacy = tmp_path / "legacy.toml"
    legacy.write_bytes("# 管理員\n[bots]\n".encode("cp950"))
    with pytest.raises(TokenFileError, match=r"legacy\.toml: .*save it as UTF-8"):
        TokenStore.load(legacy)
    marked = tmp_path / "marked.toml"
    marked.write_bytes(b"\xef\xbb\xbf[bots]\n")
    assert TokenStore.load(marked).bots == {}

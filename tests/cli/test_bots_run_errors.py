"""Simple mistakes in `bots run`'s and `arena serve`'s options are one `error:` line and exit 2,
before anything connects or listens; a refusal by the server comes with the hint that fits it."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bots import cli as bots_cli
from bots.adapters import adapter_for
from bots.client import BotClient, ClientRefused
from bots.registry import make_bot
from tests.network.net_helpers import (
    ARENA,
    SCALE,
    bots_run_copies,
    running_server,
    subprocess_env,
    ws_url,
)

REPO = Path(__file__).resolve().parents[2]
LEVELS = "levels: debug, info, warning, error, critical"


@pytest.fixture
def never_connects(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """`bots run` reaching the point where its bots would connect counts as a failure to refuse
    in time: the old code found some of these mistakes only after connecting."""
    reached: list[int] = []

    async def play(clients: list[BotClient]) -> list[str]:
        reached.append(len(clients))
        return ["done"] * len(clients)

    monkeypatch.setattr(bots_cli, "_play", play)
    yield reached


def bots_run(*more: str) -> tuple[int, list[str]]:
    shown = CliRunner().invoke(
        bots_cli.app, ["run", "greedy", "--game", "mahjong", "--url", "ws://127.0.0.1:1", *more]
    )
    if shown.exception is not None and not isinstance(shown.exception, SystemExit):
        raise shown.exception
    return shown.exit_code, shown.output.strip().splitlines()


def one_error(more: tuple[str, ...], reached: list[int]) -> str:
    code, lines = bots_run(*more)
    assert not reached, "the mistake was found only when the bot was about to connect"
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_a_resume_file_that_is_a_directory(tmp_path: Path, never_connects: list[int]) -> None:
    said = one_error(("--resume-file", str(tmp_path)), never_connects)
    assert said == f"error: --resume-file: {tmp_path} is a directory, not a file"


def test_a_resume_file_that_is_not_text(tmp_path: Path, never_connects: list[int]) -> None:
    binary = tmp_path / "token.bin"
    binary.write_bytes(b"\xff\xfe\x00")
    said = one_error(("--resume-file", str(binary)), never_connects)
    assert str(binary) in said and "not UTF-8" in said


@pytest.mark.parametrize("below", ["resume", "sub/resume"])
def test_a_resume_file_under_a_regular_file(
    below: str, tmp_path: Path, never_connects: list[int]
) -> None:
    (tmp_path / "afile").write_text("", encoding="utf-8")
    resume = tmp_path / "afile" / below
    said = one_error(("--resume-file", str(resume)), never_connects)
    assert said.startswith("error: --resume-file: cannot make the directory")
    assert f"{tmp_path / 'afile'} is a file" in said


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only directory")
def test_a_resume_file_in_a_directory_it_cannot_write(
    tmp_path: Path, never_connects: list[int]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        said = one_error(("--resume-file", str(locked / "resume")), never_connects)
    finally:
        locked.chmod(0o700)
    assert said.startswith(f"error: --resume-file: cannot write in {locked}")


def test_each_copy_s_resume_file_is_checked(tmp_path: Path, never_connects: list[int]) -> None:
    (tmp_path / "resume.c-1").mkdir()
    said = one_error(
        ("--name", "c", "--copies", "2", "--resume-file", str(tmp_path / "resume")),
        never_connects,
    )
    assert said == f"error: --resume-file: {tmp_path / 'resume.c-1'} is a directory, not a file"


def test_a_good_resume_file_still_gets_to_play(tmp_path: Path, never_connects: list[int]) -> None:
    resume = tmp_path / "new" / "resume"
    code, lines = bots_run("--resume-file", str(resume), "--log-level", "WARNING")
    assert code == 0 and never_connects == [1], lines
    assert not resume.exists(), "only a welcome writes the file"
    assert list(resume.parent.iterdir()) == [], "the write check left nothing behind"


def test_a_json_log_that_is_a_directory(tmp_path: Path, never_connects: list[int]) -> None:
    said = one_error(("--log-json", str(tmp_path)), never_connects)
    assert said.startswith(f"error: --log-json: cannot write JSON logs to {tmp_path}")


def test_an_unknown_log_level_names_the_levels(never_connects: list[int]) -> None:
    said = one_error(("--log-level", "loud"), never_connects)
    assert said == f"error: --log-level: unknown log level 'loud'; {LEVELS}"


def test_the_log_levels_are_in_the_help() -> None:
    shown = CliRunner().invoke(bots_cli.app, ["run", "--help"], env={"COLUMNS": "300"})
    assert "debug, info, warning, error, critical" in shown.output


@pytest.mark.parametrize(
    ("more", "said"),
    [
        (("--log-level", "loud"), f"error: --log-level: unknown log level 'loud'; {LEVELS}"),
        (("--log-json", "."), "error: --log-json: cannot write JSON logs to ."),
    ],
)
def test_serve_refuses_bad_log_options_in_one_line(
    more: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    # A child process with a timeout: a server that started anyway would serve for ever.
    shown = subprocess.run(
        [ARENA, "serve", "--host", "127.0.0.1", "--port", "0", *more],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=subprocess_env(),
        timeout=60 * SCALE,
    )
    assert shown.returncode == 2, shown.stderr
    assert "Traceback" not in shown.stderr
    lines = shown.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(said), lines


# ---------------------------------------------------------------------------------- refusals


CLASH = ClientRefused("auth_failed: bot c-0 already has a session (lobby); send hello.resume")
AWAY = ClientRefused("auth_failed: bot c-0 already has a session (absent); send hello.resume")
TOKEN = ClientRefused("auth_failed: unknown token for bot c-0")


def test_a_name_in_use_is_not_blamed_on_tokens() -> None:
    for players, tokens in ((["c-0", "c-1"], [None, None]), (["c-0"], [None])):
        hint = bots_cli.refusal_hint(CLASH, players, tokens)
        assert "tokens add" not in hint and "token belongs" not in hint
        assert "stop that bot" in hint and "another --name" in hint
    assert "--copies names the copies c-0, c-1" in bots_cli.refusal_hint(
        CLASH, ["c-0", "c-1"], [None, None]
    )
    # Copies sharing a token that are refused for the name, not the token, are told so too.
    assert "tokens add" not in bots_cli.refusal_hint(CLASH, ["c-0", "c-1"], ["s", "s"])


def test_a_name_whose_seat_is_kept_points_at_the_resume_file() -> None:
    hint = bots_cli.refusal_hint(AWAY, ["c-0"], [None])
    assert "--resume-file" in hint and "another --name" in hint and "tokens add" not in hint


def test_a_refused_shared_token_still_says_a_token_belongs_to_one_name() -> None:
    hint = bots_cli.refusal_hint(TOKEN, ["c-0", "c-1"], ["s", "s"])
    assert "a token belongs to one name" in hint and "arena tokens add c-0" in hint


async def test_copies_whose_names_are_taken_are_told_so_by_a_server_without_tokens() -> None:
    async with running_server() as server:
        url = ws_url(server)
        holder = BotClient(
            {"mahjong": make_bot("mahjong", "greedy")},
            name="c-0",
            adapter_factory=lambda: adapter_for(url, "c-0"),
        )
        running = asyncio.create_task(holder.run())
        try:
            async with asyncio.timeout(60 * SCALE):
                await holder.welcomed.wait()
            process = await bots_run_copies(url, "c")
            _, err = await asyncio.wait_for(process.communicate(), timeout=60 * SCALE)
        finally:
            await holder.stop()
            await asyncio.wait_for(running, timeout=60 * SCALE)
    said = err.decode()
    assert process.returncode == 2, said
    assert "already has a session" in said and "another --name" in said
    assert "tokens add" not in said

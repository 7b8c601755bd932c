"""`bots run` keeps its bots' hidden choices secret: every bot it builds plays with a seed derived
from a secret drawn by the process (or ``--seed``), its name and its config's own seed, never
from public text alone. And the resume file, which takes a bot's seat back, is its owner's only.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from net_helpers import (
    ARENA,
    PYTHON,
    REPO,
    running_server,
    scaled,
    subprocess_env,
    wait_until,
    ws_url,
)
from typer.testing import CliRunner

from arena.dealing import MatchSeed, draw_code
from arena.games.bulls_cows import code_space
from arena.server.remote import server_status
from bots import cli as bots_cli
from bots.base import Bot
from bots.bulls_cows.answerers import EvaderAnswerer, FixedAnswerer
from bots.bulls_cows.bot import BullsCowsBot
from bots.client import BotClient
from bots.liars_dice.bot import LiarsDiceBot
from bots.mahjong.random_bot import RandomBot
from bots.registry import BOT_MODULES, bot_names

BOTS = str(Path(PYTHON).with_name("bots"))
SPACE = code_space(3, "123456789")
EVADER = REPO / "configs" / "bots" / "bulls_cows" / "optimal-evader.toml"


def secrets_of(bot: Bot, games: int = 8) -> list[str]:
    """The secrets a 1A2B bot with the fixed answerer takes in its next ``games`` games."""
    assert isinstance(bot, BullsCowsBot) and isinstance(bot.answerer, FixedAnswerer)
    drawn = []
    for _ in range(games):
        bot.answerer.new_game(SPACE)
        assert bot.answerer.secret is not None
        drawn.append(bot.answerer.secret)
    return drawn


def predicted_from_name(name: str, games: int = 8) -> list[str]:
    """What anyone could compute from a bot's public name when it seeded itself by name."""
    stream = MatchSeed.from_text(name).stream("bots", "bulls_cows", "answerer")
    return [draw_code(stream, SPACE.alphabet, SPACE.digits) for _ in range(games)]


def duelist(seed: MatchSeed | None = None, name: str = "victim") -> Bot:
    if seed is None:
        return bots_cli.build_bots("optimal", "bulls-cows", {}, name)["bulls_cows"]
    return bots_cli.build_bots("optimal", "bulls-cows", {}, name, seed)["bulls_cows"]


def test_a_1a2b_bot_s_secrets_do_not_follow_from_its_name() -> None:
    first, second = secrets_of(duelist()), secrets_of(duelist())
    assert first != predicted_from_name("victim")
    # Another process (a restarted bot) plays other secrets.
    assert first != second


def test_a_public_config_seed_does_not_give_the_secrets_away() -> None:
    # A shipped config names its seed in the open (seed = "optimal-evader").
    settings = bots_cli.load_settings("optimal", EVADER)
    assert "seed" in settings
    builds = [bots_cli.build_bots("optimal", "bulls-cows", settings, "e") for _ in range(2)]
    public = MatchSeed.from_text(settings["seed"]).stream("bots", "bulls_cows", "answerer")
    drawn = []
    for built in builds:
        bot = built["bulls_cows"]
        # The evader's tie-breaks come from its stream: compare the stream itself.
        assert isinstance(bot, BullsCowsBot) and isinstance(bot.answerer, EvaderAnswerer)
        drawn.append(bot.answerer.stream.read(32))
    assert public.read(32) not in drawn
    assert drawn[0] != drawn[1]


def test_seed_makes_a_run_reproducible_and_config_seeds_still_differ() -> None:
    seed = MatchSeed.from_text("replay me")
    assert secrets_of(duelist(seed)) == secrets_of(duelist(seed))
    assert secrets_of(duelist(seed)) != secrets_of(duelist(MatchSeed.from_text("another")))
    # Copies (other names) and configs with other seeds play other streams under one seed.
    assert secrets_of(duelist(seed, "victim-0")) != secrets_of(duelist(seed, "victim-1"))

    def configured(own: str) -> list[str]:
        built = bots_cli.build_bots("optimal", "bulls-cows", {"seed": own}, "victim", seed)
        return secrets_of(built["bulls_cows"])

    assert configured("x") == configured("x") != configured("y")


def test_liars_dice_and_mahjong_bots_are_seeded_by_the_run_too() -> None:
    seed = MatchSeed.from_text("s")
    for strategy in bot_names("liars_dice"):
        runs = [
            bots_cli.build_bots(strategy, "liars-dice", {}, "d")["liars_dice"] for _ in range(2)
        ]
        texts = []
        for bot in runs:
            assert isinstance(bot, LiarsDiceBot)
            texts.append(bot.seed_text)
        # Before, every liar's dice bot played the stream of the public seed "0".
        assert "0" not in texts and texts[0] != texts[1], strategy
        again = [bots_cli.build_bots(strategy, "liars-dice", {}, "d", seed) for _ in range(2)]
        replayed = [built["liars_dice"] for built in again]
        assert isinstance(replayed[0], LiarsDiceBot) and isinstance(replayed[1], LiarsDiceBot)
        assert replayed[0].seed_text == replayed[1].seed_text, strategy
    randoms = [bots_cli.build_bots("random", "mahjong", {}, "m")["mahjong"] for _ in range(2)]
    assert isinstance(randoms[0], RandomBot) and isinstance(randoms[1], RandomBot)
    assert MatchSeed.from_text("m") not in (randoms[0].seed, randoms[1].seed)
    assert randoms[0].seed != randoms[1].seed


@pytest.mark.parametrize("game", sorted(BOT_MODULES))
def test_every_bot_builds_for_bots_run(game: str) -> None:
    # A bot that takes no seed must be listed in UNSEEDED, or `bots run` could not build it.
    for strategy in bot_names(game):
        assert list(bots_cli.build_bots(strategy, game, {}, "b")) == [game]


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BotClient]]:
    """The clients `bots run` would play with, without connecting anywhere."""
    seen: list[BotClient] = []

    async def play(clients: list[BotClient]) -> list[str]:
        seen.extend(clients)
        return ["done"] * len(clients)

    monkeypatch.setattr(bots_cli, "_play", play)
    yield seen


def run_secrets(played: list[BotClient], *more: str) -> list[list[str]]:
    """Each client's next secrets, from `bots run optimal --game bulls-cows --name victim`."""
    played.clear()
    shown = CliRunner().invoke(
        bots_cli.app,
        [
            "run",
            "optimal",
            "--game",
            "bulls-cows",
            "--name",
            "victim",
            "--url",
            "ws://127.0.0.1:1",
            "--log-level",
            "warning",
            *more,
        ],
    )
    assert shown.exit_code == 0, shown.output
    return [secrets_of(client.bots["bulls_cows"]) for client in played]


def test_bots_run_draws_a_secret_per_process_unless_given_seed(played: list[BotClient]) -> None:
    [first], [second] = run_secrets(played), run_secrets(played)
    assert first != predicted_from_name("victim") and first != second
    [replayed] = run_secrets(played, "--seed", "42")
    assert run_secrets(played, "--seed", "42") == [replayed]
    assert replayed != predicted_from_name("victim")
    copies = run_secrets(played, "--copies", "2")
    assert copies[0] != copies[1]


def test_the_seed_option_warns_that_it_gives_the_secrets_away() -> None:
    shown = CliRunner().invoke(bots_cli.app, ["run", "--help"], env={"COLUMNS": "300"})
    assert "--seed" in shown.output and "can predict" in shown.output


def reveals(record: Path, player: str) -> list[str]:
    """The secrets ``player`` revealed, game by game, in a match record directory."""
    [path] = record.glob("*.jsonl")
    found, players = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        row: dict[str, Any] = json.loads(line)
        if row["type"] == "header":
            players = row["players"]
        elif (
            row["type"] == "event"
            and row["payload"].get("kind") == "reveal"
            and players[row["payload"]["seat"]] == player
        ):
            found.append(row["payload"]["code"])
    return found


async def test_a_connected_1a2b_bot_plays_secrets_nobody_computed_in_advance(
    tmp_path: Path,
) -> None:
    async with running_server() as server:
        url = ws_url(server)
        bots = [
            await asyncio.create_subprocess_exec(
                BOTS,
                "run",
                "optimal",
                "--game",
                "bulls-cows",
                "--name",
                name,
                "--url",
                url,
                "--log-level",
                "warning",
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=subprocess_env(),
            )
            for name in ("victim", "opponent")
        ]
        try:

            async def both_in_lobby() -> bool:
                return len((await server_status(url)).bots) == 2

            await wait_until(both_in_lobby, "both bots to connect", seconds=60)
            match = await asyncio.create_subprocess_exec(
                ARENA,
                "match",
                "bulls-cows",
                "--server",
                url,
                "--a",
                "victim",
                "--b",
                "opponent",
                "--games",
                "4",
                "--seed",
                MatchSeed.generate().hex(),
                "--record",
                str(tmp_path / "record"),
                stdout=subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                env=subprocess_env(),
            )
            _, err = await asyncio.wait_for(match.communicate(), timeout=scaled(120))
            assert match.returncode == 0, err.decode()
        finally:
            for bot in bots:
                bot.terminate()
                await asyncio.wait_for(bot.wait(), timeout=scaled(30))
    played = reveals(tmp_path / "record", "victim")
    assert len(played) == 4
    assert played != predicted_from_name("victim", 4)


# ----------------------------------------------------------------------------- the resume file


def bare_client(resume: Path) -> BotClient:
    return BotClient(
        bots_cli.build_bots("greedy", "mahjong", {}, "rb"),
        name="rb",
        adapter_factory=lambda: pytest.fail("no connection in this test"),
        resume_file=resume,
    )


def test_the_resume_file_is_its_owner_s_only(tmp_path: Path) -> None:
    resume = tmp_path / "state" / "resume.txt"
    old_umask = os.umask(0o022)
    try:
        bare_client(resume)._save_resume("token-1")
    finally:
        os.umask(old_umask)
    assert resume.read_text(encoding="utf-8") == "token-1"
    assert stat.S_IMODE(resume.stat().st_mode) == 0o600
    # A file an older version left world-readable is replaced by one that is not.
    resume.chmod(0o644)
    bare_client(resume)._save_resume("token-2")
    assert stat.S_IMODE(resume.stat().st_mode) == 0o600
    assert bare_client(resume).resume_token == "token-2"
    assert sorted(p.name for p in resume.parent.iterdir()) == ["resume.txt"], "no temp file left"


def test_a_failed_save_leaves_the_old_token_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resume = tmp_path / "resume.txt"
    bare_client(resume)._save_resume("old-token")

    def refuse(*_args: Any) -> None:
        raise OSError(28, "No space left on device")

    # The token is written beside the file and renamed over it: a failure before the rename
    # (here, the rename itself) leaves the file as it was, and the session plays on.
    monkeypatch.setattr(os, "replace", refuse)
    client = bare_client(resume)
    client._save_resume("new-token")
    assert client.resume_token == "new-token"
    assert resume.read_text(encoding="utf-8") == "old-token"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resume.txt"]

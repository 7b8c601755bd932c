"""`bots run` logs what a participant needs to check a match's record: the seed commitment at
`match_start`, and at `match_end` the revealed seed, checked against that commitment (a seed that
does not hash to it is a warning: the deals were not fixed before the match)."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import pytest

from arena.dealing import MatchSeed
from bots.client import BotClient
from bots.registry import make_bot
from protocol.games.common import MatchEnd, MatchStart
from protocol.messages import Event

SEED = MatchSeed.from_text("participant")


def _client() -> BotClient:
    def no_server() -> object:
        raise AssertionError("no connection in this test")

    bot = make_bot("liars_dice", "bayes", name="me")
    return BotClient({"liars_dice": bot}, name="me", adapter_factory=no_server)  # type: ignore[arg-type]


def _logged(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """The structlog event dicts the stdlib handed the capture, with their level."""
    return [
        {**record.msg, "log_level": record.levelname.lower()}
        for record in caplog.records
        if isinstance(record.msg, dict)
    ]


def _start(commitment: str) -> Event:
    payload = MatchStart(
        game_kind="liars_dice", players=["me", "you"], games=2, seed_commitment=commitment
    )
    return Event(payload=payload)


def _end(seed_hex: str) -> Event:
    return Event(payload=MatchEnd(seed=seed_hex, totals=[1.0, 1.0]))


async def test_the_commitment_and_the_checked_seed_are_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = _client()
    commitment = hashlib.sha256(bytes.fromhex(SEED.hex())).hexdigest()
    with caplog.at_level(logging.INFO):
        await client._event(_start(commitment))
        await client._event(_end(SEED.hex()))
    logs = _logged(caplog)
    start = next(line for line in logs if line["event"] == "match_start")
    end = next(line for line in logs if line["event"] == "match_end")
    assert start["seed_commitment"] == commitment == SEED.commitment()
    assert (end["seed"], end["commitment_checked"], end["log_level"]) == (SEED.hex(), True, "info")


@pytest.mark.parametrize("revealed", [MatchSeed.from_text("another").hex(), "not hex"])
async def test_a_seed_that_does_not_hash_to_the_commitment_is_a_warning(
    revealed: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = _client()
    with caplog.at_level(logging.INFO):
        await client._event(_start(SEED.commitment()))
        await client._event(_end(revealed))
    logs = _logged(caplog)
    (warned,) = [line for line in logs if line["event"] == "match_seed_not_committed"]
    assert warned["log_level"] == "warning" and warned["seed_commitment"] == SEED.commitment()
    assert not [line for line in logs if line["event"] == "match_end"]

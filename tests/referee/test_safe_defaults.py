"""Safe defaults and checks that `python -O` keeps: a lone game's record holds the seed only when
its caller asks, the mahjong zero-sum checks are errors rather than asserts, and reconfiguring
the logs closes the JSON log file it replaces."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pytest

import arena.games.mahjong.engine as mahjong_engine
import arena.games.mahjong.payments as mahjong_payments
import arena.matches.mahjong as mahjong_match
from arena.dealing import MatchSeed
from arena.games.errors import GameError
from arena.games.mahjong.tiles import MahjongError
from arena.games.registry import get_spec
from arena.logs import configure_logging
from arena.records import MemoryRecorder
from arena.referee import play_game
from arena.transports.inprocess import InProcessSeat
from bots.registry import make_bot

GOLDEN_RON = Path(__file__).parents[1] / "mahjong_table" / "golden" / "r1_added_kong_ron.jsonl"
"""A hand that ends in a ron (seat 1 on seat 0's discard)."""


class _Reveal(TypedDict, total=False):
    reveal: bool


async def test_a_game_keeps_its_seed_out_of_the_record_unless_asked() -> None:
    seed = MatchSeed.from_text("keep-it")

    async def record(**reveal: Unpack[_Reveal]) -> list[dict[str, Any]]:
        bot = make_bot("bulls_cows", "entropy", {}, name="solver")
        recorder = MemoryRecorder()
        await play_game(
            "bulls_cows",
            [InProcessSeat(bot)],
            rules={"mode": "solve"},
            seed=seed,
            deal={"secret_index": 5},
            players=[bot.name],
            recorder=recorder,
            **reveal,
        )
        return recorder.lines

    kept = await record()
    assert [line["type"] for line in kept][-1] == "result"
    assert seed.hex() not in json.dumps(kept)
    revealed = await record(reveal=True)
    assert revealed[-1] == {"type": "reveal", "seed": seed.hex()}


def _replay_golden_ron() -> None:
    """Play the golden ron hand's decisions again (it has some, and ends in a win)."""
    lines = [json.loads(text) for text in GOLDEN_RON.read_text(encoding="utf-8").splitlines()]
    header, reveal = lines[0], lines[-1]
    game = get_spec("mahjong").new_game(
        header["rules"], MatchSeed.from_hex(reveal["seed"]), header["deal"]
    )
    decisions = [line for line in lines if line["type"] == "decision"]
    assert decisions
    for line in decisions:
        game.apply(line["seat"], game.parse_action(line["action"]))


def test_a_win_paid_out_of_balance_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real_settle = mahjong_payments.settle

    def overpaid(*args: Any, **kwargs: Any) -> list[int]:
        payments = list(real_settle(*args, **kwargs))
        return [payments[0] + 1, *payments[1:]]

    monkeypatch.setattr(mahjong_payments, "settle", overpaid)
    with pytest.raises(GameError, match=r"payments .* are not zero-sum"):
        _replay_golden_ron()


def test_a_hand_that_is_not_zero_sum_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real_score_win = mahjong_engine.score_win

    def overpaid(*args: Any, **kwargs: Any) -> Any:
        win = real_score_win(*args, **kwargs)
        return dataclasses.replace(win, payments=(win.payments[0] + 1, *win.payments[1:]))

    monkeypatch.setattr(mahjong_engine, "score_win", overpaid)
    with pytest.raises(GameError, match=r"hand deltas .* are not zero-sum"):
        _replay_golden_ron()


async def test_a_match_that_is_not_zero_sum_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real_tally = mahjong_match._tally

    def miscounted(spec: Any, result: Any, *args: Any, **kwargs: Any) -> None:
        real_tally(spec, result, *args, **kwargs)
        result.programs[0].points += 1

    monkeypatch.setattr(mahjong_match, "_tally", miscounted)
    spec = mahjong_match.MatchSpec(bots=("greedy",) * 4, seed="zero-sum", games=1)
    with pytest.raises(MahjongError, match="not zero-sum"):
        await mahjong_match.play_match(spec)


def test_reconfiguring_the_logs_closes_the_replaced_json_file(tmp_path: Path) -> None:
    configure_logging("warning", tmp_path / "first.jsonl")
    (first,) = [h for h in logging.getLogger().handlers if isinstance(h, logging.FileHandler)]
    assert first.stream is not None and not first.stream.closed
    stream = first.stream
    configure_logging("warning", tmp_path / "second.jsonl")
    (second,) = [h for h in logging.getLogger().handlers if isinstance(h, logging.FileHandler)]
    assert second is not first
    assert stream.closed
    configure_logging("warning")
    assert second.stream is None  # closed too, though no file replaced it

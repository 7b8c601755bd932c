"""What version 1 gained after the audit of a third-party author (docs/PROTOCOL.md): a request's
``bank_ms`` (L2), the error codes ``name_in_use``, ``resume_unknown`` and ``match_aborted`` (M1,
M2), one rule for a bot's name (L4), and examples that show what a real match sends (L3)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from arena.games.liars_dice.rules import LiarsDiceRules
from arena.protocol_doc import DOC_PATH
from protocol.codec import ProtocolError, encode, parse_message
from protocol.games.liars_dice import LiarsDiceObservation
from protocol.messages import ERROR_MEANINGS, Error, ErrorCode, Hello, Request


def observation() -> LiarsDiceObservation:
    return LiarsDiceObservation(
        seat=0,
        round=0,
        dice=[1, 2, 3, 4, 5],
        dice_counts=[5, 5],
        bids=[],
        to_act=0,
        ones_wild=True,
        min_open=2,
        over=False,
        reroll=False,
        revealed=[[], []],
        rerolls=[],
        must_bid=False,
    )


def test_a_request_may_carry_the_seats_time_bank() -> None:
    banked = Request(seq=3, deadline_ms=1000, bank_ms=1500, observation=observation())
    text = encode(banked)
    assert '"deadline_ms":1000,"bank_ms":1500' in text
    assert parse_message(text) == banked
    # Without a bank the field is not sent at all.
    plain = Request(seq=3, deadline_ms=1000, observation=observation())
    assert "bank_ms" not in encode(plain)
    with pytest.raises(ProtocolError):
        parse_message(text.replace('"bank_ms":1500', '"bank_ms":-1'))


@pytest.mark.parametrize("code", ["name_in_use", "resume_unknown", "match_aborted"])
def test_the_new_error_codes_read_and_are_documented(code: str) -> None:
    message = parse_message(json.dumps({"v": 1, "type": "error", "code": code, "text": "x"}))
    assert isinstance(message, Error) and message.code is ErrorCode(code)
    assert ERROR_MEANINGS[ErrorCode(code)].startswith("(v1 addition)")
    assert f"| `{code}` |" in DOC_PATH.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["x" * 65, "bad name!", "", "a/b", "é", "y" * 500])
def test_every_bad_name_is_the_same_malformed_hello(name: str) -> None:
    raw = json.dumps({"v": 1, "type": "hello", "name": name, "games": ["liars_dice"]})
    with pytest.raises(ProtocolError) as refused:
        parse_message(raw)
    assert refused.value.code is ErrorCode.BAD_MESSAGE
    shown = repr(name) if len(name) <= 70 else repr(name[:67] + "...")
    assert refused.value.text == (
        f"hello.name: a bot name is 1 to 64 of the characters A-Z a-z 0-9 _ . - (got {shown})"
    )
    assert Hello(name="x" * 64, games=["liars_dice"]).name == "x" * 64


def logged(section: str) -> list[dict[str, Any]]:
    """The messages of one example's log in PROTOCOL.md."""
    text = DOC_PATH.read_text(encoding="utf-8")
    start = text.index(f"## {section}")
    end = text.find("\n## ", start + 1)
    lines = text[start : end if end > 0 else None].splitlines()
    return [json.loads(line.split(" ", 1)[1]) for line in lines if re.match(r"^(S>\d|\d>S) ", line)]


def test_the_liars_dice_example_shows_the_whole_ruleset() -> None:
    starts = [
        m["payload"]
        for m in logged("Example: a game of liar's dice")
        if m["type"] == "event" and m["payload"]["kind"] == "game_start"
    ]
    assert starts
    for start in starts:
        assert start["rules"] == LiarsDiceRules(players=2).to_mapping()


def test_the_mahjong_example_is_a_matchs_first_hand() -> None:
    messages = logged("Example: a hand of Taiwan mahjong")
    games = {m["game"] for m in messages if "game" in m}
    assert games == {"r0h0"}
    rounds = {
        m["payload"]["round"]
        for m in messages
        if m["type"] == "event" and m["payload"]["kind"] == "hand_start"
    }
    assert rounds == {0}
    observed = {m["observation"]["round"] for m in messages if m["type"] == "request"}
    assert observed == {0}


def test_the_protocol_says_what_is_no_answer_and_to_say_bye() -> None:
    text = " ".join(DOC_PATH.read_text(encoding="utf-8").split())
    assert "does not count as an answer, so the request stays pending until its deadline" in text
    assert "A bot that leaves sends `bye` first" in text

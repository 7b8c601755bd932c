"""Errors a bot author in another language can act on: the codec says what is wrong in the
protocol's words (not the validation library's), a frame that is no answer says which request
still waits, and an answer after the table closed says why it is not taken."""

from __future__ import annotations

import asyncio

import pytest
from net_helpers import duel, good_answer, play_along, raw_dice_pair

from protocol.codec import ProtocolError, parse_message


@pytest.mark.parametrize(
    ("frame", "told"),
    [
        ('{"v": 1}', "type: missing; every message names its type"),
        (
            '{"type": "chat"}',
            "type: no message has type \"chat\" (a bot sends 'hello', 'action', 'bye' or "
            "'ping'; the server sends 'welcome', 'event', 'request', 'error' or 'bye')",
        ),
        ('{"type": 5}', "type: no message has type 5 ("),
        (
            '{"type": "action", "seq": 1, "action": "challenge", "colour": "red"}',
            "action.colour: no such field in this message (unknown fields are errors)",
        ),
        ('{"type": "action", "action": "challenge"}', "action.seq: required, missing"),
        ('{"type": "hello", "name": "a b", "games": ["mahjong"]}', "hello.name: a bot name is"),
    ],
)
def test_the_codec_says_what_is_wrong_in_the_protocols_words(frame: str, told: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(frame)
    assert refused.value.code.value == "bad_message"
    assert refused.value.text.startswith(told), refused.value.text
    for jargon in ("discriminator", "tag", "Extra inputs", "Field required"):
        assert jargon not in refused.value.text


async def test_a_frame_that_is_no_answer_names_the_request_still_pending() -> None:
    async with raw_dice_pair("remote") as (alice, bob, seats):
        helper = asyncio.create_task(play_along(bob))
        game = asyncio.create_task(duel(seats))
        request = await alice.recv_until("request")
        pending = f"(request {request['seq']} is still pending: answer it)"
        for frame in ("not json", '{"seq": 1}', '{"type": "chat"}'):
            await alice.send(frame)
            error = await alice.recv()
            assert error["type"] == "error" and error.get("seq") is None, error
            assert error["text"].endswith(pending), error["text"]
        # Still pending indeed: it takes its answer.
        await alice.send(good_answer(request))
        await play_along(alice)
        played = await game
        await helper
        # After the game, with no request pending, the same frame says nothing of one.
        await alice.send("not json")
        assert "still pending" not in (await alice.recv())["text"]
    assert played.penalties == (0, 0)

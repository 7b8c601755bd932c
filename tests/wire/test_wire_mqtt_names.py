"""The MQTT names of the wire (`protocol.mqtt`): one bot-name rule for topic levels and client
ids, a final newline refused like any other character outside it, and the broker's refusal
codes read the same by the server's client and the bots'."""

from __future__ import annotations

from pathlib import Path

import aiomqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode
from pydantic import ValidationError

from arena.server.auth import TokenFileError, add_token
from arena.transports import mqtt_topics
from arena.transports.mqtt_refusals import login_refused
from protocol.messages import Hello, is_bot_name
from protocol.mqtt import (
    bot_client_id,
    connack_refusal,
    down_topic,
    is_bot_client_id,
    is_topic_level,
    parse_bot_topic,
    parse_up_topic,
    subscription_refused,
    up_topic,
)

NAMES = ["bot", "a-b", "x.y_z", "9" * 64, "", "9" * 65, "bot\n", "bo t", "b/t", "b+", "#", "bøt"]


@pytest.mark.parametrize("name", NAMES)
def test_one_rule_for_names_levels_and_hellos(name: str) -> None:
    try:
        Hello(name=name, games=["mahjong"])
        hello_takes_it = True
    except ValidationError:
        hello_takes_it = False
    assert is_bot_name(name) == is_topic_level(name) == hello_takes_it


@pytest.mark.parametrize(
    "topic",
    [
        "arena/v1/bots/bot\n/abc/up",
        "arena/v1/bots/bot/abc\n/up",
        "arena/v1/bots/bot/abc/up\n",
        "arena/v1/bots/+/abc/up",
        "arena/v1/bots/bot/#/up",
    ],
)
def test_a_topic_with_a_level_outside_the_rule_is_no_bot_topic(topic: str) -> None:
    assert parse_up_topic(topic) is None
    assert mqtt_topics.parse_up_topic(topic) is None
    assert not mqtt_topics.owns_topic("bot-abc", topic, "up")


def test_a_bot_topic_reads_back() -> None:
    assert parse_up_topic(up_topic("g1", "c0ffee")) == ("g1", "c0ffee")
    assert parse_bot_topic(down_topic("g-1", "c-0"), "down") == ("g-1", "c-0")
    assert mqtt_topics.owns_topic(bot_client_id("g1", "c0ffee"), up_topic("g1", "c0ffee"), "up")


@pytest.mark.parametrize("client_id", ["a-b\n", "a-\nb", "\na-b", "a-b c", "ab", "-ab", "ab-"])
def test_a_client_id_with_a_character_outside_the_rule_is_no_bots(client_id: str) -> None:
    assert not is_bot_client_id(client_id)
    assert mqtt_topics.topic_pairs(client_id) == []


def test_a_bots_client_id_names_its_topic_pairs() -> None:
    assert is_bot_client_id("a-b-c")
    assert mqtt_topics.topic_pairs("a-b-c") == [("a", "b-c"), ("a-b", "c")]


def test_a_token_is_refused_for_a_name_with_a_final_newline(tmp_path: Path) -> None:
    with pytest.raises(TokenFileError):
        add_token(tmp_path / "tokens.toml", "bot\n")


@pytest.mark.parametrize(
    ("rc", "reason"),
    [
        (4, "bad user name or password"),
        (5, "not authorized"),
        (ReasonCode(PacketTypes.CONNACK, identifier=134), "bad user name or password"),
        (ReasonCode(PacketTypes.CONNACK, identifier=135), "not authorized"),
        (ReasonCode(PacketTypes.CONNACK, identifier=136), None),  # server unavailable
        (3, None),
        (0, None),
        (None, None),
    ],
)
def test_a_connack_refusing_the_login_is_named(
    rc: int | ReasonCode | None, reason: str | None
) -> None:
    assert connack_refusal(rc) == reason
    assert login_refused(aiomqtt.MqttCodeError(rc, "refused")) == reason


def test_only_a_coded_error_is_a_refused_login() -> None:
    assert login_refused(aiomqtt.MqttError("[code:5] not authorized")) is None


def test_a_suback_failure_is_a_refused_subscription() -> None:
    assert not subscription_refused([0, 1, 2])
    assert subscription_refused([1, 0x80])
    assert not subscription_refused([ReasonCode(PacketTypes.SUBACK, identifier=1)])
    assert subscription_refused([ReasonCode(PacketTypes.SUBACK, identifier=135)])

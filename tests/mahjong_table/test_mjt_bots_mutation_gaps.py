"""Gaps a mutation audit of the mahjong baseline bots found (bots/mahjong, bots/base.py,
bots/registry.py): the greedy bot's kong rules (a kong that breaks a run is declined; an open
kong is valued with the replacement draw), its think time and request checks, the random bot's
stream per game and its refusals, `view.read`, and the registry's error messages."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.dealing import MatchSeed
from arena.games.mahjong.engine import new_game
from bots.mahjong import GreedyBot, RandomBot, choose, greedy
from bots.mahjong.view import TILE_INDEX, read
from bots.registry import (
    BotConfigError,
    UnknownBotError,
    bot_names,
    make_bot,
    read_config,
)
from protocol.games.mahjong import MahjongObservation, MeldView
from protocol.messages import Request

NO_DISCARDS: list[list[str]] = [[], [], [], []]
TILE_TEXT = {index: text for text, index in TILE_INDEX.items()}


def observation(
    tiles: str,
    phase: str = "discard",
    *,
    drawn: str | None = None,
    claim_tile: str | None = None,
    melds: list[list[MeldView]] | None = None,
    seat: int = 0,
) -> MahjongObservation:
    """Seat ``seat``'s view with ``tiles`` concealed, nothing discarded yet."""
    return MahjongObservation(
        seat=seat,
        round=0,
        hand=0,
        dealer=0,
        seat_wind="ESWN"[seat],
        tiles=tiles,
        drawn=drawn,
        melds=melds or [[], [], [], []],
        discards=NO_DISCARDS,
        concealed_counts=[16, 16, 16, 16],
        flowers=None,
        wall=50,
        scores=[0, 0, 0, 0],
        phase=phase,
        turn=seat if phase == "discard" else (seat + 3) % 4,
        claim_tile=claim_tile,
        last=None,
    )


def discards_of(tiles: str) -> list[str]:
    counts = read(observation(tiles)).hand
    return [f"discard {TILE_TEXT[t]}" for t in range(34) if counts[t]]


# --- greedy: kongs ------------------------------------------------------------------------------


def test_greedy_keeps_four_of_a_kind_when_one_copy_completes_a_run() -> None:
    # 789m 999m 123p 456p 77s and three lone honours: a concealed kong of 9m would break the
    # 789m run (78m left), so the greedy bot discards a lone honour instead.
    tiles = "789999m123p456p77s135z"
    legal = ["ckong 9m", *discards_of(tiles)]
    picked = choose(observation(tiles, drawn="9m"), legal)
    assert picked in ("discard 1z", "discard 3z", "discard 5z")
    # Without the run, the kong costs nothing and is declared.
    plain = "9999m123p456p789s77s135z"
    assert choose(observation(plain, drawn="9m"), ["ckong 9m", *discards_of(plain)]) == "ckong 9m"


def test_greedy_adds_to_its_pon_only_when_the_fourth_tile_is_loose() -> None:
    pon = [[MeldView(kind="pon", tiles="999m", from_seat=1)], [], [], []]
    # The fourth 9m completes 789m in hand: adding it to the pon would break the run.
    tiles = "789m123p456p77s135z"
    picked = choose(observation(tiles, drawn="9m", melds=pon), ["akong 9m", *discards_of(tiles)])
    assert picked in ("discard 1z", "discard 3z", "discard 5z")
    loose = "9m123p456p789s77s135z"
    assert choose(observation(loose, drawn="9m", melds=pon), ["akong 9m", *discards_of(loose)]) == (
        "akong 9m"
    )


def test_greedy_pons_rather_than_kongs_when_the_third_copy_completes_a_run() -> None:
    # 78999m: a kong of the discarded 9m takes all three 9m (78m left), a pon keeps 789m.
    seen = observation("78999m123p456p77s135z", "claim", claim_tile="9m")
    assert choose(seen, ["kong", "pon", "pass"]) == "pon"


# --- greedy: settings, thinking and requests -----------------------------------------------------


def test_greedy_names_its_unknown_settings_sorted_and_hints_from_the_first() -> None:
    with pytest.raises(ValueError, match=r"got \['thinkms', 'zz'\] \(did you mean 'think_ms'\?\)"):
        GreedyBot("g", {"zz": 1, "thinkms": 2})


def dealer_request() -> Request:
    game = new_game({}, MatchSeed.from_text("gaps"), {"round": 0, "hand": 0})
    listed, _hint = game.describe_legal(0)
    return Request(seq=1, deadline_ms=1000, legal=listed, observation=game.observation(0))


def test_greedy_spends_its_think_time_in_cpu_time_and_answers_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fake CPU clock, one millisecond a reading: nothing is timed."""
    readings: list[float] = []

    def thread_time() -> float:
        readings.append(len(readings) / 1000)
        return readings[-1]

    request = dealer_request()
    quick = asyncio.run(GreedyBot("g").act(request))
    monkeypatch.setattr(greedy, "time", SimpleNamespace(thread_time=thread_time))
    thoughtful = asyncio.run(GreedyBot("g", {"think_ms": 5}).act(request))
    assert thoughtful == quick
    assert readings[-1] - readings[0] >= 0.005  # it kept reading until 5 ms had passed


def test_greedy_refuses_a_request_without_legal_actions() -> None:
    request = dealer_request().model_copy(update={"legal": None})
    with pytest.raises(ValueError, match="needs a mahjong request with legal actions"):
        asyncio.run(GreedyBot("g").act(request))


# --- random -------------------------------------------------------------------------------------


def test_random_refuses_unknown_options() -> None:
    with pytest.raises(ValueError, match=r"unknown random mahjong bot options: \['depth'\]"):
        RandomBot("r", {"seed": 1, "depth": 2})


@pytest.mark.parametrize("legal", [None, []])
def test_random_refuses_a_request_that_lists_no_legal_actions(legal: list[str] | None) -> None:
    request = dealer_request().model_copy(update={"legal": legal})
    with pytest.raises(ValueError, match="needs a request that lists legal actions"):
        asyncio.run(RandomBot("r").act(request))


def test_random_plays_a_game_the_same_whatever_it_played_before() -> None:
    """Each game has its own stream: a match resumed at its second game, with a fresh bot,
    plays that game as the bot that had played the first one did."""
    base = dealer_request()
    assert base.legal is not None and len(base.legal) > 8

    def picks(bot: RandomBot, game: str) -> list[str]:
        request = base.model_copy(update={"match": "m", "game": game, "seat": 0})
        return [asyncio.run(bot.act(request)) for _ in range(8)]

    veteran = RandomBot("r", {"seed": "s"})
    first = picks(veteran, "g1")
    second = picks(veteran, "g2")
    assert picks(RandomBot("r", {"seed": "s"}), "g2") == second
    assert second != first


# --- view.read ----------------------------------------------------------------------------------


def test_read_counts_the_seats_own_sets_its_drawn_tile_and_what_it_can_see() -> None:
    melds = [
        [
            MeldView(kind="pon", tiles="111z", from_seat=1),
            MeldView(kind="chi", tiles="123m", from_seat=3),
        ],
        [MeldView(kind="ckong", tiles=None, from_seat=None)],
        [MeldView(kind="kong", tiles="5555p", from_seat=0)],
        [],
    ]
    seen = observation("11m456s789s2z", drawn="2z", melds=melds, seat=2).model_copy(
        update={"discards": [["9m"], [], ["2z"], []]}
    )
    view = read(seen)
    assert view.melds == 1  # seat 2's own kong, not seat 0's two sets
    assert view.drawn == TILE_INDEX["2z"] and view.claim_tile == -1
    assert view.hand[TILE_INDEX["1m"]] == 2 and sum(view.hand) == 9
    expected = {"1m": 3, "2m": 1, "9m": 1, "5p": 4, "1z": 3, "2z": 2}
    for text, n in expected.items():
        assert view.visible[TILE_INDEX[text]] == n, text


# --- base and registry --------------------------------------------------------------------------


def test_a_bot_shows_its_class_and_name() -> None:
    assert repr(make_bot("mahjong", "greedy", name="north")) == "GreedyBot('north')"


def test_a_strategy_key_that_is_not_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text("strategy = 3\n", encoding="utf-8")
    with pytest.raises(BotConfigError, match=r"strategy must be a bot name \(text\), got 3$"):
        read_config(path)


def test_an_unreadable_config_is_one_line_with_the_reason(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(BotConfigError) as caught:
        read_config(missing)
    assert str(caught.value) == f"cannot read bot config {missing}: No such file or directory"
    broken = tmp_path / "broken.toml"
    broken.write_text("think_ms = \n", encoding="utf-8")
    with pytest.raises(BotConfigError) as caught:
        read_config(broken)
    assert str(caught.value).startswith(f"{broken}: not valid TOML: ")
    assert "line 1" in str(caught.value)  # the parser's own words say where


def test_an_unknown_game_or_bot_is_named_with_what_there_is() -> None:
    with pytest.raises(UnknownBotError, match="no bots for game 'chess'; games: bulls_cows, "):
        make_bot("chess", "greedy")
    with pytest.raises(
        UnknownBotError, match=r"no mahjong bot named 'grredy'; known: greedy, random$"
    ):
        make_bot("mahjong", "grredy")


def test_numbered_bots_are_listed_in_number_order() -> None:
    names = bot_names("liars_dice")
    assert names.index("type2") < names.index("type10") < names.index("type32")
    with pytest.raises(UnknownBotError) as caught:
        make_bot("liars_dice", "type99")
    known = str(caught.value).split("known: ")[1].split(", ")
    assert known == names

"""Liar's dice players: the seed's tables, the personalities' traits, legality, learning, I/O."""

from __future__ import annotations

import asyncio
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from duels import type21_outcomes

from arena.dealing import MatchSeed, RandomStream
from arena.games.liars_dice import CHALLENGE, Bid, LiarsDiceGame, LiarsDiceRules, new_game
from arena.matches.liars_dice_series import make_ld_bot, play_direct, play_duel, play_refereed
from bots.liars_dice import (
    BOTS,
    PERSONALITIES,
    Bayes,
    ConfigError,
    OpponentModel,
    Personality,
    RandomGuess,
    TableView,
)
from bots.liars_dice.view import tail_counts
from bots.registry import make_bot
from protocol.games.common import MatchStart


def _stream(text: str) -> RandomStream:
    return MatchSeed.from_text(text).stream("test")


def _view(dice: list[int], bids: list[tuple[int, Bid]], seat: int = 0) -> TableView:
    first = bids[0][0] if bids else seat
    game = LiarsDiceGame.with_dice(LiarsDiceRules(), [dice, [1, 2, 3, 4, 5]], first=first)
    for bidder, bid in bids:
        game.apply(bidder, bid)
    return TableView.from_observation(game.observation(seat))


def test_table_4_7_combination_counts() -> None:
    assert tail_counts(5) == (7776, 4651, 1526, 276, 26, 1)
    assert tail_counts(1, 2) == (6, 2)  # one die, a face plus wild ones: two sides match


def test_registry_names() -> None:
    expected = {"random-guess", "bayes", "probability"} | {f"type{i}" for i in range(1, 33)}
    assert set(BOTS) == expected
    assert list(PERSONALITIES) == [f"type{i}" for i in range(1, 33)]


@pytest.mark.parametrize(
    ("name", "traits"),
    [
        ("type1", (True, True, True, False, True)),
        ("type8", (True, False, False, True, True)),
        ("type9", (False, True, True, False, True)),
        ("type23", (True, False, False, False, False)),
        ("type31", (False, False, False, False, False)),
        ("type32", (False, False, False, True, False)),
    ],
)
def test_appendix_traits(name: str, traits: tuple[bool, ...]) -> None:
    t = PERSONALITIES[name]
    assert (t.honest, t.trusting, t.high_cap, t.strong_attack, t.prefers_challenge) == traits


def _personality(name: str, seed: str = "p") -> Personality:
    player = Personality(name, PERSONALITIES[name])
    player.begin_game(_stream(seed), 0, ["a", "b"])
    return player


@pytest.mark.parametrize(("name", "strongest_share"), [("type1", 0.7), ("type9", 0.3)])
def test_honest_and_liar_face_choice(name: str, strongest_share: float) -> None:
    """§5.1 trait 1: honest bids its most-held face 70% of the time and a face it lacks 30%;
    a liar the other way round. Never any other face."""
    player = _personality(name)
    view = _view([3, 3, 3, 5, 6], [])
    faces: Counter[int] = Counter()
    for _ in range(2000):
        bid = player.decide(view)
        assert isinstance(bid, Bid) and bid.count == 2  # weak attack: the least opening
        faces[bid.face] += 1
    assert set(faces) <= {3, 1, 2, 4}
    assert abs(faces[3] / 2000 - strongest_share) < 0.04


def test_strong_attack_jumps_half_the_time() -> None:
    player = _personality("type2")
    view = _view([3, 3, 3, 5, 6], [])
    counts = Counter(
        b.count for b in (player.decide(view) for _ in range(2000)) if isinstance(b, Bid)
    )
    assert set(counts) == {2, 3} and abs(counts[3] / sum(counts.values()) - 0.5) < 0.05


def test_cap_forces_a_challenge() -> None:
    for name in ("type17", "type3"):
        player = _personality(name)
        view = _view([4, 4, 4, 4, 4], [(1, Bid(player.cap, 4))], seat=0)
        assert player.decide(view) == CHALLENGE  # even holding five of the face
    assert {_personality("type1", str(i)).cap for i in range(40)} == {5, 6}
    assert {_personality("type3", str(i)).cap for i in range(40)} == {4, 5}


def test_trusting_believes_and_suspicious_doubts() -> None:
    """Trusting: the bidder holds x or x−1, so with one die of the face it never challenges
    below its cap. Suspicious: x−1 or x−2, so holding none it always challenges (type5
    prefers to challenge)."""
    trusting, suspicious = _personality("type1"), _personality("type5")
    holding_one = _view([2, 3, 4, 5, 6], [(1, Bid(3, 4))])
    holding_none = _view([2, 3, 5, 5, 6], [(1, Bid(3, 4))])
    for _ in range(300):
        assert trusting.decide(holding_one) != CHALLENGE
        assert suspicious.decide(holding_none) == CHALLENGE


@pytest.mark.parametrize("name", ["random-guess", "bayes", "probability", "type1", "type26"])
def test_every_answer_is_legal(name: str) -> None:
    rules = {"players": 3, "ones_wild": True, "series": True, "dice": 3}
    bots = [make_ld_bot(name, {"seed": str(i)}) for i in range(3)]
    for k in range(15):
        game = new_game(rules, MatchSeed.from_text("legal"), {"game_index": k, "first": k % 3})
        for seat, bot in enumerate(bots):
            bot.begin("m", f"g{k}", seat, ["x", "y", "z"])
        while not game.is_over():
            for event in game.drain_events():
                for seat, bot in enumerate(bots):
                    if event.visible_to(seat):
                        bot.handle("m", f"g{k}", event.payload)
            (seat,) = game.to_act()
            action = game.parse_action(bots[seat].choose("m", f"g{k}", game.observation(seat)))
            assert game.is_legal(seat, action), (name, action)
            game.apply(seat, action)


def test_random_guess_flow_bids_a_sure_thing_when_not_challenging() -> None:
    """圖 4.5: facing "4 of 3" with four 4s, 'four 4s' is safe; the §4.2.3 flow must be able to
    bid it (a challenge-first order never would)."""
    player = RandomGuess()
    player.begin_game(_stream("flow"), 0, ["a", "b"])
    view = _view([4, 4, 4, 4, 2], [(1, Bid(4, 3))])
    answers = Counter(str(player.decide(view)) for _ in range(400))
    assert answers["challenge"] > 0 and any(a.startswith("bid ") for a in answers)
    assert player.give_ups == 0


def test_bayes_learns_liars_from_honest_players() -> None:
    seed = MatchSeed.from_text("learn")
    rates = {}
    for opponent in ("type1", "type9"):
        bot = make_ld_bot("bayes", {"seed": "1"})
        play_duel(bot, make_ld_bot(opponent), 150, seed, match_id="learn", driver="direct")
        assert isinstance(bot.strategy, Bayes)
        rates[opponent] = bot.strategy.models[opponent].p_opening_lie()
    assert rates["type1"] < 0.45 < 0.55 < rates["type9"]


def test_bayes_tables_save_and_load(tmp_path: Path) -> None:
    seed = MatchSeed.from_text("tables")
    trained = make_ld_bot("bayes", {"seed": "1", "tables_dir": str(tmp_path)})
    play_duel(trained, make_ld_bot("type12"), 60, seed, match_id="t", driver="direct")
    path = tmp_path / "type12.json"
    assert path.exists()
    assert isinstance(trained.strategy, Bayes)
    saved = trained.strategy.models["type12"]
    assert saved.games == 60
    fresh = Bayes(tables_dir=tmp_path)
    assert fresh.model_for("type12") == saved
    assert OpponentModel.from_json(saved.to_json()) == saved
    # A bot that loads the tables plays exactly as the one that learnt them.
    again = make_ld_bot("bayes", {"seed": "1", "tables_dir": str(tmp_path)})
    again_copy = make_ld_bot("bayes", {"seed": "1"})
    assert isinstance(again_copy.strategy, Bayes)
    again_copy.strategy.models["type12"] = OpponentModel.from_json(saved.to_json())
    one = play_duel(again, make_ld_bot("type12"), 20, seed, match_id="u", driver="direct")
    two = play_duel(again_copy, make_ld_bot("type12"), 20, seed, match_id="u", driver="direct")
    assert one.outcomes == two.outcomes


def test_a_bot_that_plays_match_after_match_starts_each_as_a_fresh_bot(tmp_path: Path) -> None:
    # `bots run` builds a bot once and plays every match it is seated for: what bayes learnt in
    # one match must not change the next, or the same seed would not replay it.
    first, second = MatchSeed.from_text("first"), MatchSeed.from_text("second")
    veteran = make_ld_bot("bayes", {"seed": "1"})
    play_duel(veteran, make_ld_bot("type5"), 40, first, match_id="m1", driver="direct")
    replayed = play_duel(veteran, make_ld_bot("type5"), 40, second, match_id="m2", driver="direct")
    fresh = make_ld_bot("bayes", {"seed": "1"})
    alone = play_duel(fresh, make_ld_bot("type5"), 40, second, match_id="m2", driver="direct")
    assert replayed.outcomes == alone.outcomes
    assert isinstance(veteran.strategy, Bayes) and veteran.strategy.models["type5"].games == 40
    # Over a server a match of the same seed has the same id: its match_start says it is new.
    again = make_ld_bot("bayes", {"seed": "1"})
    play_duel(again, make_ld_bot("type5"), 40, first, match_id="m2", driver="direct")
    players = ["bayes", "type5"]
    start = MatchStart(game_kind="liars_dice", players=players, games=40, seed_commitment="0" * 64)
    again.handle("m2", None, start)
    rerun = play_duel(again, make_ld_bot("type5"), 40, second, match_id="m2", driver="direct")
    assert rerun.outcomes == alone.outcomes
    # With tables_dir what it learnt is kept through the files, read again in the next match.
    options = {"seed": "1", "tables_dir": str(tmp_path / "kept")}
    keeper = make_ld_bot("bayes", options)
    play_duel(keeper, make_ld_bot("type5"), 40, first, match_id="m1", driver="direct")
    play_duel(keeper, make_ld_bot("type5"), 40, second, match_id="m2", driver="direct")
    assert isinstance(keeper.strategy, Bayes) and keeper.strategy.models["type5"].games == 80


def test_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match="'speed'"):
        make_bot("liars_dice", "bayes", {"speed": 3})
    with pytest.raises(ConfigError, match="'real_guess'"):
        make_bot("liars_dice", "random-guess", {"real_guess": "yes"})
    with pytest.raises(ConfigError, match="'belief'"):
        make_bot("liars_dice", "bayes", {"belief": "maybe"})
    with pytest.raises(ConfigError, match="'networks': unknown networks \\['ours'\\]"):
        make_bot("liars_dice", "bayes", {"networks": ["opening", "ours"]})
    with pytest.raises(ConfigError, match="'networks' must be list"):
        make_bot("liars_dice", "bayes", {"networks": "opening"})


def test_bayes_without_networks_is_random_guess_draw_for_draw() -> None:
    """The networks are the only difference: switched off, the same stream gives the same
    games; each network switched off alone changes them."""

    def outcomes(strategy: RandomGuess) -> list[bool]:
        return type21_outcomes(strategy, "networks")

    plain = outcomes(RandomGuess())
    assert outcomes(Bayes(networks=())) == plain
    full = outcomes(Bayes())
    assert full != plain
    for dropped in ("opening", "response", "our_opening"):
        kept = [name for name in ("opening", "response", "our_opening") if name != dropped]
        assert outcomes(Bayes(networks=kept)) not in (plain, full), dropped


def test_both_drivers_play_the_same_games() -> None:
    seed = MatchSeed.from_text("drivers")

    def games(refereed: bool) -> list[tuple[tuple[float, ...], int]]:
        bots = (make_ld_bot("bayes", {"seed": "3"}), make_ld_bot("type6", {"seed": "3"}))
        out = []
        for k in range(12):
            if refereed:
                result, n = asyncio.run(play_refereed(bots, seed, game_index=k, first=k % 2))
            else:
                result, n = play_direct(bots, seed, game_index=k, first=k % 2)
            out.append((result.scores, n))
        return out

    assert games(refereed=True) == games(refereed=False)


def test_real_number_guessing_plays() -> None:
    bot = make_ld_bot("random-guess", {"real_guess": True})
    duel = play_duel(bot, make_ld_bot("type3"), 30, MatchSeed.from_text("r"), match_id="r")
    assert duel.games == 30


@pytest.mark.parametrize(
    "path",
    sorted((Path(__file__).parents[2] / "configs" / "bots" / "liars_dice").glob("*.toml")),
    ids=lambda path: path.name,
)
def test_every_shipped_config_builds_its_bot(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """configs/bots/liars_dice/<strategy>-<what>.toml configures <strategy>."""
    monkeypatch.chdir(tmp_path)  # a config's relative tables_dir is made here, not in the repo
    strategy = max((name for name in BOTS if path.stem.startswith(f"{name}-")), key=len)
    config = tomllib.loads(path.read_text(encoding="utf-8"))
    assert make_bot("liars_dice", strategy, config).name == strategy

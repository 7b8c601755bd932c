"""``arena mahjong explain``: seed 001's examples step by step (theorem 2's piles, theorem 1's
pass after each pair), and a verdict that is always `is_winning`'s."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.games.mahjong.analysis import is_winning, pair_candidates, winning_decompositions
from arena.games.mahjong.census import _pattern_sizes
from arena.games.mahjong.explain import Explanation, SuitPass, explain, parse_hand
from arena.games.mahjong.tiles import MahjongError, NotationError, TileCountError, format_tiles

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["mahjong", "explain", *args])
    return result.exit_code, result.stdout, result.stderr


def flat(text: str) -> str:
    return " ".join(text.split())


def of(text: str, any_copies: bool = False) -> Explanation:
    return explain(parse_hand(text, any_copies))


def tried(e: Explanation) -> dict[str, tuple[bool, list[str], str, str | None]]:
    """Each pair (``"55m"``) → (allowed by theorem 2, sets taken, tiles left, why it stopped)."""
    out = {}
    for t in e.pairs:
        steps = t.steps
        reason = None if steps.stop is None else steps.stop.reason
        sets = [str(s) for s in steps.sets]
        out[format_tiles([t.pair] * 2)] = (t.allowed, sets, steps.left, reason)
    return out


# ----------------------------------------------------------------------------- seed 001's examples


def test_example_1_pair_33_then_345_678() -> None:
    """例1: 33345678: the only pair is 33, leaving 345678, which wins."""
    e = of("33345678m")
    assert [(s.suit, s.tiles, s.remainder) for s in e.suits] == [(0, 8, 2)]
    assert e.pair_suit == 0
    assert e.piles is not None and e.piles.tiles == (2, 2, 4)
    assert e.piles.remainders == (2, 2, 1) and e.piles.pair_pile == 2  # 3-6-9
    assert tried(e) == {"33m": (True, ["345m", "678m"], "", None)}
    assert e.wins and e.split == "33m 345m 678m"
    assert e.others == ()


def test_example_2_every_pair_fails_and_theorem_2_leaves_77() -> None:
    """例2: 55666777889: 55, 66, 77 (and 88) can be the pair; each fails. 55: 666 then 777
    leave 889; 66 and 77: two 5s but 567 cannot be taken twice. Theorem 2 (piles 3, 4, 4,
    remainders 0, 1, 1) leaves only the 1-4-7 pile: 77."""
    e = of("55666777889m")
    assert e.piles is not None and e.piles.tiles == (3, 4, 4)
    assert e.piles.remainders == (0, 1, 1) and e.piles.pair_pile == 0
    twice = "5 is held twice but 567 cannot be taken twice"
    assert tried(e) == {
        "55m": (
            False,
            ["666m", "777m"],
            "889m",
            "8 is held twice, too few for a pung, and no chow starts at 8",
        ),
        "66m": (False, [], "556777889m", twice),
        "77m": (True, [], "556667889m", twice),
        "88m": (False, ["567m", "567m"], "679m", "6 has 7 but no 8 after it"),
    }
    assert not e.wins and e.split is None
    assert e.verdict == (
        "not winning: theorem 1 stops after every pair of the pile 1-4-7 (一四七) of m (77m)"
    )


def test_example_3_wait_on_2_and_3() -> None:
    """例3, 3456667888 plus 2: pair 66 leaves 234567888, a win; pair 88 leaves 234566678, no
    win. Plus 3: pair 66 or 88 leaves a hand starting 334, no win."""
    e = of("23456667888m")
    assert tried(e) == {
        "66m": (True, ["234m", "567m", "888m"], "", None),
        "88m": (False, ["234m", "567m"], "668m", "6 has no 7 after it"),
    }
    assert e.split == "66m 234m 567m 888m"
    e = of("33456667888m")
    assert not e.wins
    steps = tried(e)
    assert steps["66m"][1:] == ([], "334567888m", "3 is held twice but 345 cannot be taken twice")
    assert steps["88m"][2].startswith("334")


def test_theorem_2_example_pair_44() -> None:
    """古天樂's hand 23333444455556666: the piles hold 4, 5 and 8 tiles (remainders 1, 2, 2),
    so the pair can only be 44; then 234 333 456 555 666, a win."""
    e = of("23333444455556666m")
    assert e.piles is not None and e.piles.tiles == (4, 5, 8)
    assert e.piles.remainders == (1, 2, 2) and e.piles.pair_pile == 0
    steps = tried(e)
    assert [p for p, (allowed, *_) in steps.items() if allowed] == ["44m"]
    assert list(steps) == ["33m", "44m", "55m", "66m"]
    assert steps["44m"] == (True, ["234m", "333m", "456m", "555m", "666m"], "", None)
    assert e.split == "44m 234m 333m 456m 555m 666m"


def test_more_than_four_copies_thought_experiment() -> None:
    """33333444555566777888899999 (more than four copies): 3-6-9 has 12 tiles, 1-4-7 6, 2-5-8
    8 (remainders 0, 0, 2), so the pair is 55 or 88. With 55: 333, 345, 345, leaving
    466777888899999, broken after the 4. With 88: 333 345 345 456 567 789 789 999, a win."""
    text = "33333444555566777888899999m"
    with pytest.raises(TileCountError, match="fifth copy of 3m"):
        parse_hand(text)
    e = of(text, any_copies=True)
    assert e.tiles == 26
    assert e.piles is not None and e.piles.tiles == (6, 8, 12)
    assert e.piles.remainders == (0, 2, 0) and e.piles.pair_pile == 1
    steps = tried(e)
    assert [p for p, (allowed, *_) in steps.items() if allowed] == ["55m", "88m"]
    assert steps["55m"] == (
        True,
        ["333m", "345m", "345m"],
        "466777888899999m",
        "4 has no 5 after it",
    )
    sets = ["333m", "345m", "345m", "456m", "567m", "789m", "789m", "999m"]
    assert steps["88m"] == (True, sets, "", None)
    assert e.wins and e.split == "88m " + " ".join(sets)


# ----------------------------------------------------------------------------- other suits, honours


def test_mixed_suits_honours_and_suit_counts() -> None:
    e = of("123m456p789s11z")
    assert e.pair_suit == 3 and e.piles is None
    assert [(t.pair, t.allowed) for t in e.pairs] == [(27, True)]
    assert [(p.suit, [str(s) for s in p.sets]) for p in e.others] == [
        (0, ["123m"]),
        (1, ["456p"]),
        (2, ["789s"]),
    ]
    assert e.split == "11z 123m 456p 789s"
    e = of("123m456p134s11z")
    assert not e.wins
    assert e.others[2] == SuitPass(2, None, (), e.others[2].stop, "134s")
    assert e.others[2].stop is not None and e.others[2].stop.reason == "1 has no 2 after it"
    assert e.verdict == "not winning: s cannot split into sets"
    e = of("11122z")
    assert [(t.pair, t.steps.splits) for t in e.pairs] == [(27, False), (28, True)]
    assert e.pairs[0].steps.stop is not None
    assert e.pairs[0].steps.stop.reason == (
        "1z is held once, too few for a pung, and honours form no chows"
    )
    e = of("1m1p123s")
    assert e.pair_suit is None and e.pairs == ()
    assert e.suit_problem is not None and e.suit_problem.startswith("m and p hold 1 tile more")
    e = of("11m22p22s22z")
    assert e.suit_problem is not None and e.suit_problem.startswith("m, p, s and z all hold 2")
    e = of("124m11p")
    assert e.verdict == "not winning: m cannot split into sets"
    e = of("12356m")
    assert e.verdict == (
        "not winning: no tile of the pile 1-4-7 (一四七) of m is held twice, so there is no pair"
    )


def test_parse_hand_sizes_and_notation() -> None:
    assert sum(parse_hand("11m")) == 2
    with pytest.raises(MahjongError, match="3k\\+2 tiles, 2 to 17; got 4"):
        parse_hand("1122m")
    with pytest.raises(MahjongError, match="got 20"):
        parse_hand("11112222333344445555m")
    with pytest.raises(MahjongError, match="3k\\+2 tiles; got 21"):
        parse_hand("111112222233333444445m", any_copies=True)
    big = parse_hand("11111222223333344444m 555m", any_copies=True)
    assert big[:5] == [5, 5, 5, 5, 3]
    for bad in ("12x", "1m 2", "8z11m", "m1", "0m", "1 2m", "1f"):
        with pytest.raises(NotationError):
            parse_hand(bad, any_copies=True)


# ----------------------------------------------------------------------------- against is_winning


def _one_suit(size: int) -> list[list[int]]:
    codes = np.flatnonzero(_pattern_sizes() == size)
    return ((codes[:, None] // 5 ** np.arange(9)) % 5).tolist()


def _check(counts: list[int]) -> None:
    e = explain(counts)
    assert e.wins == is_winning(counts), counts
    # Theorem 2: a pair outside the pile never splits; the pile's pairs are `pair_candidates`.
    assert not any(t.steps.splits for t in e.pairs if not t.allowed), counts
    if e.pair_suit is not None and e.pair_suit < 3 and all(n % 3 == 0 for n in counts[27:]):
        assert [t.pair for t in e.pairs if t.allowed] == pair_candidates(counts), counts
    if e.wins:
        assert e.split is not None
        found = {" ".join(sorted(str(d).split())) for d in winning_decompositions(counts)}
        assert " ".join(sorted(e.split.split())) in found


def test_verdict_is_is_winning_on_every_small_one_suit_hand() -> None:
    hands = [h for size in (2, 5, 8) for h in _one_suit(size)]
    assert len(hands) == 45 + 1278 + 11385
    for h in hands:
        _check([*h, *([0] * 25)])


def test_verdict_is_is_winning_on_sampled_hands() -> None:
    rng = random.Random(1)
    for size in (11, 14, 17):
        hands = _one_suit(size)
        for h in rng.sample(hands, 1500):
            suit = rng.randrange(3)
            counts = [0] * 34
            counts[9 * suit : 9 * suit + 9] = h
            _check(counts)
    wall = [t for t in range(34) for _ in range(4)]
    wins = 0
    for i in range(3000):
        if i % 2:
            counts = [0] * 34
            for t in rng.sample(wall, 14 if i % 4 == 1 else 17):
                counts[t] += 1
        else:
            counts = _winning(rng, 4 + i % 4 // 2)
            if rng.random() < 0.5:
                counts[rng.choice([t for t in range(34) if counts[t]])] -= 1
                counts[rng.choice([t for t in range(34) if counts[t] < 4])] += 1
        _check(counts)
        wins += is_winning(counts)
    assert 300 < wins < 2000


def _winning(rng: random.Random, sets: int) -> list[int]:
    while True:
        counts = [0] * 34
        for _ in range(sets):
            if rng.random() < 0.6:
                t = rng.randrange(3) * 9 + rng.randrange(7)
                for k in range(3):
                    counts[t + k] += 1
            else:
                counts[rng.randrange(34)] += 3
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            return counts


# ----------------------------------------------------------------------------- the command


def test_text_output_of_the_seed_examples() -> None:
    code, out, _ = run("55666777889m")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "55666777889m: 11 tiles"
    assert "1-4-7 (一四七)   3 tiles, 0 mod 3  ← the pair is here" in out
    assert "2-5-8 (二五八)   4 tiles, 1 mod 3" in out
    assert (
        "55m   ruled out by theorem 2  666m 777m, left 889m: 8 is held twice, too few for a "
        "pung, and no chow starts at 8"
    ) in out
    assert (
        "77m   tried                   left 556667889m: 5 is held twice but 567 cannot be taken "
        "twice"
    ) in out
    assert lines[-1].startswith("verdict: not winning")
    code, out, _ = run("33345678m")
    assert code == 0 and "33m   tried  345m 678m: wins" in out
    assert out.splitlines()[-1] == "verdict: winning: 33m 345m 678m"
    code, out, _ = run("23333444455556666m")
    assert "44m   tried                   234m 333m 456m 555m 666m: wins" in out
    code, out, _ = run("33333444555566777888899999m", "--any-copies")
    assert code == 0
    assert "333m 345m 345m, left 466777888899999m: 4 has no 5 after it" in out
    assert out.splitlines()[-1] == "verdict: winning: 88m 333m 345m 345m 456m 567m 789m 789m 999m"
    code, out, _ = run("123m456p134s11z")
    assert "the other suits must split into sets alone" in out
    assert "left 134s: 1 has no 2 after it" in out


def test_json_output() -> None:
    code, out, _ = run("55666777889m", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["hand"] == "55666777889m" and data["tiles"] == 11
    assert data["wins"] is False and data["split"] is None
    assert data["suits"] == [{"suit": "m", "tiles": 11, "mod3": 2}]
    assert data["pair_suit"] == "m" and data["suit_problem"] is None
    assert data["piles"] == [
        {"pile": "147", "tiles": 3, "mod3": 0},
        {"pile": "258", "tiles": 4, "mod3": 1},
        {"pile": "369", "tiles": 4, "mod3": 1},
    ]
    assert data["pair_pile"] == "147"
    assert [(p["pair"], p["theorem_2"]) for p in data["pairs"]] == [
        ("55m", "ruled out"),
        ("66m", "ruled out"),
        ("77m", "tried"),
        ("88m", "ruled out"),
    ]
    assert data["pairs"][0] == {
        "pair": "55m",
        "theorem_2": "ruled out",
        "sets": ["666m", "777m"],
        "splits": False,
        "left": "889m",
        "stop": "8 is held twice, too few for a pung, and no chow starts at 8",
    }
    data = json.loads(run("123m456p789s11z", "--json")[1])
    assert data["piles"] is None and data["pair_pile"] is None and data["wins"] is True
    assert data["others"][0] == {
        "suit": "m",
        "sets": ["123m"],
        "splits": True,
        "left": "",
        "stop": None,
    }


def test_errors_exit_2_with_a_message() -> None:
    code, _, err = run("33333444555566777888899999m")
    assert code == 2
    assert "fifth copy of 3m" in flat(err) and "--any-copies" in flat(err)
    code, _, err = run("1122m")
    assert code == 2 and "3k+2 tiles, 2 to 17; got 4" in flat(err)
    code, _, err = run("123m45x")
    assert code == 2 and "'x' at position 6" in flat(err)
    code, _, err = run("3333344m", "--any-copies")
    assert code == 2 and "3k+2 tiles; got 7" in flat(err)


def test_help_documents_the_json_shape_and_the_flag() -> None:
    text = flat(run("--help")[1])
    assert '"theorem_2": "tried"' in text and "--any-copies" in text

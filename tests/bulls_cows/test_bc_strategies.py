"""1A2B strategies: the seed's figures, the figures of merit, and the shipped trees."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from arena.bench.bulls_cows import evaluate_evader, evaluate_fixed, walk_tree
from arena.dealing import MatchSeed
from arena.games.bulls_cows import CodeSpace, code_space
from bots.bulls_cows import (
    EntropyGuesser,
    EvaderAnswerer,
    FixedAnswerer,
    FrequencyGuesser,
    RandomGuesser,
    SuperComparisonGuesser,
    TreeGuesser,
    load_tree,
    trees,
)
from bots.bulls_cows.answerers import protect_range
from bots.bulls_cows.guessers import (
    consistent,
    entropy_pick,
    frequency_weights,
    partition_counts,
    super_comparison_pick,
)
from bots.bulls_cows.search import ExactSearch, lower_bounds, tree_depths
from bots.bulls_cows.trees import tree_for

SEED = MatchSeed.from_text("bc-strategies")


def indices(codes: list[str]) -> np.ndarray:
    space = code_space()
    return np.array([space.index[c] for c in codes], dtype=np.int64)


def test_frequency_weights_are_the_seeds_figure_four() -> None:
    # 圖二–圖四: the range {782, 872, 951, 436}; weights 7, 7, 8, 5; 436 is chosen.
    space = code_space()
    remaining = np.sort(indices(["782", "872", "951", "436"]))
    weights = dict(
        zip(
            (space.codes[i] for i in remaining),
            frequency_weights(space, remaining).tolist(),
            strict=True,
        )
    )
    assert weights == {"782": 7, "872": 7, "951": 8, "436": 5}


def test_frequency_guesser_picks_the_least_weight() -> None:
    space = code_space()
    # The history 123 → 0A0B, 456 → 0A0B leaves the six orders of 7, 8, 9.
    history = [(space.index["123"], space.encode(0, 0)), (space.index["456"], space.encode(0, 0))]
    assert [space.codes[i] for i in consistent(space, history)] == [
        "789", "798", "879", "897", "978", "987",
    ]  # fmt: skip
    # Every symbol occurs twice in each position: all ranks tie, alphabet order decides.
    guesser = FrequencyGuesser(SEED.stream("frequency"))
    assert space.codes[guesser.choose(space, history)] == "789"


def test_evader_keeps_the_widest_class_as_in_figure_one() -> None:
    # 圖一: the range {681, 724, 539, 137}, the guess 123: 0A1B keeps two codes, 1A0B and 1A1B
    # one each, and 0A0B or 0A2B would leave none (cheating).
    space = code_space()
    remaining = np.sort(indices(["681", "724", "539", "137"]))
    for run in range(5):
        stream = SEED.stream("evader", run)
        answer = protect_range(space, remaining, space.index["123"], stream)
        assert space.feedback_text(answer) == "0A1B"


def test_evader_breaks_ties_at_random() -> None:
    space = code_space()
    remaining = np.sort(indices(["456", "789"]))
    seen = {
        space.feedback_text(protect_range(space, remaining, space.index["123"], stream))
        for stream in (SEED.stream("tie", run) for run in range(3))
    }
    assert seen == {"0A0B"}
    split = {
        space.feedback_text(protect_range(space, remaining, space.index["457"], stream))
        for stream in (SEED.stream("tie", run) for run in range(40))
    }
    assert split == {"2A0B", "0A1B"}


def test_evader_never_concedes_on_a_tie() -> None:
    # 456 against {456, 789}: 3A0B (456) and 0A0B (789) keep one code each. The range is
    # protected only by 0A0B; 3A0B is left for when it is the only answer.
    space = code_space()
    remaining = np.sort(indices(["456", "789"]))
    for run in range(40):
        stream = SEED.stream("concede", run)
        answer = protect_range(space, remaining, space.index["456"], stream)
        assert space.feedback_text(answer) == "0A0B"
    alone = indices(["456"])
    assert protect_range(space, alone, space.index["456"], SEED.stream("x")) == space.solved


def test_evader_answers_are_always_legal_and_its_reveal_matches() -> None:
    space = code_space()
    evader = EvaderAnswerer(SEED.stream("evader-legal"))
    guesser = RandomGuesser(SEED.stream("guesser"))
    for _ in range(30):
        answered: list[tuple[int, int]] = []
        while True:
            guess = guesser.choose(space, [])  # a guesser that ignores answers: any code
            feedback = evader.answer(space, answered, guess)
            answered.append((guess, feedback))
            assert consistent(space, answered).size >= 1
            if feedback == space.solved or len(answered) == 8:
                break
        revealed = evader.reveal(space, answered)
        assert all(space.table[g, revealed] == f for g, f in answered)


def test_fixed_answerer_is_honest_and_seeded() -> None:
    space = code_space()
    one, two = FixedAnswerer(SEED.stream("fixed")), FixedAnswerer(SEED.stream("fixed"))
    one.new_game(space)
    two.new_game(space)
    assert one.secret == two.secret and one.secret is not None
    secret = space.index[one.secret]
    assert one.answer(space, [], 0) == space.table[0, secret]
    assert one.reveal(space, []) == secret


def test_random_guesser_only_guesses_consistent_codes() -> None:
    space = code_space()
    guesser = RandomGuesser(SEED.stream("random"))
    secret = space.index["538"]
    history: list[tuple[int, int]] = []
    while not history or history[-1][1] != space.solved:
        guess = guesser.choose(space, history)
        assert guess in consistent(space, history)
        history.append((guess, int(space.table[guess, secret])))
    assert len(history) <= 12


def test_super_comparison_meets_its_figure_whatever_its_opening() -> None:
    # walk_tree draws one opening per guesser; every opening gives the same 2396 guesses.
    space = code_space()
    openings = set()
    for run in range(4):
        guesser = SuperComparisonGuesser(SEED.stream("sc-opening", run))
        report = walk_tree(guesser, space)
        openings.add(guesser.choose(space, []))
        assert report.games == 504 and report.unsolved == 0
        assert sum(report.guesses) == 2396 and report.maximum == 6
    assert len(openings) > 1


@pytest.mark.parametrize("name", ["frequency", "super-comparison"])
def test_the_seeds_methods_open_at_random_from_the_bots_stream(name: str) -> None:
    # 隨機取樣法's rule for the first guess applies to every method (§四(三)1(2)).
    from bots.bulls_cows import make_guesser

    space = code_space()
    one = make_guesser(name, MatchSeed.from_text("a"))
    again = make_guesser(name, MatchSeed.from_text("a"))
    other = make_guesser(name, MatchSeed.from_text("b"))
    openings = [one.choose(space, []) for _ in range(20)]
    assert openings == [again.choose(space, []) for _ in range(20)]
    assert openings != [other.choose(space, []) for _ in range(20)]
    assert len(set(openings)) > 10


def test_entropy_opens_with_the_smallest_code_without_computing_it() -> None:
    # Every code has the same answer distribution over the whole space (renaming symbols), so
    # the pick over every code is the smallest, which `EntropyGuesser` returns at once.
    for space in (code_space(), code_space(2, "12345"), code_space(3, "0123")):
        everything = np.arange(space.size, dtype=np.int64)
        counts = partition_counts(space, None, everything)
        assert (counts == counts[0]).all()
        assert EntropyGuesser().choose(space, []) == entropy_pick(space, everything) == 0


def test_partition_counts_in_blocks_match_one_block() -> None:
    space = code_space(3, "123456")
    rng = np.random.default_rng(7)
    secrets = np.sort(rng.choice(space.size, size=50, replace=False)).astype(np.int64)
    guesses = rng.choice(space.size, size=33, replace=False).astype(np.int64)
    for chosen in (None, guesses):
        whole = partition_counts(space, chosen, secrets, block=10**9)
        for block in (1, 49, 50, 51, 777):
            assert np.array_equal(partition_counts(space, chosen, secrets, block=block), whole)
    assert partition_counts(space, None, secrets[:0]).sum() == 0


def test_partition_counts_memory_stays_bounded() -> None:
    # Every code against every code of 4 of 0–9 (25 M pairs): in one block its int64
    # temporaries alone would be over 200 MB.
    space = code_space(4, "0123456789")
    everything = np.arange(space.size, dtype=np.int64)
    tracemalloc.start()
    try:
        counts = partition_counts(space, None, everything)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts.sum() == space.size**2
    assert peak < 64 * 2**20


def test_super_comparison_prefers_a_consistent_code_on_ties() -> None:
    space = code_space()
    remaining = np.sort(indices(["123", "456"]))
    # Any code splitting the two gives [1, 1]; 123 may also be the secret.
    assert space.codes[super_comparison_pick(space, remaining)] == "123"


def test_entropy_is_sound_and_better_than_super_comparison() -> None:
    entropy = walk_tree(EntropyGuesser(), code_space())
    assert entropy.mean is not None
    assert entropy.maximum == 6 and entropy.mean < 4.72


def test_every_sound_guesser_beats_the_evader_in_seven() -> None:
    for name in ("random", "frequency", "super-comparison", "entropy", "optimal"):
        report = evaluate_evader(name, code_space(), runs=10)
        assert report.maximum is not None, name
        assert report.unsolved == 0 and report.maximum <= 7, name


# -- the shipped trees ---------------------------------------------------------------------------


def test_optimal_tree_is_a_valid_strategy_at_the_minimum() -> None:
    space = code_space()
    tree = load_tree(3, "123456789")
    assert tree is not None
    depths = tree_depths(space, tree.root)
    total = sum(depths.values())
    assert total == tree.total == 2337
    assert total / space.size < 4.64
    assert max(depths.values()) == tree.maximum == 6


def test_optimal_subtrees_are_exact_on_small_classes() -> None:
    # Re-solve the small classes under the first guess from scratch; the tree must match.
    space = code_space()
    tree = load_tree(3, "123456789")
    assert tree is not None
    first = space.index[tree.root["guess"]]
    search = ExactSearch(space)
    for text in ("2A0B", "1A2B", "0A3B"):
        secrets = np.flatnonzero(space.table[first] == space.parse_feedback(text))
        cost, _ = search.solve(secrets.astype(np.int64), 10**9)
        depths: list[int] = []

        def walk(node: dict, remaining: np.ndarray, depth: int, out: list[int]) -> None:
            g = space.index[node["guess"]]
            row = space.table[g, remaining]
            for f in np.unique(row).tolist():
                if f == space.solved:
                    out.append(depth)
                else:
                    walk(node["next"][space.feedback_text(f)], remaining[row == f], depth + 1, out)

        walk(tree.root["next"][text], secrets, 1, depths)
        assert sum(depths) == cost, text


def brute_force_cost(space: CodeSpace, secrets: np.ndarray, memo: dict[bytes, int]) -> int:
    """Least total guesses over ``secrets``, trying every code at every node, no pruning."""
    if secrets.size == 1:
        return 1
    key = secrets.tobytes()
    if key not in memo:
        costs = []
        for g in range(space.size):
            row = space.table[g, secrets]
            if np.all(row == row[0]) and row[0] != space.solved:
                continue
            cost = int(secrets.size)
            for f in np.unique(row).tolist():
                if f != space.solved:
                    cost += brute_force_cost(space, secrets[row == f], memo)
            costs.append(cost)
        memo[key] = min(costs)
    return memo[key]


@pytest.mark.parametrize(("digits", "alphabet"), [(2, "1234"), (2, "12345"), (3, "1234")])
def test_exact_search_matches_brute_force_on_small_spaces(digits: int, alphabet: str) -> None:
    space = code_space(digits, alphabet)
    everyone = np.arange(space.size, dtype=np.int64)
    assert ExactSearch(space).solve(everyone, 10**9)[0] == brute_force_cost(space, everyone, {})


def test_lower_bounds_fill_a_perfect_tree() -> None:
    lb = lower_bounds(code_space(), 12)
    # One secret at depth 1, eight at depth 2, the rest at depth 3.
    assert lb[1] == 1 and lb[2] == 3 and lb[9] == 1 + 16 and lb[12] == 17 + 9


def test_four_digit_tree_meets_its_figure() -> None:
    space = code_space(4, "0123456789")
    tree = load_tree(4, "0123456789")
    assert tree is not None
    depths = tree_depths(space, tree.root)
    total = sum(depths.values())
    assert total == tree.total
    assert total / space.size <= 5.25 and max(depths.values()) <= 7


@pytest.mark.parametrize(("digits", "alphabet"), [(3, "abcdefghi"), (3, "987654321")])
def test_a_renamed_alphabet_plays_the_shipped_tree_renamed(digits: int, alphabet: str) -> None:
    # Renaming symbols keeps every feedback, so the optimum carries over to any 9 symbols.
    space = code_space(digits, alphabet)
    tree = tree_for(digits, alphabet)
    assert tree is not None and tree.alphabet == alphabet
    depths = tree_depths(space, tree.root)
    assert len(depths) == space.size and sum(depths.values()) == 2337
    # And the `optimal` bot plays it through the engine, every secret once.
    report = evaluate_fixed("optimal", space)
    assert sum(report.guesses) == 2337 and report.maximum == 6 and report.unsolved == 0


def test_tree_for_uses_the_built_tree_and_knows_only_shipped_shapes() -> None:
    assert tree_for(3, "123456789") is load_tree(3, "123456789")
    assert tree_for(3, "1234567") is None and tree_for(5, "0123456789") is None
    # No path is made from the alphabet: one that looks like a path finds nothing.
    assert tree_for(3, "../x/yz") is None


def test_tree_guesser_falls_back_off_the_tree() -> None:
    space = code_space()
    guesser = TreeGuesser()
    assert space.codes[guesser.choose(space, [])] == "123"
    # A history the tree never produces (its first guess is 123) is handed to the fallback.
    history = [(space.index["987"], space.encode(0, 0))]
    assert guesser.choose(space, history) == EntropyGuesser().choose(space, history)
    other = code_space(3, "1234567")
    assert other.codes[guesser.choose(other, [])] in other.codes


@pytest.mark.parametrize("name", ["frequency", "super-comparison", "entropy", "optimal"])
def test_after_the_opening_guessers_are_functions_of_the_history(name: str) -> None:
    from bots.bulls_cows import make_guesser

    space = code_space()
    history = [(space.index["123"], space.encode(0, 1))]
    one = make_guesser(name, MatchSeed.from_text("a")).choose(space, history)
    two = make_guesser(name, MatchSeed.from_text("b")).choose(space, history)
    assert one == two


def test_building_a_tree_reports_each_secret_once_as_it_is_placed() -> None:
    from bots.bulls_cows.build_optimal import build

    steps: list[int] = []
    tree = build(2, "12345", "exact", 0, steps.append)
    assert len(steps) == tree.secrets == 20 and set(steps) == {1}
    assert sum(d * n for d, n in enumerate(tree.histogram)) == tree.total


def test_tree_for_prefers_a_tree_built_for_the_alphabet_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = trees.tree_path(3, "123456789")
    (tmp_path / shipped.name).write_bytes(shipped.read_bytes())
    # A tree for "abcdefghi" of its own, marked so that it cannot be the renamed one.
    own = json.loads(shipped.read_text(encoding="utf-8"))
    own.update(alphabet="abcdefghi", method="built for abcdefghi", tree={"guess": "ihg"})
    (tmp_path / "tree_3_abcdefghi.json").write_text(json.dumps(own), encoding="utf-8")
    monkeypatch.setattr(trees, "TREE_DIR", tmp_path)
    trees.tree_for.cache_clear()
    trees.load_tree.cache_clear()
    try:
        found = trees.tree_for(3, "abcdefghi")
        assert found is not None and found.method == "built for abcdefghi"
    finally:
        trees.tree_for.cache_clear()
        trees.load_tree.cache_clear()

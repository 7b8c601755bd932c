"""Offline search for 1A2B decision trees: exact branch and bound, and rollout improvement.

The cost of a tree over a set S of secrets is the total number of guesses over S (mean = cost/|S|).
``F(S) = |S| + Σ F(S_f)`` over the non-solving answers f of the chosen guess, so the exact search
is a branch and bound over every code as a guess at every node. The lower bound of a class of m
secrets fills a perfect tree: one secret solved by the first guess, at most b (the number of
non-solving answers) by the second, b² by the third, and so on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.games.bulls_cows import CodeSpace
from bots.bulls_cows.guessers import IntArray, partition_counts

#: a node of a decision tree as shipped in JSON: {"guess": "123", "next": {"1A0B": node, ...}}
TreeNode = dict[str, Any]


def lower_bounds(space: CodeSpace, largest: int) -> IntArray:
    """``lb[m]``: the fewest total guesses any strategy could need for m secrets."""
    branching = len(space.feasible) - 1
    lb = np.zeros(largest + 1, dtype=np.int64)
    depth, room, used, total = 1, 1, 0, 0
    for m in range(1, largest + 1):
        if used == room:
            depth, room, used = depth + 1, room * branching, 0
        used += 1
        total += depth
        lb[m] = total
    return lb


def partition_key(row: npt.NDArray[np.uint8], solved: int) -> bytes:
    """Two guesses splitting a set the same way (the solving class included) share this key."""
    _, first, inverse = np.unique(row, return_index=True, return_inverse=True)
    relabel = np.empty(first.size, dtype=np.uint8)
    relabel[np.argsort(first)] = np.arange(first.size, dtype=np.uint8)
    canonical = relabel[inverse]
    hits = np.flatnonzero(row == solved)
    marker = int(canonical[hits[0]]) if hits.size else 255
    return canonical.tobytes() + bytes([marker])


@dataclass
class ExactSearch:
    """Minimal total guesses for any consistent set, memoised on the set."""

    space: CodeSpace
    memo: dict[bytes, tuple[int, bool, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lb = lower_bounds(self.space, self.space.size)

    def solve(self, secrets: IntArray, beta: int) -> tuple[int, int]:
        """(cost, guess) with the exact minimum cost if it is below ``beta``; otherwise a lower
        bound of it that is ``>= beta`` and guess -1."""
        m = int(secrets.size)
        if m <= 2:
            return (1 if m == 1 else 3), int(secrets[0])
        key = secrets.tobytes()
        known = self.memo.get(key)
        if known is not None:
            value, exact, guess = known
            if exact or value >= beta:
                return value, guess
        space = self.space
        counts = partition_counts(space, None, secrets)
        counts[:, space.solved] = 0
        useful = counts.max(axis=1) < m
        bound = m + self.lb[counts].sum(axis=1)
        in_set = np.zeros(space.size, dtype=bool)
        in_set[secrets] = True
        order = np.lexsort((~in_set, bound))
        order = order[useful[order]]
        best, best_guess, floor = beta, -1, np.iinfo(np.int64).max
        seen: set[bytes] = set()
        for guess in order.tolist():
            if bound[guess] >= best:
                floor = min(floor, int(bound[guess]))
                break
            row = space.table[guess, secrets]
            shape = partition_key(row, space.solved)
            if shape in seen:
                continue
            seen.add(shape)
            total = int(bound[guess])
            classes = np.flatnonzero(counts[guess]).tolist()
            classes.sort(key=lambda f: -counts[guess, f])
            for feedback in classes:
                size = int(counts[guess, feedback])
                floor_here = int(self.lb[size])
                value, _ = self.solve(secrets[row == feedback], best - (total - floor_here))
                total += value - floor_here
                if total >= best:
                    break
            if total < best:
                best, best_guess = total, guess
            else:
                floor = min(floor, total)
        if best_guess >= 0:
            self.memo[key] = (best, True, best_guess)
            return best, best_guess
        previous = known[0] if known is not None else 0
        self.memo[key] = (max(floor, previous), False, -1)
        return max(floor, previous), -1

    def best_guess(self, secrets: IntArray) -> int:
        _, guess = self.solve(secrets, np.iinfo(np.int64).max)
        return guess


def build_tree(
    space: CodeSpace,
    choose: Callable[[IntArray, int], int],
    secrets: IntArray | None = None,
    *,
    progress: Callable[[int], None] | None = None,
) -> TreeNode:
    """The decision tree a chooser (consistent set, depth) → guess makes over ``secrets``;
    ``progress(1)`` as each secret gets its place (the guess that solves it)."""
    everyone = np.arange(space.size, dtype=np.int64) if secrets is None else secrets

    def grow(remaining: IntArray, depth: int) -> TreeNode:
        guess = choose(remaining, depth)
        row = space.table[guess, remaining]
        node: TreeNode = {"guess": space.codes[guess]}
        following = {}
        for feedback in np.unique(row).tolist():
            if feedback == space.solved:
                if progress is not None:
                    progress(1)
            else:
                child = remaining[row == feedback]
                following[space.feedback_text(feedback)] = grow(child, depth + 1)
        if following:
            node["next"] = following
        return node

    return grow(everyone, 1)


def tree_depths(space: CodeSpace, tree: TreeNode) -> dict[str, int]:
    """Guesses each secret takes under ``tree`` (by code); raises if a secret is never solved,
    a guess is not a code, or the tree asks a question twice on one path."""
    depths: dict[str, int] = {}

    def walk(node: TreeNode, remaining: IntArray, depth: int, asked: frozenset[str]) -> None:
        code = node["guess"]
        if code not in space.index or code in asked:
            raise ValueError(f"bad guess {code!r} at depth {depth}")
        guess = space.index[code]
        row = space.table[guess, remaining]
        following: dict[str, TreeNode] = node.get("next", {})
        for feedback in np.unique(row).tolist():
            child = remaining[row == feedback]
            if feedback == space.solved:
                depths[space.codes[int(child[0])]] = depth
                continue
            text = space.feedback_text(feedback)
            if text not in following:
                raise ValueError(f"after {code} the answer {text} has no branch")
            walk(following[text], child, depth + 1, asked | {code})

    walk(tree, np.arange(space.size, dtype=np.int64), 1, frozenset())
    if len(depths) != space.size:
        raise ValueError(f"the tree solves {len(depths)} of {space.size} secrets")
    return depths


@dataclass
class RolloutSearch:
    """One step of policy improvement over a greedy guesser (for spaces too big to solve).

    At each node the ``width`` best guesses by the greedy score (distinct partitions only) are
    each scored by the exact cost of the greedy guesser's subtrees under them; the cheapest
    wins. Secrets left unsolved after ``max_depth`` guesses cost ``penalty`` each, so the
    search trades mean for a bounded worst case. Sets of at most ``exact_below`` secrets are
    solved exactly.
    """

    space: CodeSpace
    greedy: Callable[[IntArray], npt.NDArray[np.float64]]
    width: int = 12
    max_depth: int = 7
    penalty: int = 1000
    exact_below: int = 12
    exact: ExactSearch = field(init=False)
    costs: dict[tuple[bytes, int], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.exact = ExactSearch(self.space)

    def _in_set(self, secrets: IntArray) -> npt.NDArray[np.bool_]:
        in_set = np.zeros(self.space.size, dtype=bool)
        in_set[secrets] = True
        return in_set

    def _ranked(self, secrets: IntArray) -> list[int]:
        """Guesses best first by the greedy score, ties to consistent codes then smallest."""
        scores = self.greedy(secrets)
        return np.lexsort((~self._in_set(secrets), scores)).tolist()

    def _greedy_guess(self, secrets: IntArray) -> int:
        if secrets.size <= 2:
            return int(secrets[0])
        return self._ranked(secrets)[0]

    def greedy_cost(self, secrets: IntArray, depth: int) -> int:
        """Total guesses (plus depth penalties) of the greedy guesser over ``secrets`` when its
        next guess is guess number ``depth``."""
        m = int(secrets.size)
        late = self.penalty * m if depth > self.max_depth else 0
        if m == 1:
            return 1 + late
        key = (secrets.tobytes(), depth)
        if key in self.costs:
            return self.costs[key]
        guess = self._greedy_guess(secrets)
        cost = self._split_cost(guess, secrets, depth, self.greedy_cost)
        self.costs[key] = cost
        return cost

    def _split_cost(
        self,
        guess: int,
        secrets: IntArray,
        depth: int,
        below: Callable[[IntArray, int], int],
    ) -> int:
        space = self.space
        late = self.penalty * int(secrets.size) if depth > self.max_depth else 0
        row = space.table[guess, secrets]
        cost = int(secrets.size) + late
        for feedback in np.unique(row).tolist():
            if feedback != space.solved:
                cost += below(secrets[row == feedback], depth + 1)
        return cost

    def choose(self, secrets: IntArray, depth: int) -> int:
        if secrets.size <= 2:
            return int(secrets[0])
        if secrets.size < self.exact_below and depth < self.max_depth - 1:
            return self.exact.best_guess(secrets)
        seen: set[bytes] = set()
        best_cost, best_guess = -1, -1
        for guess in self._ranked(secrets):
            row = self.space.table[guess, secrets]
            if np.all(row == row[0]) and row[0] != self.space.solved:
                continue
            shape = partition_key(row, self.space.solved)
            if shape in seen:
                continue
            seen.add(shape)
            cost = self._split_cost(guess, secrets, depth, self.greedy_cost)
            if best_guess < 0 or cost < best_cost:
                best_cost, best_guess = cost, guess
            if len(seen) >= self.width:
                break
        return best_guess

"""Build the shipped 1A2B decision trees (run once, offline; the JSON is committed).

    python -m bots.bulls_cows.build_optimal            # both shipped trees
    python -m bots.bulls_cows.build_optimal --digits 3 --alphabet 123456789 --method exact

``exact``: branch and bound over every code as a guess at every node (`ExactSearch`): the tree of
least total guesses. The first guess is fixed to the first code: renaming symbols maps any code to
any other and preserves feedback, so every first guess has the same optimum. About 1.5 minutes
for 3 of 1–9 on one core. ``rollout``: one step of policy improvement over the max-entropy
guesser (`RolloutSearch`), for spaces too big to solve exactly (about a minute for 4 of 0–9).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import partial

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arena.games.bulls_cows import code_space
from bots.bulls_cows.guessers import IntArray, entropy_scores, partition_counts
from bots.bulls_cows.search import ExactSearch, RolloutSearch, build_tree, tree_depths
from bots.bulls_cows.trees import ShippedTree, tree_path

#: (digits, alphabet, method, rollout width) of the trees shipped in the package
SHIPPED = ((3, "123456789", "exact", 0), (4, "0123456789", "rollout", 24))


def build(
    digits: int,
    alphabet: str,
    method: str,
    width: int,
    progress: Callable[[int], None] | None = None,
) -> ShippedTree:
    """The tree of ``method`` over every code; ``progress(1)`` as each secret is placed."""
    space = code_space(digits, alphabet)
    if method == "exact":
        exact = ExactSearch(space)

        def choose(secrets: IntArray, depth: int) -> int:
            return 0 if depth == 1 else exact.best_guess(secrets)

        description = "exact branch and bound over every code at every node (minimal mean)"
    elif method == "rollout":
        rollout = RolloutSearch(
            space, lambda secrets: entropy_scores(partition_counts(space, None, secrets)), width
        )

        def choose(secrets: IntArray, depth: int) -> int:
            return 0 if depth == 1 else rollout.choose(secrets, depth)

        description = (
            f"rollout over the max-entropy guesser, width {width}, "
            f"worst case bounded at {rollout.max_depth} (best found; not proven optimal)"
        )
    else:
        raise ValueError(f"unknown method {method!r}; use exact or rollout")
    root = build_tree(space, choose, progress=progress)
    depths = tree_depths(space, root)
    counts = Counter(depths.values())
    worst = max(counts)
    return ShippedTree(
        digits=digits,
        alphabet=alphabet,
        method=description,
        total=sum(depths.values()),
        secrets=space.size,
        maximum=worst,
        histogram=tuple(counts.get(d, 0) for d in range(worst + 1)),
        root=root,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--digits", type=int)
    parser.add_argument("--alphabet")
    parser.add_argument("--method", choices=("exact", "rollout"), default="exact")
    parser.add_argument("--width", type=int, default=24, help="rollout: guesses tried per node")
    args = parser.parse_args(argv)
    if (args.digits is None) != (args.alphabet is None):
        parser.error("give both --digits and --alphabet, or neither")
    jobs = (
        [(args.digits, args.alphabet, args.method, args.width)]
        if args.digits is not None
        else list(SHIPPED)
    )
    for digits, alphabet, method, width in jobs:
        started = time.perf_counter()
        # A build takes minutes: the bar shows secrets placed in the tree so far.
        with Progress(
            TextColumn(f"{digits} of {alphabet} ({method})"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task("", total=code_space(digits, alphabet).size)
            tree = build(digits, alphabet, method, width, partial(bar.advance, task))
        path = tree_path(digits, alphabet)
        path.write_text(
            json.dumps(tree.to_json(), separators=(",", ":")) + "\n", encoding="utf-8", newline="\n"
        )
        seconds = time.perf_counter() - started
        print(
            f"{digits} of {alphabet}: total {tree.total}, mean {tree.mean:.4f}, max "
            f"{tree.maximum}, histogram {list(tree.histogram)}, {seconds:.1f} s -> {path}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

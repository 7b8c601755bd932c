"""Decision trees shipped as JSON beside this module, and the guesser that follows them.

``tree_<digits>_<alphabet>.json`` holds ``{"digits", "alphabet", "method", "total", "secrets",
"mean", "max", "histogram", "tree"}``; ``tree`` is nested ``{"guess": code, "next": {feedback:
node}}``. They are built by ``python -m bots.bulls_cows.build_optimal`` and checked by tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from arena.games.bulls_cows import CodeSpace
from bots.bulls_cows.guessers import EntropyGuesser, Guesser, History
from bots.bulls_cows.search import TreeNode

TREE_DIR = Path(__file__).resolve().parent


def tree_path(digits: int, alphabet: str) -> Path:
    return TREE_DIR / f"tree_{digits}_{alphabet}.json"


@dataclass(frozen=True)
class ShippedTree:
    digits: int
    alphabet: str
    method: str
    total: int
    secrets: int
    maximum: int
    histogram: tuple[int, ...]
    root: TreeNode

    @property
    def mean(self) -> float:
        return self.total / self.secrets

    def follow(self, space: CodeSpace, history: History) -> str | None:
        """The tree's next guess after ``history``, or None once the history leaves the tree."""
        node = self.root
        for guess, feedback in history:
            if node["guess"] != space.codes[guess]:
                return None
            following: dict[str, TreeNode] = node.get("next", {})
            text = space.feedback_text(feedback)
            if text not in following:
                return None
            node = following[text]
        code: str = node["guess"]
        return code

    def to_json(self) -> dict[str, Any]:
        return {
            "digits": self.digits,
            "alphabet": self.alphabet,
            "method": self.method,
            "total": self.total,
            "secrets": self.secrets,
            "mean": self.mean,
            "max": self.maximum,
            "histogram": list(self.histogram),
            "tree": self.root,
        }


@lru_cache(maxsize=8)
def load_tree(digits: int, alphabet: str) -> ShippedTree | None:
    path = tree_path(digits, alphabet)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return ShippedTree(
        digits=int(data["digits"]),
        alphabet=str(data["alphabet"]),
        method=str(data["method"]),
        total=int(data["total"]),
        secrets=int(data["secrets"]),
        maximum=int(data["max"]),
        histogram=tuple(int(x) for x in data["histogram"]),
        root=data["tree"],
    )


@lru_cache(maxsize=8)
def tree_for(digits: int, alphabet: str) -> ShippedTree | None:
    """The shipped tree for codes of ``digits`` symbols of ``alphabet``: the one built for it,
    or one built for another alphabet of as many symbols with every symbol renamed (the i-th of
    its alphabet to the i-th of ``alphabet``). Renaming symbols maps codes one to one and keeps
    every feedback, so the renamed tree is as good in the new space (3 of ``abcdefghi``: the
    optimum, 4.6369). None when no shipped tree has that shape. Only the files beside this
    module are read: no path is made from ``alphabet``."""
    shaped = [
        tree
        for path in sorted(TREE_DIR.glob(f"tree_{digits}_*.json"))
        if (tree := load_tree(digits, path.stem.split("_", 2)[2])) is not None
        and len(tree.alphabet) == len(alphabet)
    ]
    for tree in shaped:
        if tree.alphabet == alphabet:
            return tree
    if not shaped:
        return None
    tree = shaped[0]
    renaming = str.maketrans(tree.alphabet, alphabet)
    return replace(tree, alphabet=alphabet, root=_renamed(tree.root, renaming))


def _renamed(node: TreeNode, renaming: dict[int, int]) -> TreeNode:
    renamed: TreeNode = {"guess": str(node["guess"]).translate(renaming)}
    if "next" in node:
        renamed["next"] = {
            feedback: _renamed(child, renaming) for feedback, child in node["next"].items()
        }
    return renamed


class TreeGuesser(Guesser):
    """Follows the shipped tree of the code space (the proven optimum for 3 of 9 symbols, the
    best tree found for 4 of 10; `tree_for`); off the tree, or without one, it defers to
    ``fallback``."""

    name = "optimal"

    def __init__(self, fallback: Guesser | None = None) -> None:
        self.fallback = fallback or EntropyGuesser()

    def choose(self, space: CodeSpace, history: History) -> int:
        tree = tree_for(space.digits, space.alphabet)
        if tree is not None:
            code = tree.follow(space, history)
            if code is not None:
                return space.index[code]
        return self.fallback.choose(space, history)

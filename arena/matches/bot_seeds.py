"""The seed an in-process bot of a match plays with.

Never the match seed itself (a bot holding it could derive every deal, die and secret of the
match), and one of each bot's own (a bot holding another's could replay its choices). A
config's own ``seed`` names a stream within the match instead of replacing it: before, a bot
configured with ``seed = "1"`` played the same choices in every match, so a league's pairing of
two such bots gave the same games whatever the league seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.dealing import MatchSeed


def bot_options(match_seed: MatchSeed, label: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` with its ``seed`` replaced by one derived from the match seed, ``label`` (the
    bot's side or name) and the config's own seed, if it sets one."""
    parts: tuple[str, ...] = ("bots", label)
    if "seed" in config:
        parts += (f"config-seed:{config['seed']}",)
    return {**config, "seed": match_seed.derive(*parts).hex()}

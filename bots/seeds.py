"""The seed a bot plays with, derived from a match's (or a ``bots run`` process's) seed.

Never the match seed itself (a bot holding it could derive every deal, die and secret of the
match), and one of each bot's own (a bot holding another's could replay its choices). A
config's own ``seed`` names a stream within the match instead of replacing it: before, a bot
configured with ``seed = "1"`` played the same choices in every match, so a league's pairing of
two such bots gave the same games whatever the league seed.

Here rather than with the match formats because both sides derive it: the referee for its
in-process bots (`arena.matches`, `arena.leagues`) and ``bots run`` for the bots it connects
(`bots.cli`), which may not import the referee. The derivation is `arena.dealing`'s HMAC-SHA256
stream naming, pure like the game engines bots may use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.dealing import MatchSeed

UNSEEDED: frozenset[tuple[str, str]] = frozenset({("mahjong", "greedy")})
"""(game, strategy) of the bots that make no random choice and so take no ``seed`` setting;
every other bot is given one (`seeded_options`), so a bot added without this entry that refuses
a seed fails loudly rather than play unseeded."""


def bot_options(match_seed: MatchSeed, label: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` with its ``seed`` replaced by one derived from the match seed, ``label`` (the
    bot's side or name) and the config's own seed, if it sets one."""
    parts: tuple[str, ...] = ("bots", label)
    if "seed" in config:
        parts += (f"config-seed:{config['seed']}",)
    return {**config, "seed": match_seed.derive(*parts).hex()}


def seeded_options(
    game: str, strategy: str, match_seed: MatchSeed, label: str, config: Mapping[str, Any]
) -> dict[str, Any]:
    """`bot_options` for a bot that takes a seed; ``config`` as it is for one of `UNSEEDED`
    (which would refuse the setting, having no random choice to make)."""
    if (game, strategy) in UNSEEDED:
        return dict(config)
    return bot_options(match_seed, label, config)

"""Leagues a results file holds under another config than the one at hand: a results file may
hold several leagues of one name, since each config (an override such as ``--games 20``, an
edited file) is a league of its own. This reads the config a league was stored with (the
``leagues.config`` JSON: the config's keys and ``contents``) to say how it differs from the
config at hand, so a user who meant to resume it, or to show it, learns what to give."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from arena.errors import ArenaError
from arena.leagues.config import LeagueConfig, is_secret_seed
from arena.leagues.formats import DEFAULT_GAMES


def stored_games(stored: Mapping[str, Any]) -> int | None:
    """Games per match of a stored league's config (its default when the config left it out);
    `None` when the stored config does not say (a damaged or foreign value)."""
    games, game = stored.get("games"), stored.get("game")
    if isinstance(games, int) and not isinstance(games, bool):
        return games
    return DEFAULT_GAMES.get(game) if games is None and isinstance(game, str) else None


def stored_bot_names(stored: Mapping[str, Any]) -> list[str]:
    bots = stored.get("bots")
    if not isinstance(bots, list):
        return []
    return [entry["name"] for entry in bots if isinstance(entry, dict) and "name" in entry]


def stored_match_count(stored: Mapping[str, Any]) -> int | None:
    """How many matches a stored league plans (`arena.leagues.play.plan_matches`: every pair, or
    every four bots in mahjong's rotate layout); `None` when its config does not say."""
    bots = stored_bot_names(stored)
    if not bots:
        return None
    rotate = stored.get("game") == "mahjong" and (
        stored.get("layout") == "rotate"
        or (stored.get("layout") is None and stored.get("server") is not None)
    )
    return math.comb(len(bots), 4 if rotate else 2)


def _seed_words(seed: str) -> str:
    return "a secret seed" if is_secret_seed(seed) else f"seed {seed!r}"


def stored_differences(
    config: LeagueConfig, stored: Mapping[str, Any], stored_seed: str
) -> list[str]:
    """How the league stored with config ``stored`` (and league seed ``stored_seed``) differs
    from ``config``, each as ``"games 200 there, 100 here"``; empty when nothing this can read
    differs (a league an older release fingerprinted otherwise)."""
    found: list[str] = []
    game = stored.get("game")
    if game != config.game:
        return [f"game {game} there, {config.game} here"]
    games = stored_games(stored)
    if games is not None and games != config.games_per_match:
        found.append(f"games {games} there, {config.games_per_match} here")
    if stored_seed != config.league_seed:
        if is_secret_seed(stored_seed) and config.secret_seed:
            found.append("another secret seed there")
        else:
            found.append(
                f"{_seed_words(stored_seed)} there, {_seed_words(config.league_seed)} here"
            )
    names = stored_bot_names(stored)
    only_there = [name for name in names if name not in config.bot_names]
    only_here = [name for name in config.bot_names if name not in names]
    if only_there:
        found.append(f"bots only there: {', '.join(only_there)}")
    if only_here:
        found.append(f"bots only here: {', '.join(only_here)}")
    contents = stored.get("contents")
    contents = contents if isinstance(contents, dict) else {}
    current = config.contents.to_json()
    stored_bots = contents.get("bots")
    if isinstance(stored_bots, dict):
        changed = [
            name
            for name in config.bot_names
            if name in stored_bots and stored_bots[name] != current["bots"][name]
        ]
        if changed:
            found.append(f"other strategy or settings there for: {', '.join(changed)}")
    if "rules" in contents and _comparable_rules(contents["rules"]) != _comparable_rules(
        current["rules"]
    ):
        found.append("other rules there (the ruleset file, or the rules, differ)")
    here = config.model_dump(mode="json")
    for key in ("layout", "deadline_ms", "bank_ms"):
        there_value, here_value = stored.get(key), here.get(key)
        if key == "layout":
            there_value, here_value = there_value or "ab", here_value or "ab"
        if there_value != here_value:
            found.append(f"{key} {there_value} there, {here_value} here")
    return found


def _comparable_rules(rules: Any) -> Any:
    """Rules as the fingerprint compares them: who is asked on a mahjong claim changes no game."""
    if isinstance(rules, dict):
        return {key: value for key, value in rules.items() if key != "claims_ask_every_seat"}
    return rules


def overrides_to_reach(
    config: LeagueConfig, stored: Mapping[str, Any], stored_seed: str, fingerprint: str
) -> dict[str, Any] | None:
    """The ``games`` and ``seed`` overrides that make ``config`` the stored league of that
    config, seed and fingerprint (``{"games": 200}`` for a league played with ``--games
    200``), or `None` when no such override does (its bots or files differ)."""
    overrides: dict[str, Any] = {}
    games = stored_games(stored)
    if games is not None and games != config.games_per_match:
        overrides["games"] = games
    if stored_seed != config.league_seed:
        overrides["seed"] = stored_seed
    if not overrides:
        return None
    try:
        candidate = config.with_overrides(**overrides)
    except ArenaError:
        return None
    if fingerprint in (candidate.fingerprint(), *candidate.fingerprint_aliases()):
        return overrides
    return None

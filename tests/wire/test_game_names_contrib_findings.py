"""A contributor's walkthrough (adding a game): the game names written out by hand in several
files must agree with the registry (`arena.games.registry`), names and aliases, so that a game
added to one and not another fails here, with a message naming each file to update.

Some lists must stay literal types (pydantic needs them: `GameName`, `GameKind`, the payloads'
``game``); the help texts that list games are derived from the registries, and checked too."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from arena.games.registry import ALIASES, GAME_MODULES

REPO = Path(__file__).resolve().parents[2]


def _payload_games(annotation: Any) -> set[str]:
    """The ``game`` values of every payload model in a (nested, annotated) union."""
    if get_origin(annotation) is typing.Annotated:
        return _payload_games(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        return set().union(*(_payload_games(arg) for arg in get_args(annotation)))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return set(get_args(annotation.model_fields["game"].annotation))
    raise AssertionError(f"not a payload: {annotation!r}")


def _names(values: Any) -> str:
    return ", ".join(sorted(values)) or "none"


def test_every_list_of_game_names_agrees_with_the_registry() -> None:
    from arena.leagues.formats import LEAGUE_FORMATS
    from bots.cli import _game_option_help
    from bots.registry import BOT_MODULES
    from protocol.games.common import GameKind
    from protocol.messages import GameName
    from protocol.payloads import Payload

    games = set(GAME_MODULES)
    problems = []

    def agree(where: str, found: Any, expected: set[str] = games) -> None:
        if set(found) != expected:
            problems.append(f"{where} lists {_names(found)}; the registry: {_names(expected)}")

    agree("protocol/messages.py GameName", get_args(GameName))
    agree("protocol/games/common.py GameKind", get_args(GameKind))
    agree(
        "protocol/payloads.py Payload (each game's payload union)",
        _payload_games(Payload) - {"arena"},
    )
    agree("bots/registry.py BOT_MODULES", BOT_MODULES)
    # Aliases: each names a registered game, and a wire name with "_" is typed with "-" too.
    for alias, wire in ALIASES.items():
        if wire not in games:
            problems.append(f"arena/games/registry.py ALIASES: {alias!r} names no game {wire!r}")
    for wire in games:
        if "_" in wire and ALIASES.get(wire.replace("_", "-")) != wire:
            problems.append(
                f"arena/games/registry.py ALIASES: no {wire.replace('_', '-')!r} for {wire!r}"
            )
    # A league names its game as a person types it: an alias (or the name) of a registered game.
    for league_game, league_format in LEAGUE_FORMATS.items():
        if ALIASES.get(league_game, league_game) != league_format.engine_game:
            problems.append(
                f"arena/leagues/formats.py LEAGUE_FORMATS: {league_game!r} plays "
                f"{league_format.engine_game!r}, which the registry calls "
                f"{ALIASES.get(league_game, league_game)!r}"
            )
        if league_format.engine_game not in games:
            problems.append(
                f"arena/leagues/formats.py LEAGUE_FORMATS: {league_format.engine_game!r} is no game"
            )
    # docs/LEAGUES.md's sample config names every game a league plays, by hand.
    leagues_md = (REPO / "docs" / "LEAGUES.md").read_text(encoding="utf-8")
    line = re.search(r'^game = "[^"]*" +# (.*)$', leagues_md, re.MULTILINE)
    assert line is not None, "docs/LEAGUES.md: no sample 'game = …' line"
    agree(
        "docs/LEAGUES.md (the sample config's game line)",
        [name.strip() for name in line.group(1).split("|")],
        set(LEAGUE_FORMATS),
    )
    # `bots run --game`'s help: derived from the registries, so it names every game with bots.
    shown = _game_option_help()
    for wire in BOT_MODULES:
        spelled = next((a for a, w in ALIASES.items() if w == wire and "-" in a), wire)
        if spelled not in shown:
            problems.append(f"bots/cli.py: `bots run --game`'s help leaves out {spelled!r}")
    assert not problems, "game names disagree:\n" + "\n".join(problems)

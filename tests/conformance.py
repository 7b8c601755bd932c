"""One conformance suite for every engine (in the spirit of OpenSpiel's random_sim_test and
PettingZoo's api_test/seed_test).

``check_engine(make_game, seeds)`` plays seeded random playouts and checks, at every step, the
contract of `arena.games.base.Game`; then replays each seed and demands an identical trace.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, TypeAdapter

from arena.dealing import MatchSeed
from arena.games.base import Game
from arena.games.errors import GameError, IllegalActionError, InvalidActionError
from protocol.payloads import Payload

PAYLOAD: TypeAdapter[Any] = TypeAdapter(Payload)

GameMaker = Callable[[MatchSeed], Game[Any]]

GARBAGE_ACTIONS = (
    "",
    "@@not an action@@",
    "\x00",
    "9" * 300,
    # Unicode digits pass str.isdigit() but not int(); a long digit run hits int()'s size limit.
    "answer ²A0B",
    "guess １２３",
    "bid ² 3",
    "bid 3 ①",
    "discard ⑤m",
    "answer " + "1" * 5000 + "A0B",
    "bid " + "1" * 5000 + " 3",
)


def _dump_events(game: Game[Any]) -> list[Any]:
    dumped = []
    for event in game.drain_events():
        data = event.payload.model_dump(mode="json")
        # Every event must be a valid wire payload, readable back by the one adapter.
        assert PAYLOAD.validate_python(data) is not None
        if event.to is not None:
            assert event.to, "a private event must name at least one seat"
            assert all(0 <= seat < game.num_seats for seat in event.to), event.to
        dumped.append((None if event.to is None else sorted(event.to), data))
    return dumped


def _vandalise(value: object) -> None:
    """Empty every list reachable from ``value``, as a careless in-process bot might."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _vandalise(getattr(value, name))
    elif isinstance(value, list):
        for item in value:
            _vandalise(item)
        value.clear()
    elif isinstance(value, dict):
        for item in value.values():
            _vandalise(item)
        value.clear()


def _check_step(game: Game[Any]) -> None:
    due = game.to_act()
    assert due, "a game that is not over must have a seat to act"
    assert len(set(due)) == len(due), f"to_act repeats a seat: {due}"
    for outside in (-1, game.num_seats):
        try:
            game.observation(outside)
        except GameError:
            pass
        else:
            raise AssertionError(f"observation({outside}) did not refuse a seat outside the game")
    for seat in range(game.num_seats):
        observation = game.observation(seat)
        dumped = observation.model_dump(mode="json")
        PAYLOAD.validate_python(dumped)
        json.dumps(dumped)
        _vandalise(observation)
        assert game.observation(seat).model_dump(mode="json") == dumped, (
            "changing an observation changed the game: it shares the engine's own objects"
        )
        legal = list(game.legal_actions(seat))
        if seat not in due:
            assert not legal, f"seat {seat} is not due but has legal actions"
            continue
        assert legal, f"due seat {seat} has no legal action"
        listed, hint = game.describe_legal(seat)
        assert listed is not None or hint, "an unlisted legal set needs a hint"
        if listed is not None:
            assert listed == [str(a) for a in legal]
        for action in legal:
            text = str(action)
            assert game.parse_action(text) == action, f"{text!r} does not round-trip"
            assert game.is_legal(seat, action)
        assert game.is_legal(seat, game.fallback_action(seat)), "fallback must be legal"
        for garbage in GARBAGE_ACTIONS:
            try:
                game.parse_action(garbage)
            except InvalidActionError:
                continue
            raise AssertionError(f"{garbage!r} parsed as an action")
    idle = [s for s in range(game.num_seats) if s not in due]
    if idle:
        some_action = game.legal_actions(due[0])[0]
        before = [game.observation(s).model_dump(mode="json") for s in range(game.num_seats)]
        try:
            game.apply(idle[0], some_action)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"seat {idle[0]} acted out of turn")
        after = [game.observation(s).model_dump(mode="json") for s in range(game.num_seats)]
        assert before == after, "a rejected action changed the state"


def random_playout(
    make_game: GameMaker, seed: MatchSeed, max_steps: int = 10_000, check: bool = True
) -> list[Any]:
    """Play uniformly random legal actions (chosen from a seeded stream); return the trace."""
    game = make_game(seed)
    chooser = seed.stream("conformance", "chooser")
    trace: list[Any] = [("events", _dump_events(game))]
    steps = 0
    while not game.is_over():
        steps += 1
        assert steps <= max_steps, f"no end after {max_steps} steps"
        if check:
            _check_step(game)
        # As the referee does: every seat due now answers, then the engine resolves the step.
        for seat in game.to_act():
            legal = list(game.legal_actions(seat))
            assert legal, f"seat {seat} was due this step but lost its legal actions"
            action = chooser.choice(legal)
            if check:
                twin = game.copy()
                twin_before = twin.observation(seat).model_dump(mode="json")
                game_copy_probe = game.copy()
                game_copy_probe.apply(seat, action)
                assert twin.observation(seat).model_dump(mode="json") == twin_before, (
                    "applying to a copy changed another copy"
                )
            game.apply(seat, action)
            trace.append((seat, str(action), _dump_events(game)))
    assert not game.to_act(), "a finished game still has seats to act"
    result = game.result()
    assert len(result.scores) == game.num_seats
    assert all(0 <= w < game.num_seats for w in result.winners)
    json.dumps(dict(result.detail))
    trace.append(("result", list(result.scores), list(result.winners), result.reason))
    return trace


def check_engine(make_game: GameMaker, seeds: Iterable[int | str], max_steps: int = 10_000) -> None:
    """Run the whole suite for each seed: contract checks, then same seed ⇒ identical trace."""
    traces = []
    for raw in seeds:
        seed = MatchSeed.from_text(raw)
        first = random_playout(make_game, seed, max_steps, check=True)
        second = random_playout(make_game, seed, max_steps, check=False)
        assert first == second, f"seed {raw!r}: two playouts of the same seed differ"
        traces.append(first)
    if len(traces) > 1:
        assert any(t != traces[0] for t in traces[1:]), "every seed gave the same game"

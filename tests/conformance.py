"""One conformance suite for every engine (in the spirit of OpenSpiel's random_sim_test and
PettingZoo's api_test/seed_test).

``check_engine(make_game, seeds)`` plays seeded random playouts and checks, at every step, the
contract of `arena.games.base.Game`; then replays each seed and demands an identical trace, in
this process and (one seed) in another one with a different ``PYTHONHASHSEED``.

What a seat may see is checked too (tests/hidden_information.py has each game's two hooks): no
observation or event delivered to a seat holds the match seed (any 16 hex digits of it), nor any
of the other seats' private facts as the protocol renders them; and a seat cannot tell the game
from copies in which everything it may not see is drawn again (a determinization, as an
information-set search draws one): the same observation, legal actions, request and fallback,
and, once the copies made at the start of a step have taken the step's actions, the same events
(up to the first that reveals what was drawn again: a seat's own draw, a challenge, a win).

``make_game`` must be picklable (use `SpecGame`, or a module-level function) so that the other
process can rebuild the game. tests/conftest.py registers this module for pytest's assertion
rewriting; every assert still carries a message, for a run without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hidden_information import (
    HIDDEN_INFORMATION,
    Resample,
    Reveals,
    Secrets,
    UnseenStops,
    no_unseen_stops,
    reveals_nothing,
)
from pydantic import BaseModel, TypeAdapter

from arena.dealing import MatchSeed
from arena.games.base import Game
from arena.games.errors import GameError, IllegalActionError, InvalidActionError
from arena.games.registry import get_spec
from protocol.payloads import Payload

PAYLOAD: TypeAdapter[Any] = TypeAdapter(Payload)

GameMaker = Callable[[MatchSeed], Game[Any]]


@dataclass(frozen=True)
class SpecGame:
    """A picklable game maker: the registry's game ``name`` with these rules and deal."""

    name: str
    rules: Mapping[str, Any]
    deal: Mapping[str, Any]

    def __call__(self, seed: MatchSeed) -> Game[Any]:
        return get_spec(self.name).new_game(self.rules, seed, self.deal)


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
        assert PAYLOAD.validate_python(data) is not None, f"event {data} is not a wire payload"
        if event.to is not None:
            assert event.to, "a private event must name at least one seat"
            assert all(0 <= seat < game.num_seats for seat in event.to), (
                f"a private event names a seat outside the game: {sorted(event.to)}"
            )
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
            assert listed == [str(a) for a in legal], (
                f"seat {seat}: describe_legal lists {listed[:5]}…, legal_actions "
                f"{[str(a) for a in legal][:5]}…: the request would show another set or order"
            )
        for action in legal:
            text = str(action)
            assert game.parse_action(text) == action, f"{text!r} does not round-trip"
            assert game.is_legal(seat, action), f"seat {seat}: {text!r} is listed but not legal"
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


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


RESAMPLES_PER_CHECK = 2
"""How many re-draws of what a seat cannot see each indistinguishability check compares."""


def _difference(here: Any, there: Any, path: str = "") -> str:
    """Where two views first differ, as ``path: here … there …``."""
    if isinstance(here, dict) and isinstance(there, dict):
        for key in list(here) + [k for k in there if k not in here]:
            if here.get(key) != there.get(key):
                return _difference(here.get(key), there.get(key), f"{path}.{key}" if path else key)
    elif isinstance(here, list) and isinstance(there, list) and len(here) == len(there):
        for i, (a, b) in enumerate(zip(here, there, strict=True)):
            if a != b:
                return _difference(a, b, f"{path}[{i}]")
    return f"{path or 'the view'}: {_compact(here)[:150]} here, {_compact(there)[:150]} there"


def _event_difference(here: list[Any], there: list[Any]) -> str:
    """Where two seats' event lists first differ, as ``events[i].path: here … there …``."""
    for i, (a, b) in enumerate(zip(here, there, strict=False)):
        if a != b:
            return _difference(a, b, f"events[{i}]")
    end = min(len(here), len(there))
    if len(here) > end:
        return f"events[{end}]: {_compact(here[end])[:150]} here, none there"
    return f"events[{end}]: none here, {_compact(there[end])[:150]} there"


def _events_agree(here: list[Any], there: list[Any], stops: frozenset[str]) -> bool:
    """The same events; or, where one step ended after an event of a kind in ``stops`` (the
    game waited for a decision the seat cannot know is due) and the other went on, one list is
    the start of the other."""
    if here == there:
        return True
    shorter, longer = sorted((here, there), key=len)
    return bool(shorter) and shorter[-1].get("kind") in stops and longer[: len(shorter)] == shorter


@dataclass
class _Watch:
    """What the secrecy checks look for: windows of the seed's hex, and the game's hooks."""

    seed_windows: tuple[str, ...]
    secrets: Secrets
    resample: Resample | None
    rng: random.Random
    reveals: Reveals = reveals_nothing
    unseen_stops: UnseenStops = no_unseen_stops
    hidden_seen: bool = False
    """Some seat had a secret at a checked point."""
    redrawn: bool = False
    """Some re-draw by ``resample`` changed a seat's secrets."""
    replayed: int = 0
    """Copies the step's actions were tried on."""
    events_compared: int = 0
    """Copies that took every action of their step, and whose events were compared."""

    @classmethod
    def of(
        cls,
        game: Game[Any],
        seed: MatchSeed,
        secrets: Secrets | None,
        resample: Resample | None = None,
    ) -> _Watch:
        hook = HIDDEN_INFORMATION.get(game.name)
        if secrets is None:
            assert hook is not None, (
                f"no hidden-information hook for the game {game.name!r}: add "
                f"{game.name!r}: HiddenInformation(secrets, resample) to HIDDEN_INFORMATION in "
                "tests/hidden_information.py (the other seats' private facts as the protocol "
                "renders them, and a copy of the game with them drawn again; "
                "`HiddenInformation(no_secrets, no_resample)` for a game of perfect information)"
            )
            secrets, resample = hook.secrets, hook.resample
        text = seed.hex()
        windows = tuple(text[i : i + 16] for i in range(len(text) - 15))
        rng = random.Random(f"conformance resample {text}")
        if hook is None:
            return cls(windows, secrets, resample, rng)
        return cls(windows, secrets, resample, rng, hook.reveals, hook.unseen_stops)

    def check(self, game: Game[Any], seat: int, what: str, text: str, public: bool) -> None:
        lowered = text.lower()
        for window in self.seed_windows:
            assert window not in lowered, (
                f"{what} for seat {seat} holds the match seed ({window}…): {text[:300]}"
            )
        if public:
            return
        for secret in self.secrets(game, seat):
            assert secret not in text, (
                f"{what} for seat {seat} shows another seat's private information {secret}: "
                f"{text[:300]}"
            )

    def observations(self, game: Game[Any]) -> None:
        over = game.is_over()
        for seat in range(game.num_seats):
            text = _compact(game.observation(seat).model_dump(mode="json"))
            self.check(game, seat, "the observation", text, public=over)

    def events(self, game: Game[Any], events: list[Any]) -> None:
        """Events drained after a step, against the secrets of the state after that step (a
        reveal in the step made its facts public)."""
        for seat in range(game.num_seats):
            for to, data in events:
                if to is None or seat in to:
                    self.check(game, seat, f"the {data.get('kind')!r} event", _compact(data), False)

    @staticmethod
    def view(game: Game[Any], seat: int) -> dict[str, Any]:
        """Everything ``seat`` is given now: its observation and, when it is due, its legal
        actions, the request's text of them, and what the referee plays if it fails to act."""
        view: dict[str, Any] = {"observation": game.observation(seat).model_dump(mode="json")}
        if seat in game.to_act():
            view["legal_actions"] = [str(action) for action in game.legal_actions(seat)]
            view["request"] = list(game.describe_legal(seat))
            view["fallback"] = str(game.fallback_action(seat))
        return view

    def indistinguishable(self, game: Game[Any], seat: int) -> list[Game[Any]]:
        """``seat`` must not tell ``game`` from copies with what it cannot see drawn again; the
        copies, for `same_events`."""
        twins: list[Game[Any]] = []
        if self.resample is None:
            return twins
        secrets = self.secrets(game, seat)
        self.hidden_seen = self.hidden_seen or bool(secrets)
        seen: dict[str, Any] | None = None
        for _ in range(RESAMPLES_PER_CHECK):
            twin = self.resample(game, seat, self.rng)
            if twin is None:
                return twins
            # A subclass planting a bug (the suite's own tests) inherits a copy() that builds
            # the engine's class: view the re-draw through the same class.
            twin.__class__ = type(game)
            self.redrawn = self.redrawn or self.secrets(twin, seat) != secrets
            seen = seen or self.view(game, seat)
            other = self.view(twin, seat)
            assert other == seen, (
                f"seat {seat} can tell the game from a copy that differs only in what it may not "
                f"see (the other seats' secrets drawn again): {_difference(seen, other)}"
            )
            twins.append(twin)
        return twins

    def seen_events(self, events: list[Any], seat: int) -> list[Any]:
        """The events (``(to, payload)`` pairs) delivered to ``seat``, up to the first that
        reveals something drawn again: that one is kept as its kind alone, the rest dropped."""
        seen = []
        for to, data in events:
            if to is not None and seat not in to:
                continue
            if self.reveals(data, seat):
                seen.append({"kind": data.get("kind"), "reveals": "what was drawn again"})
                break
            seen.append(data)
        return seen

    def same_events(
        self,
        game: Game[Any],
        twins: Mapping[int, list[Game[Any]]],
        played: list[tuple[int, Any]],
        events: list[Any],
    ) -> None:
        """Each seat's copies from the start of a step (``twins``), given the step's actions
        (``played``, in order, every seat's), must deliver to that seat the events ``game``
        delivered to it (``events``). A copy in which another seat's action is not legal is
        left out: that seat's hand there is not one it could have played from."""
        stops = self.unseen_stops(game)
        for seat, copies in twins.items():
            seen = self.seen_events(events, seat)
            for twin in copies:
                self.replayed += 1
                twin.drain_events()
                if not self._replay(twin, seat, played):
                    continue
                self.events_compared += 1
                delivered = [
                    (
                        None if event.to is None else sorted(event.to),
                        event.payload.model_dump(mode="json"),
                    )
                    for event in twin.drain_events()
                    if event.visible_to(seat)
                ]
                other = self.seen_events(delivered, seat)
                assert _events_agree(seen, other, stops), (
                    f"seat {seat} can tell the game from a copy that differs only in what it may "
                    f"not see (the other seats' secrets drawn again) by the events of the step "
                    f"{[(actor, str(action)) for actor, action in played]}: "
                    f"{_event_difference(seen, other)}"
                )

    @staticmethod
    def _replay(twin: Game[Any], seat: int, played: list[tuple[int, Any]]) -> bool:
        """Apply ``played`` to ``twin``; False (and stop) at another seat's action it refuses."""
        for actor, action in played:
            if not twin.is_legal(actor, action):
                assert actor != seat, (
                    f"seat {seat}'s own {action}, legal in the game, is refused in a copy that "
                    "differs only in what the seat may not see"
                )
                return False
            twin.apply(actor, action)
        return True

    def finish(self) -> None:
        assert self.resample is None or self.redrawn or not self.hidden_seen, (
            "the game's resample hook never changed another seat's secrets: the "
            "indistinguishability check compared a game with itself"
        )
        assert self.events_compared or not self.replayed, (
            f"every one of the {self.replayed} copies refused some seat's action of its step: "
            "the events of a step were never compared (are the hook's copies states the other "
            "seats could have played their actions from?)"
        )


def _check_copy(game: Game[Any], seat: int, action: Any) -> None:
    """Applying to a copy must leave the game it was copied from alone: its observations and
    its pending events (a copy sharing the events list hands them to the wrong game)."""
    base = game.copy()
    base.drain_events()
    before = [base.observation(s).model_dump(mode="json") for s in range(base.num_seats)]
    probe = base.copy()
    probe.apply(seat, action)
    leaked = base.drain_events()
    assert not leaked, (
        f"applying {action} to a copy gave the original {len(leaked)} pending event(s) "
        f"({type(leaked[0].payload).__name__}): copy() shares the pending-events list"
    )
    after = [base.observation(s).model_dump(mode="json") for s in range(base.num_seats)]
    for s, (old, new) in enumerate(zip(before, after, strict=True)):
        assert old == new, (
            f"applying {action} to a copy changed the original's observation of seat {s}: "
            "copy() shares mutable state"
        )


def _legal_digest(legal: list[Any]) -> str:
    return hashlib.sha256("\n".join(map(str, legal)).encode()).hexdigest()[:16]


def random_playout(
    make_game: GameMaker,
    seed: MatchSeed,
    max_steps: int = 10_000,
    check: bool = True,
    secrets: Secrets | None = None,
    resample: Resample | None = None,
) -> list[Any]:
    """Play uniformly random legal actions (chosen from a seeded stream); return the trace:
    every seat's observation at each step, the order of each legal list, the actions, the
    events and the result."""
    game = make_game(seed)
    watch = _Watch.of(game, seed, secrets, resample) if check else None
    chooser = seed.stream("conformance", "chooser")
    events = _dump_events(game)
    if watch is not None:
        watch.events(game, events)
    trace: list[Any] = [("events", events)]
    steps = 0
    while not game.is_over():
        steps += 1
        assert steps <= max_steps, f"no end after {max_steps} steps"
        if check:
            _check_step(game)
        twins: dict[int, list[Game[Any]]] = {}
        if watch is not None:
            watch.observations(game)
            for seat in range(game.num_seats):
                twins[seat] = watch.indistinguishable(game, seat)
        trace.append(
            (
                "observations",
                [game.observation(s).model_dump(mode="json") for s in range(game.num_seats)],
            )
        )
        # As the referee does: every seat due now answers, then the engine resolves the step.
        played: list[tuple[int, Any]] = []
        step_events: list[Any] = []
        for answered, seat in enumerate(game.to_act()):
            if watch is not None and answered:
                # A seat answering after another in the same step must not see that answer.
                watch.indistinguishable(game, seat)
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
                _check_copy(game, seat, action)
            game.apply(seat, action)
            events = _dump_events(game)
            if watch is not None:
                watch.events(game, events)
            played.append((seat, action))
            step_events.extend(events)
            trace.append((seat, _legal_digest(legal), str(action), events))
        if watch is not None:
            watch.same_events(game, twins, played, step_events)
    if watch is not None:
        watch.observations(game)
        watch.finish()
    trace.append(
        (
            "observations",
            [game.observation(s).model_dump(mode="json") for s in range(game.num_seats)],
        )
    )
    assert not game.to_act(), "a finished game still has seats to act"
    result = game.result()
    assert len(result.scores) == game.num_seats, (
        f"result has {len(result.scores)} scores for {game.num_seats} seats"
    )
    assert all(0 <= w < game.num_seats for w in result.winners), (
        f"result names a winner outside the game: {result.winners}"
    )
    json.dumps(dict(result.detail))
    trace.append(("result", list(result.scores), list(result.winners), result.reason))
    return trace


def _first_difference(here: list[Any], there: list[Any]) -> str:
    for step, (a, b) in enumerate(zip(here, there, strict=False)):
        if a != b:
            return f"entry {step}: here {_compact(a)[:200]}, there {_compact(b)[:200]}"
    return f"one trace is longer: {len(here)} entries here, {len(there)} there"


def _other_hash_seed() -> str:
    mine = os.environ.get("PYTHONHASHSEED", "random")
    return "1" if mine == "0" else "0" if not mine.isdigit() else str((int(mine) + 1) % 2**32)


def _replay_from_stdin() -> None:
    """The other process's side of `_check_other_process`."""
    make_game, raw, max_steps = pickle.loads(sys.stdin.buffer.read())
    trace = random_playout(make_game, MatchSeed.from_text(raw), max_steps, check=False)
    sys.stdout.write(_compact(trace))


def _check_other_process(
    make_game: GameMaker, raw: int | str, trace: list[Any], max_steps: int
) -> None:
    """Replay seed ``raw`` in a fresh interpreter with another ``PYTHONHASHSEED``: an engine that
    iterates a set or dict of strings (or reads the process-global random) diverges there."""
    try:
        payload = pickle.dumps((make_game, raw, max_steps))
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise AssertionError(
            f"make_game {make_game!r} cannot be pickled ({exc}): the suite replays a seed in "
            "another process; pass conformance.SpecGame(name, rules, deal) or a module-level "
            "function"
        ) from None
    hash_seed = _other_hash_seed()
    env = {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": os.pathsep.join(path for path in sys.path if path),
    }
    done = subprocess.run(
        [sys.executable, "-c", f"import {__name__} as suite; suite._replay_from_stdin()"],
        input=payload,
        capture_output=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, (
        f"seed {raw!r}: the replay in another process failed "
        f"(exit {done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}"
    )
    here = json.loads(_compact(trace))
    there = json.loads(done.stdout)
    assert here == there, (
        f"seed {raw!r}: the game differs in a process with PYTHONHASHSEED={hash_seed} "
        f"({_first_difference(here, there)}): does the engine iterate a set or dict of strings, "
        "or use the process-global random module?"
    )


def check_engine(
    make_game: GameMaker,
    seeds: Iterable[int | str],
    max_steps: int = 10_000,
    secrets: Secrets | None = None,
    resample: Resample | None = None,
) -> None:
    """Run the whole suite for each seed: contract and secrecy checks, then same seed ⇒
    identical trace, here and (the first seed) in another process.

    ``secrets`` and ``resample`` replace the game's `HIDDEN_INFORMATION` hooks (a test of the
    suite itself; with ``secrets`` given and no ``resample``, no re-draw is checked)."""
    traces = []
    raws = []
    for raw in seeds:
        seed = MatchSeed.from_text(raw)
        first = random_playout(make_game, seed, max_steps, True, secrets, resample)
        second = random_playout(make_game, seed, max_steps, check=False)
        assert first == second, (
            f"seed {raw!r}: two playouts of the same seed differ "
            f"({_first_difference(first, second)})"
        )
        traces.append(first)
        raws.append(raw)
    assert traces, "check_engine needs at least one seed"
    if len(traces) > 1:
        assert any(t != traces[0] for t in traces[1:]), "every seed gave the same game"
    _check_other_process(make_game, raws[0], traces[0], max_steps)

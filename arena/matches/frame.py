"""The frame around a match's games: its id, and the commit–reveal of its seed (seed 000).

Every match format but the gauntlet's unrecorded duel plays its games inside a `MatchFrame`;
`arena verify` checks a record against what the frame wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args

from arena.dealing import MatchSeed
from arena.games.registry import canonical_name
from arena.matches.seating import SEATING_RULES
from arena.records import RECORD_VERSION, Recorder
from arena.transports.base import Seat
from protocol.games.common import GameKind, MatchEnd, MatchStart
from protocol.messages import Event


def match_id_for(game_kind: str, seed: MatchSeed) -> str:
    """A match's id: the game and the start of the seed's commitment. Every message a bot gets
    carries it, so it must not contain the seed itself (a bot could then derive every deal), and
    it must differ between matches (bots key their own random streams on it)."""
    return f"{canonical_name(game_kind).replace('_', '-')}-{seed.commitment()[:12]}"


@dataclass
class MatchFrame:
    """The frame around a match's games (commit–reveal, seed 000).

    Before any deal every player is sent the seed's commitment (``match_start``) and the record
    opens with a ``match`` line; after the last game the record gets the seed and the totals
    once (a ``reveal`` line: a record read while the match runs does not give later deals away)
    and every player is sent them (``match_end``). ``seats[i]`` is player ``players[i]``, in the
    seat order of the first game; `tally` adds each game's scores by player name. `close`
    writes the reveal even when the match stops early (nothing more is dealt from the seed), so
    the games played can still be verified; only a finished match sends ``match_end``.

    The match line also names the ``seating`` rule (which player sits where in game k: one of
    `SEATING_RULES`, checked by `arena verify`) and the ``rules`` every game is played under.
    """

    game_kind: str
    seed: MatchSeed
    seats: Sequence[Seat]
    players: Sequence[str]
    games: int
    recorder: Recorder | None = None
    seating: str = "alternate"
    rules: Mapping[str, Any] | None = None
    match_id: str = ""
    """Default: `match_id_for` the game and seed (the id every match should have)."""
    totals: list[float] = field(init=False)
    played: int = field(default=0, init=False)
    _revealed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if len(set(self.players)) != len(self.players) or len(self.players) != len(self.seats):
            raise ValueError(f"a match needs distinct player names, one per seat: {self.players}")
        if self.seating not in SEATING_RULES:
            raise ValueError(f"unknown seating rule {self.seating!r}; known: {SEATING_RULES}")
        self.match_id = self.match_id or match_id_for(self.game_kind, self.seed)
        self.totals = [0.0] * len(self.players)

    async def start(self) -> None:
        kind = self._kind()
        commitment = self.seed.commitment()
        if self.recorder is not None:
            self.recorder.write(
                {
                    "type": "match",
                    "record_version": RECORD_VERSION,
                    "match": self.match_id,
                    "game_kind": kind,
                    "players": list(self.players),
                    "games": self.games,
                    "seating": self.seating,
                    "rules": dict(self.rules or {}),
                    "seed_commitment": commitment,
                }
            )
        start = MatchStart(
            game_kind=kind, players=list(self.players), games=self.games, seed_commitment=commitment
        )
        for seat, client in enumerate(self.seats):
            await client.send(Event(match=self.match_id, seat=seat, payload=start))

    def tally(self, players: Sequence[str], scores: Sequence[float]) -> None:
        """One game's scores, ``scores[s]`` won by ``players[s]``."""
        for name, score in zip(players, scores, strict=True):
            self.totals[self.players.index(name)] += float(score)
        self.played += 1

    async def finish(self) -> None:
        """The match is over: reveal the seed to the record and to every player."""
        self.close()
        end = MatchEnd(seed=self.seed.hex(), totals=list(self.totals))
        for seat, client in enumerate(self.seats):
            await client.send(Event(match=self.match_id, seat=seat, payload=end))

    def close(self) -> None:
        """Write the reveal line (once)."""
        if self._revealed:
            return
        self._revealed = True
        if self.recorder is not None:
            self.recorder.write(
                {
                    "type": "reveal",
                    "match": self.match_id,
                    "seed": self.seed.hex(),
                    "games": self.played,
                    "totals": list(self.totals),
                }
            )

    def _kind(self) -> GameKind:
        kind = canonical_name(self.game_kind)
        for known in get_args(GameKind):
            if kind == known:
                return known
        raise ValueError(f"no match frame for game {kind!r}")

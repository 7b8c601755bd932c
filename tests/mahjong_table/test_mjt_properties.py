"""Property tests: random legal play on random walls never breaks an invariant of the table."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.dealing import MatchSeed
from arena.games.mahjong.engine import MahjongGame, new_game
from arena.games.mahjong.rules import load_ruleset
from arena.games.mahjong.state import DISCARD, ROB

RULESETS = {
    name: load_ruleset(name).to_mapping() for name in ("competition", "common", "duplicate")
}


def check_invariants(game: MahjongGame) -> None:
    s = game.s
    assert s.tiles_accounted() == [4] * 34, "every tile is somewhere, exactly once"
    # Seventeen tiles: the seat on turn (after a draw, chi or pon), a seat whose added kong the
    # others may rob (the tile stays in its hand meanwhile), or the (first) winner with its tile.
    if game.is_over():
        full = game.result().winners[:1]
    elif s.phase == DISCARD:
        full = (s.turn,)
    else:
        full = (s.claim_from,) if s.phase == ROB else ()
    for seat in range(4):
        held = sum(s.counts[seat]) + 3 * len(s.melds[seat])
        assert held == (17 if seat in full else 16), (seat, held, full)
    remaining = len(s.wall.remaining())
    assert s.wall.live() <= remaining - s.rules.reserve
    if not s.rules.per_seat_draws:
        assert s.wall.live() == remaining - s.rules.reserve
    due = game.to_act()
    if game.is_over():
        assert due == ()
        return
    assert due and len(set(due)) == len(due)
    for seat in range(4):
        legal = game.legal_actions(seat)
        assert bool(legal) == (seat in due)
        texts = [str(a) for a in legal]
        assert len(set(texts)) == len(texts)
        if seat in due and s.phase != DISCARD:
            assert texts[-1] == "pass"
        if seat in due and s.phase == DISCARD:
            assert any(t.startswith("discard ") for t in texts)
        assert "tsumo" not in texts or s.drawn >= 0


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    ruleset=st.sampled_from(sorted(RULESETS)),
    hand=st.integers(0, 3),
    choices=st.lists(st.integers(0, 10**6), min_size=200, max_size=200),
    win_bias=st.booleans(),
)
def test_random_legal_play_keeps_every_invariant(
    seed: int, ruleset: str, hand: int, choices: list[int], win_bias: bool
) -> None:
    game = new_game(
        RULESETS[ruleset], MatchSeed.from_text(seed), {"round": seed % 97, "hand": hand}
    )
    step = 0
    check_invariants(game)
    while not game.is_over():
        for seat in game.to_act():
            legal = game.legal_actions(seat)
            wins = [a for a in legal if a.verb in ("tsumo", "ron")]
            pick = choices[step % len(choices)]
            action = wins[0] if win_bias and wins else legal[pick % len(legal)]
            game.apply(seat, action)
            step += 1
        check_invariants(game)
        assert step < 2000
    result = game.result()
    assert sum(result.scores) == 0
    assert (result.reason == "exhaustive") == (not result.winners)
    for win in result.detail["wins"]:
        assert sum(win["payments"]) == 0
        assert max(win["payments"]) >= 1000

"""The standings say which bots had decisions played for them by the referee (fallbacks for
answers late, missing or illegal): the figures count those as the bot's own play, and a bot whose
connection was lost may have played a whole match so."""

from __future__ import annotations

from arena.cli import league as league_cli
from arena.leagues.outcomes import GameOutcome, MatchOutcome, MatchPlan


def _outcome(bots: tuple[str, str], penalties: dict[str, int]) -> MatchOutcome:
    game = GameOutcome(0, 0, {bots[0]: 1.0, bots[1]: 0.0})
    return MatchOutcome(MatchPlan(0, bots, "s"), [game], {}, 0.0, penalties=penalties)


def test_penalties_are_named_by_bot_and_match() -> None:
    outcomes = [
        _outcome(("alice", "bob"), {"alice": 0, "bob": 1683}),
        _outcome(("alice", "carol"), {"carol": 2, "alice": 1}),
    ]
    note = league_cli._penalties_note(outcomes)
    assert note is not None and note.startswith("penalties (decisions the referee played")
    assert note.endswith(
        ": bob 1683 in alice vs bob; alice 1 in alice vs carol; carol 2 in alice vs carol"
    )


def test_no_penalties_no_note() -> None:
    assert league_cli._penalties_note([_outcome(("a", "b"), {"a": 0})]) is None
    assert league_cli._penalties_note([_outcome(("a", "b"), {})]) is None

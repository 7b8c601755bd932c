"""A person at the liar's dice table (seed 002 §5.1, 圖 5.4): typed commands, checked input,
leaving early, the record, and `arena liars-dice play`."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.games.liars_dice import Bid, LiarsDiceGame, LiarsDiceRules, Reroll, parse_action
from arena.matches.frame import match_id_for
from arena.matches.liars_dice import TableError, in_process_seats
from arena.matches.liars_dice_human import (
    HumanSeat,
    HumanSession,
    Terminal,
    _why_not,
    play_session,
    read_command,
)
from arena.records import JsonlRecorder
from arena.replay import check_record, verify_record

runner = CliRunner()


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("4 5", "bid 4x5"),
        (" 4x5 ", "bid 4x5"),
        ("4 5s", "bid 4x5"),
        ("Bid 10x6", "bid 10x6"),
        ("c", "challenge"),
        ("doubt", "challenge"),
        ("r 66", "reroll 66"),
        ("reroll 6 6", "reroll 66"),
        ("r -", "reroll -"),
        ("p", "profile"),
        ("?", "help"),
        ("q", "quit"),
        ("", ""),
        ("four fives", "four fives"),
    ],
)
def test_what_a_person_types_is_read_as_an_action_or_a_command(typed: str, command: str) -> None:
    assert read_command(typed) == command


class Person:
    """A scripted person: ``answer`` turns each prompt (and what was shown so far) into a line;
    ``None`` ends the input."""

    def __init__(self, answer: Callable[[str, list[str]], str | None]) -> None:
        self.answer = answer
        self.shown: list[str] = []

    def ask(self, prompt: str) -> str:
        line = self.answer(prompt, self.shown)
        self.shown.append(prompt)
        if line is None:
            raise EOFError
        return line

    def say(self, text: str) -> None:
        self.shown.append(text)

    @property
    def console(self) -> Terminal:
        return Terminal(ask=self.ask, say=self.say)

    @property
    def games_begun(self) -> int:
        return sum(text.startswith("A new game") for text in self.shown)


def simple(prompt: str, shown: list[str]) -> str:
    """Open with two 2s, challenge any standing bid."""
    return "2 2" if "you open" in prompt else "c"


def lines(*typed: str) -> Callable[[str, list[str]], str | None]:
    """Type these lines in turn, then end the input."""
    queue = iter(typed)
    return lambda prompt, shown: next(queue, None)


def _session(
    person: Person, games: int, profile: Callable[[], None] | None = None, seed: str = "h"
) -> HumanSession:
    names, seats = in_process_seats(["probability"], seed, {})
    seat = HumanSeat(person.console, "alice", profile=profile)
    return asyncio.run(play_session(seat, list(zip(names, seats, strict=True)), games, seed))


def _write(session: HumanSession, path: Path) -> Path:
    with JsonlRecorder(path) as recorder:
        for line in session.record:
            recorder.write(line)
    return path


def test_a_session_plays_every_game_and_its_record_verifies(tmp_path: Path) -> None:
    session = _session(Person(simple), 6)
    assert session.games == 6 and not session.left_early
    assert session.fair_share == 0.5
    path = _write(session, tmp_path / "play.jsonl")
    assert len(verify_record(path)) == 6
    # One match frame around the games: commitment first, the seed once, after the last game.
    report = check_record(path)
    assert report.ok and len(report.matches) == 1 and report.matches[0].games == 6
    match, reveal = session.record[0], session.record[-1]
    seed = MatchSeed.from_text("h")
    assert match["type"] == "match" and match["games"] == 6
    assert match["seed_commitment"] == seed.commitment()
    assert reveal["type"] == "reveal" and reveal["seed"] == seed.hex() and reveal["games"] == 6
    assert [line["type"] for line in session.record].count("reveal") == 1
    # The person's result in the record is the one the session counted, seat by seat.
    results = [line for line in session.record if line["type"] == "result"]
    headers = [line for line in session.record if line["type"] == "header"]
    for header, result, won in zip(headers, results, session.outcomes, strict=True):
        seat = header["players"].index("alice")
        assert (result["scores"][seat] == 1.0) == won
    # Seats rotate: the person sits first in game 0, second in game 1.
    assert [h["players"][0] for h in headers[:2]] == ["alice", "probability"]


def test_bad_input_names_the_rule_and_is_asked_again() -> None:
    person = Person(lines("9 9", "1 3", "11 3", "c", "banana", "", "2 2", "c", "c", "c"))
    session = _session(person, 1)
    shown = "\n".join(person.shown)
    assert "a die has faces 1 to 6, not 9" in shown
    assert "the opening bid must claim at least 2 dice" in shown
    assert "claims more dice than the 10 in play" in shown
    assert "there is no bid to challenge" in shown
    assert "cannot read 'banana': type '4 5' to bid four 5s, 'c' to challenge" in shown
    assert "bid CxF" not in shown  # the protocol's words, not what a person types
    # Nothing the person typed reached the referee as a failure: it was asked again.
    assert session.games == 1
    assert not [line for line in session.record if line["type"] == "failure"]


def _games(session: HumanSession) -> list[dict[str, object]]:
    return [line for line in session.record if line["type"] not in ("match", "reveal")]


def test_leaving_mid_game_keeps_only_the_finished_games(tmp_path: Path) -> None:
    finished = _session(Person(simple), 2)

    def leave_in_third_game(prompt: str, shown: list[str]) -> str | None:
        begun = sum(text.startswith("A new game") for text in shown)
        return "q" if begun == 3 else simple(prompt, shown)

    person = Person(leave_in_third_game)
    session = _session(person, 10)
    assert session.left_early and session.games == 2
    assert session.outcomes == finished.outcomes
    assert _games(session) == _games(finished)
    # A match stopped early: announced 10, two played; the seed is still revealed, once.
    assert session.record[0]["games"] == 10
    assert session.record[-1]["type"] == "reveal" and session.record[-1]["games"] == 2
    assert session.record[-1]["seed"] == MatchSeed.from_text("h").hex()
    # No match_end for a match that did not finish: the person is not told it is over.
    assert not any("The match is over" in text for text in person.shown)
    # Every game it holds verifies; the match as a whole is reported short.
    report = check_record(_write(session, tmp_path / "short.jsonl"))
    assert all(game.ok for game in report.games) and len(report.games) == 2
    (match,) = report.matches
    assert not match.ok
    assert any("announced 10 games" in problem for problem in match.problems)


def test_the_person_sees_the_commitment_before_the_dice_and_the_seed_after_the_match() -> None:
    person = Person(simple)
    session = _session(person, 2)
    seed = MatchSeed.from_text("h")
    shown = person.shown
    committed = next(i for i, text in enumerate(shown) if seed.commitment() in text)
    first_dice = next(i for i, text in enumerate(shown) if text.startswith("Your dice"))
    assert committed < first_dice
    assert "The dealer commits to seed SHA-256" in shown[committed]
    assert not any(seed.hex() in text for text in shown[:-1])  # the seed comes last, once
    assert shown[-1] == (
        f"The match is over. The dealer reveals the seed {seed.hex()}: its SHA-256 is the "
        "commitment shown at the start."
    )
    # The match id is the commitment's, not a fixed name, and never holds the seed.
    headers = [line for line in session.record if line["type"] == "header"]
    assert {h["match"] for h in headers} == {match_id_for("liars_dice", seed)}
    other = _session(Person(simple), 1, seed="h2")
    assert other.record[0]["match"] != session.record[0]["match"]


def test_the_end_of_input_leaves_the_table() -> None:
    session = _session(Person(lines()), 5)
    assert session.games == 0 and session.left_early


def test_profile_and_help_are_not_moves() -> None:
    calls: list[int] = []
    asked: list[str] = []

    def curious(prompt: str, shown: list[str]) -> str | None:
        asked.append(prompt)
        if len(asked) == 1:
            return "p"
        if len(asked) == 2:
            return "?"
        return simple(prompt, shown)

    person = Person(curious)
    session = _session(person, 1, profile=lambda: calls.append(1))
    assert calls == [1]
    assert any("A raise is a higher count" in text for text in person.shown)
    assert session.games == 1
    assert session.outcomes == _session(Person(simple), 1).outcomes


def test_the_person_needs_a_name_no_bot_has_and_a_ruleset_for_the_table() -> None:
    names, seats = in_process_seats(["probability"], "h", {})
    person = HumanSeat(Person(lines()).console, "probability")
    with pytest.raises(TableError, match="distinct names"):
        asyncio.run(play_session(person, list(zip(names, seats, strict=True)), 1, "h"))
    person = HumanSeat(Person(lines()).console, "alice")
    with pytest.raises(TableError, match="players = 4"):
        asyncio.run(
            play_session(
                person,
                list(zip(names, seats, strict=True)),
                1,
                "h",
                rules=LiarsDiceRules(players=4),
            )
        )


# Typed ahead, "c" then "2 2" always gets on: "c" is taken whenever a bid stands, and refused
# when the person opens, where "2 2" is taken.
TYPED = ["c", "2 2"]


def test_play_command_prints_the_score_seed_and_writes_a_record(tmp_path: Path) -> None:
    typed = "\n".join(TYPED * 30) + "\n"
    result = runner.invoke(
        app,
        [
            "liars-dice",
            "play",
            "--against",
            "bayes",
            "--games",
            "4",
            "--seed",
            "s",
            "--record",
            str(tmp_path),
            "--json",
        ],
        input=typed,
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["games"] == 4 and data["bots"] == ["bayes"] and data["seed"] == "s"
    assert 0.0 <= data["win_rate"] <= 1.0 and not data["left_early"]
    (record,) = tmp_path.glob("*.jsonl")
    assert len(verify_record(record)) == 4


def test_play_command_default_seed_is_fresh_and_shown_only_at_the_end(tmp_path: Path) -> None:
    args = ["liars-dice", "play", "--against", "probability", "--games", "2"]
    typed = "\n".join(TYPED * 30) + "\n"
    result = runner.invoke(app, [*args, "--record", str(tmp_path)], input=typed)
    assert result.exit_code == 0, result.output
    (seed,) = re.findall(r"match seed: ([0-9a-f]{64}) ", result.output)
    commitment = MatchSeed.from_hex(seed).commitment()
    # The commitment is shown before the first die, the seed only after the last move.
    assert result.output.index(commitment) < result.output.index("Your dice")
    assert result.output.index(seed) > result.output.rindex("your move")
    assert f"The dealer reveals the seed {seed}: its SHA-256 is the commitment" in result.output
    # The record is named after the commitment, not the seed, and verifies.
    (record,) = tmp_path.glob("*.jsonl")
    assert record.name.startswith(f"liars-dice-play-c{commitment[:12]}-")
    verified = runner.invoke(app, ["verify", str(record)])
    assert verified.exit_code == 0, verified.output
    # Another session draws another seed.
    again = runner.invoke(app, args, input="q\n")
    assert seed not in again.output and "match seed: " in again.output


def test_a_session_left_early_is_recorded_as_a_short_match(tmp_path: Path) -> None:
    args = ["liars-dice", "play", "--against", "probability", "--games", "20", "--seed", "s"]
    typed = "\n".join([*TYPED, *TYPED, "q"]) + "\n"
    result = runner.invoke(app, [*args, "--record", str(tmp_path)], input=typed)
    assert result.exit_code == 0, result.output
    assert "you left early" in result.output and "The match is over" not in result.output
    (record,) = tmp_path.glob("*.jsonl")
    assert "it reports the match as short" in " ".join(result.output.split())
    verified = runner.invoke(app, ["verify", str(record)])
    shown = " ".join(verified.output.split())
    assert verified.exit_code == 1
    assert "the match announced 20 games, the record holds 3 (3 finished)" in shown
    assert shown.count("decisions ok") == 3  # every game it holds checks out


def test_play_command_shows_what_bayes_learnt_of_the_person() -> None:
    typed = "\n".join(TYPED * 3 + ["p", "q"]) + "\n"
    result = runner.invoke(
        app, ["liars-dice", "play", "--games", "50", "--seed", "s", "--name", "bob"], input=typed
    )
    assert result.exit_code == 0, result.output
    assert "bob:" in result.output and "games learnt" in result.output
    assert "bayes imagines your hand as" in result.output
    assert "you left early" in result.output and "match seed: s" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--against", "psychic"], "psychic"),
        (["--against", "bayes", "--name", "bayes"], "distinct names"),
        (["--against", "bayes", "--rules", "liars_dice_party"], "players = 4"),
        (["--against", "bayes", "--config", "bayes"], "BOT=FILE"),
    ],
)
def test_play_command_refuses_a_table_it_cannot_seat(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["liars-dice", "play", *args], input="2 2\n")
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert "your move" not in result.output


def test_the_prompt_says_when_ones_are_wild() -> None:
    person = Person(simple)
    names, seats = in_process_seats(["probability"], "h", {})
    seat = HumanSeat(person.console, "alice")
    rules = LiarsDiceRules(ones_wild=True)
    asyncio.run(play_session(seat, list(zip(names, seats, strict=True)), 1, "h", rules=rules))
    prompts = [text for text in person.shown if text.endswith("your move (? for help): ")]
    assert prompts and all("ones wild" in text for text in prompts[:1])


def _refusal(game: LiarsDiceGame, typed: str) -> str:
    """What the person is told for ``typed`` at seat ``game.current``, after checking that the
    engine refuses it too."""
    action = parse_action(read_command(typed))
    assert not game.is_legal(game.current, action), typed
    return _why_not(action, game.observation(game.current))


def _reroll_game(reroll: bool = True) -> LiarsDiceGame:
    rules = LiarsDiceRules(reroll=reroll)
    return LiarsDiceGame.with_dice(rules, [[2, 3, 4, 6, 6], [1, 1, 2, 3, 6]])


def test_a_refused_reroll_names_the_rule_it_breaks() -> None:
    game = _reroll_game()
    # Every die of the cup shown: the engine's "at least one die must be re-rolled".
    told = _refusal(game, "r 23466")
    assert "leaves no die in the cup to re-roll" in told and "show only" not in told
    assert _refusal(game, "r 666") == "reroll 666 shows 3 × 6 but your cup holds 2 (2 3 4 6 6)"
    game.apply(0, Reroll((6, 6)))
    assert "already re-rolled this turn" in _refusal(game, "r -")
    assert "must bid" in _refusal(game, "c")
    assert "re-rolling is off" in _refusal(_reroll_game(reroll=False), "r 66")


def test_after_the_highest_bid_a_reroll_is_refused_for_want_of_a_raise() -> None:
    game = _reroll_game()
    game.apply(0, Bid(10, 6))
    assert game.current == 1
    told = _refusal(game, "r 11")
    assert told == "no bid is left above bid 10x6, and a re-roll must be followed by a bid"
    assert "more dice than the 10 in play" in _refusal(game, "11 1")


def test_the_reroll_refusal_of_the_audit_through_the_play_command() -> None:
    args = ["--against", "random-guess", "--games", "1", "--seed", "3"]
    result = runner.invoke(
        app, ["liars-dice", "play", *args, "--rules", "liars_dice_reroll"], input="r 23466\nq\n"
    )
    assert result.exit_code == 0, result.output
    assert "reroll 23466 leaves no die in the cup to re-roll" in result.output
    assert "show only dice under your cup" not in result.output


def test_the_profile_shows_the_score_before_any_game_ends_and_without_bayes() -> None:
    result = runner.invoke(
        app,
        ["liars-dice", "play", "--against", "random-guess", "--games", "1", "--seed", "3"],
        input="p\nq\n",
    )
    assert result.exit_code == 0, result.output
    assert "Score: you won 0 of 0 games (no game has finished yet)" in result.output
    assert "No Bayesian bot at the table" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "error: --games must be at least 1, got 0"),
        (["--against", "bayes,,probability"], "error: --against: empty entry in"),
    ],
)
def test_play_command_refuses_bad_counts_and_empty_names_in_one_line(
    args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["liars-dice", "play", *args], input="q\n")
    assert result.exit_code == 2
    assert message in result.output and "Usage" not in result.output


def test_fair_share_is_the_same_on_every_python() -> None:
    # Ten shares of 0.1: the built-in sum gives 0.9999999999999999 on 3.11 and 1.0 from 3.12.
    session = HumanSession(human="me", bots=["probability"], seed="s", rules={})
    session.fair_shares = [0.1] * 10
    assert session.fair_share == 0.1

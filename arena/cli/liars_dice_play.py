"""``arena liars-dice play``: a person against bots in the terminal (seed 002 §5.1, 圖 5.4)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from arena.cli.common import (
    MAX_MATCH_GAMES,
    at_least,
    fail,
    fresh_seed,
    lineup_tag,
    output_directory,
    print_json,
    record_file,
    replace_record,
    split_names,
    why_not_written,
)
from arena.cli.liars_dice import announce_kept_tables, ld_app, span, table_configs
from arena.cli.liars_dice_players import show_profile
from arena.errors import ArenaError
from arena.games.errors import GameError
from arena.games.liars_dice import LiarsDiceRules, load_ruleset
from arena.matches.liars_dice import check_table, in_process_seats
from arena.matches.liars_dice_human import HumanSeat, HumanSession, Terminal, play_session
from arena.records import JsonlRecorder
from arena.transports.base import Seat
from arena.transports.inprocess import InProcessSeat
from bots.liars_dice import Bayes, ConfigError, LiarsDiceBot, ModelError
from bots.liars_dice.bayes import raise_failed_save
from bots.registry import UnknownBotError

PLAY_HELP = (
    "Play liar's dice yourself against one to four bots in the terminal, as the seed's human "
    "testers did (seed 002 §5.1, 圖 5.4; table 5.1). Type a bid as '4 5' (four dice showing 5), "
    "'c' to challenge, 'p' for the profile (the score, and what the Bayesian player has learnt "
    "of you and the hand it imagines for you now), '?' for help, 'q' to leave. Seats and the "
    "opener rotate every game. The session is one match: before the first deal you see the "
    "dealer's commitment (the seed's SHA-256); at the end your win rate with its 95% interval "
    "against the fair share, the match seed, and with --record the match record of every "
    "finished game (arena verify checks it; a session left early is a short match)."
)


def _stream_console(stream: Any) -> Terminal:
    """Prompts and text on ``stream`` (stderr under --json, so stdout holds only the JSON)."""
    text = Console(file=stream, highlight=False, markup=False, soft_wrap=True)

    def ask(prompt: str) -> str:
        try:
            # The handler goes in before the prompt shows: a Ctrl-C typed as soon as it shows
            # would otherwise reach asyncio's handler and be lost in the blocking read.
            with _interruptible():
                stream.write(prompt)
                stream.flush()
                line = sys.stdin.readline()
        except KeyboardInterrupt:
            # Ctrl-C at the prompt leaves the table like 'q': the finished games still count.
            raise EOFError from None
        if not line:
            raise EOFError
        return line

    return Terminal(ask=ask, say=text.print)


@contextmanager
def _interruptible() -> Iterator[None]:
    """Ctrl-C raises `KeyboardInterrupt` inside the block. Under asyncio.run it would only
    cancel the main task, which a blocking readline does not notice: the read is restarted, and
    the person's first Ctrl-C was lost until a line was typed (and thrown away)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set in the main thread
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@ld_app.command("play", help=PLAY_HELP)
def play_command(
    against: str = typer.Option(
        "bayes", "--against", help="the bots to play, comma-separated (one to four)"
    ),
    games: int = typer.Option(
        20,
        "--games",
        callback=at_least(1, at_most=MAX_MATCH_GAMES),
        help="games to play (you may leave sooner)",
    ),
    seed: str | None = typer.Option(
        None,
        "--seed",
        help="match seed (64 hex digits or any text); default: fresh from the operating system, "
        "shown only when the session ends",
    ),
    name: str = typer.Option(
        "human",
        "--name",
        help="your name at the table: the Bayesian player files what it learns of you under it "
        "(with the bot option tables_dir, across sessions)",
    ),
    rules: str | None = typer.Option(
        None, "--rules", help="ruleset: a name in configs/rulesets/ or a TOML path"
    ),
    config: list[str] = typer.Option(
        [], "--config", help="BOT=FILE, the config (TOML) of BOT (e.g. bayes=… with tables_dir)"
    ),
    record: Path | None = typer.Option(
        None,
        "--record",
        help="write the finished games' record to this directory at the end (an earlier record "
        "of the same seed and set-up, bots and configs included, is replaced, with a note)",
        readable=False,
    ),
    json_output: bool = typer.Option(
        False, "--json", help="print the result as one JSON object (the game goes to stderr)"
    ),
) -> None:
    names = split_names(against, "--against")
    if not name.strip():
        fail("--name must not be empty")
    try:
        ruleset = load_ruleset(rules) if rules is not None else None
    except (GameError, OSError) as exc:
        fail(str(exc))
    output_directory(record, "--record")
    configs = table_configs(config, names)
    announce_kept_tables(configs)
    # Shown only at the end: the dice of every game follow from it.
    seed_text = fresh_seed(seed)
    # Checked now, written at the end: a name taken by a directory must not cost the session.
    lineup = lineup_tag([name, *names], {"configs": configs, "rules": ruleset})
    record_to = (
        record_file(record, "liars-dice-play", seed_text, lineup=lineup)
        if record is not None
        else None
    )
    stream = sys.stderr if json_output else sys.stdout
    console = _stream_console(stream)
    try:
        bot_names, bot_seats = in_process_seats(names, seed_text, configs)
        table_rules = check_table([name, *bot_names], ruleset)
    except (UnknownBotError, ConfigError, ArenaError) as exc:
        fail(str(exc))
    rich_out = Console(file=stream, highlight=False)
    session: HumanSession | None = None

    def show_profile() -> None:
        # The profile always starts with the score so far (RULES.md), 0 of 0 before the first
        # game ends, so that 'p' never answers with nothing.
        if session is not None and session.games:
            console.say(f"Score: {_score(session)}")
        else:
            console.say("Score: you won 0 of 0 games (no game has finished yet)")
        learners = [bot for bot in _bots(bot_seats) if isinstance(bot.strategy, Bayes)]
        note = tables_note(table_rules)
        for bot in learners:
            if note is not None:
                console.say(f"note: {bot.name} {note}.")
            _show_bayes(console, rich_out, bot, name)
        if not learners:
            console.say("No Bayesian bot at the table: nothing learnt of you to show.")

    person = HumanSeat(console, name, profile=show_profile)

    def after_game(progress: HumanSession) -> None:
        nonlocal session
        session = progress
        console.say(f"Score: {_score(progress)}")
        # The referee only logs a bot's exception: a failed save of what bayes learnt of the
        # person is looked for after every game, to stop rather than learn in vain.
        raise_failed_save(_bots(bot_seats))

    console.say(
        f"Liar's dice against {', '.join(bot_names)}: {games} games. Type ? for help, q to leave."
    )
    try:
        session = asyncio.run(
            play_session(
                person,
                list(zip(bot_names, bot_seats, strict=True)),
                games,
                seed_text,
                rules=ruleset,
                on_game=after_game,
            )
        )
    except (ArenaError, ModelError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        # Ctrl-C while a bot thinks (at the prompt it is a plain 'q'): keep the finished games.
        if session is None:
            fail("interrupted before any game finished", 130)
        session.left_early = True
    unwritten: str | None = None
    if record_to is not None and session.games:
        # Written only now: its reveal line publishes the seed, from which every die follows.
        try:
            _write_record(record_to, session.record)
        except OSError as exc:
            unwritten = (
                f"--record {record}: cannot write {record_to}: {why_not_written(record_to, exc)}; "
                f"{_keep_elsewhere(record_to, session.record)}"
            )
        else:
            short = (
                f"; it reports the match as short: {session.games} of the {games} games announced"
                if session.games < games
                else ""
            )
            console.say(f"record: {record_to} (arena verify {record_to}{short})")
    if json_output:
        print_json(session.to_json())
    else:
        ended = " (you left early)" if session.left_early else ""
        console.say(f"\n{_score(session) if session.games else 'No game finished'}{ended}")
        console.say(f"match seed: {seed_text} (--seed {seed_text} deals the same dice again)")
    if unwritten is not None:
        # Last, after the score and the seed: the session itself is not lost.
        fail(unwritten)


def _write_record(path: Path, lines: Sequence[dict[str, Any]]) -> None:
    """The session's record at ``path`` (an earlier one replaced, with a note); `OSError` when
    it cannot be written (its name or its directory's taken by a file during the session, the
    permission to write lost; a directory removed is made again)."""
    replace_record(path)
    with JsonlRecorder(path) as recorder:
        for line in lines:
            recorder.write(line)


def _keep_elsewhere(path: Path, lines: Sequence[dict[str, Any]]) -> str:
    """Write the session's record to a new file in the temporary directory (readable by this
    user only) when ``path`` could not be written, and say where: the games played are not
    lost to a record that cannot be written."""
    try:
        handle, kept = tempfile.mkstemp(prefix=f"{path.stem}-", suffix=".jsonl")
        os.close(handle)
        with JsonlRecorder(Path(kept)) as recorder:
            for line in lines:
                recorder.write(line)
    except OSError as exc:
        return (
            f"the record could not be kept in {tempfile.gettempdir()} either "
            f"({exc.strerror or exc}): the score and the seed above are what remains"
        )
    return f"the session's record is kept in {kept} instead (arena verify {kept})"


def _score(session: HumanSession) -> str:
    return (
        f"you won {session.wins} of {session.games} games, {session.wins / session.games:.0%} "
        f"(95% interval {span(session.interval())}; fair share {session.fair_share:.0%})"
    )


def _bots(seats: list[Seat]) -> list[LiarsDiceBot]:
    return [
        seat.bot
        for seat in seats
        if isinstance(seat, InProcessSeat) and isinstance(seat.bot, LiarsDiceBot)
    ]


def tables_note(rules: LiarsDiceRules) -> str | None:
    """When a Bayesian bot reads its tables about the person under ``rules``, if not in every
    round (``None``): its networks model one opponent in the seed's game (`Bayes.prepare`), so
    in any other round it plays as random-guess."""
    if rules.reroll:
        when = "never under the re-roll rule: it plays as random-guess"
    elif rules.players > 2 and not rules.series:
        when = f"never at a table of {rules.players}: it plays as random-guess"
    else:
        limits = ["once only two seats have dice left"] if rules.players > 2 else []
        limits += ["once ones have been bid in the round"] if rules.ones_wild else []
        if not limits:
            return None
        when = "here only " + " and ".join(limits)
    return (
        "reads these tables only in a round between two seats, ones not wild, without the "
        f"re-roll rule (the seed's game): {when}"
    )


def _show_bayes(console: Terminal, out: Console, bot: LiarsDiceBot, human: str) -> None:
    """The seed's 圖 5.5 for one Bayesian bot: its networks' tables about you, and the hand it
    imagines for you after its last decision."""
    strategy = bot.strategy
    assert isinstance(strategy, Bayes)
    profile = strategy.model_for(human).profile() | {"file": f"{bot.name}, this session"}
    show_profile(profile, out, learner=bot.name)
    if strategy.real_guess:
        hand = ", ".join(
            f"{face}: {strategy.soft.counts[face]:.1f} (≤ {strategy.soft.caps[face]:.1f})"
            for face in range(1, 7)
        )
    else:
        hand = ", ".join(
            f"{face}: {strategy.imagined[face]}"
            + ("" if strategy.limits[face] is None else f" (≤ {strategy.limits[face]})")
            for face in range(1, 7)
        )
    console.say(f"{bot.name} imagines your hand as (face: dice) {hand}")

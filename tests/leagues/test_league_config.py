"""League configs: what loads, what is refused and how the refusal reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.leagues.config import LeagueConfigError, load_league
from arena.leagues.formats import DEFAULT_GAMES
from arena.leagues.play import plan_matches

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "league.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(LeagueConfigError) as caught:
        load_league(write(tmp_path, text))
    return str(caught.value)


TWO_DICE_BOTS = """
name = "dice"
game = "liars-dice"
[[bots]]
name = "random-guess"
[[bots]]
name = "probability"
"""


def test_defaults_follow_the_seeds_and_the_name_seeds_the_league(tmp_path: Path) -> None:
    config = load_league(write(tmp_path, TWO_DICE_BOTS))
    assert config.games_per_match == DEFAULT_GAMES["liars-dice"] == 500
    assert config.league_seed == "dice"
    assert config.bot("probability").strategy() == "probability"


@pytest.mark.parametrize("path", sorted((REPO / "configs" / "leagues").glob("*.toml")))
def test_every_shipped_league_config_loads(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    config = load_league(path.relative_to(REPO))
    assert plan_matches(config)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("colour = 1\n" + TWO_DICE_BOTS, "unknown key 'colour' (known keys: name, game, bots"),
        (TWO_DICE_BOTS + '[[bots]]\nname = "probability"\n', "repeated: probability"),
        (TWO_DICE_BOTS + '[[bots]]\nname = "nobody"\n', "bot 3 ('nobody'): no liars_dice bot"),
        ("games = 0\n" + TWO_DICE_BOTS, "games: Input should be greater than or equal to 1"),
        ('layout = "ab"\n' + TWO_DICE_BOTS, "'layout' is for mahjong"),
        ("rules = { digits = 4 }\n" + TWO_DICE_BOTS, "'rules' is for bulls-cows"),
        (
            'rules = { digits = "x" }\n' + TWO_DICE_BOTS.replace("liars-dice", "bulls-cows"),
            "rules.digits: Input should be a valid integer",
        ),
        (
            "rules = { colours = 4 }\n" + TWO_DICE_BOTS.replace("liars-dice", "bulls-cows"),
            "rules: unknown key 'colours' (known keys: digits, alphabet, max_guesses)",
        ),
        ('ruleset = "no/such.toml"\n' + TWO_DICE_BOTS, "no/such.toml"),
        (
            TWO_DICE_BOTS.replace('name = "probability"', 'name = "p"\noptions = { nosuch = 1 }'),
            "bot 2 ('p')",
        ),
        (
            'name = "m"\ngame = "mahjong"\nlayout = "rotate"\n'
            '[[bots]]\nname = "greedy"\n[[bots]]\nname = "random"\n',
            "at least four",
        ),
        (
            'server = "ws://127.0.0.1:8765"\n'
            + TWO_DICE_BOTS
            + '[[bots]]\nname = "b"\nbot = "bayes"\n',
            "belong to `bots run` (found on: b)",
        ),
    ],
)
def test_bad_configs_are_refused_naming_the_key(tmp_path: Path, text: str, expected: str) -> None:
    message = refused(tmp_path, text)
    assert str(tmp_path / "league.toml") in message
    assert expected in message


def test_a_config_file_strategy_must_agree_with_bot(tmp_path: Path) -> None:
    config = REPO / "configs" / "bots" / "bulls_cows" / "optimal-evader.toml"
    text = (
        'name = "b"\ngame = "bulls-cows"\n'
        f'[[bots]]\nname = "x"\nbot = "random"\nconfig = "{config}"\n'
        '[[bots]]\nname = "random"\n'
    )
    assert "is a 'optimal' config, not 'random'" in refused(tmp_path, text)


def test_a_bad_key_in_a_bot_config_file_names_that_file(tmp_path: Path) -> None:
    bot_file = write(tmp_path, "psychology = 0.3\nguess = 'odds'\nbogus = 1\n", "badbot.toml")
    bayes = TWO_DICE_BOTS + f'[[bots]]\nname = "b1"\nbot = "bayes"\nconfig = "{bot_file}"\n'
    message = refused(tmp_path, bayes)
    assert message.startswith(f"{bot_file}: unknown liar's dice bot option 'bogus'")
    assert f"bot 3 ('b1') in {tmp_path / 'league.toml'}" in message
    # An inline option overrides the file's key: the file is then fine as the league uses it.
    fixed = bayes.replace("config =", "options = { bogus = 2 }\nconfig =")
    assert refused(tmp_path, fixed).startswith(f"{tmp_path / 'league.toml'}: bot 3 ('b1'): unknown")
    bot_file.write_text("psychology = 0.3\nguess = 'odds'\n", encoding="utf-8")
    assert load_league(write(tmp_path, bayes)).bot("b1").config == bot_file


@pytest.mark.parametrize(
    ("bot", "strategy_in_file", "blamed"),
    [
        ('bot = "nobody"\n', "", "league.toml"),  # the league's unknown strategy
        ("", 'strategy = "nobody"\n', "strategy.toml"),  # the file's
    ],
)
def test_an_unknown_strategy_is_blamed_on_the_file_that_names_it(
    tmp_path: Path, bot: str, strategy_in_file: str, blamed: str
) -> None:
    bot_file = write(tmp_path, strategy_in_file + 'seed = "s"\n', "strategy.toml")
    text = (
        'name = "b"\ngame = "bulls-cows"\n[[bots]]\nname = "random"\n'
        f'[[bots]]\nname = "x"\n{bot}config = "{bot_file}"\n'
    )
    message = refused(tmp_path, text)
    assert message.startswith(f"{tmp_path / blamed}: ")
    assert "no bulls_cows bot named 'nobody'" in message


def test_not_toml_and_missing_files_are_clear(tmp_path: Path) -> None:
    assert "not valid TOML" in refused(tmp_path, "name = ")
    with pytest.raises(LeagueConfigError, match="cannot read league config"):
        load_league(tmp_path / "absent.toml")
    missing = TWO_DICE_BOTS.replace(
        'name = "probability"', 'name = "p"\nbot = "probability"\nconfig = "no/such.toml"'
    )
    assert "paths are read from the current directory" in refused(tmp_path, missing)


def test_plans_pair_every_two_bots_or_every_four_in_rotation(tmp_path: Path) -> None:
    bots = "".join(f'[[bots]]\nname = "g{k}"\nbot = "greedy"\n' for k in range(5))
    pairs = load_league(write(tmp_path, f'name = "m"\ngame = "mahjong"\n{bots}'))
    plans = plan_matches(pairs)
    assert [plan.key for plan in plans[:2]] == ["g0 vs g1", "g0 vs g2"]
    assert len(plans) == 10
    assert len({plan.seed for plan in plans}) == 10
    assert all(plan.seed.startswith("m/") for plan in plans)
    text = f'name = "m"\ngame = "mahjong"\nlayout = "rotate"\n{bots}'
    rotate = load_league(write(tmp_path, text))
    assert [len(plan.bots) for plan in plan_matches(rotate)] == [4] * 5


def test_the_fingerprint_ignores_how_a_league_is_run(tmp_path: Path) -> None:
    config = load_league(write(tmp_path, TWO_DICE_BOTS))
    assert config.with_overrides(jobs=3).fingerprint() == config.fingerprint()
    assert config.with_overrides(games=7).fingerprint() != config.fingerprint()
    assert config.with_overrides(seed="other").fingerprint() != config.fingerprint()


def test_a_league_on_a_server_needs_a_secret_seed(tmp_path: Path) -> None:
    on_server = 'server = "ws://127.0.0.1:8765"\n' + TWO_DICE_BOTS
    message = refused(tmp_path, on_server)
    assert "secret seed of 64 hex digits" in message and "'dice'" in message
    secret = "ab" * 32
    config = load_league(write(tmp_path, f'seed = "{secret}"\n' + on_server))
    assert config.league_seed == secret
    assert "secret seed" in refused(tmp_path, 'seed = "2026"\n' + on_server)


def test_a_league_on_a_server_refuses_names_no_bot_can_connect_as(tmp_path: Path) -> None:
    on_server = f'server = "ws://127.0.0.1:8765"\nseed = "{"ab" * 32}"\n' + TWO_DICE_BOTS
    text = on_server.replace('name = "random-guess"', 'name = "random-guess#1"')
    message = refused(tmp_path, text)
    assert "names are 1-64 of" in message and "random-guess#1" in message
    # In-process the name is a label of the bot, and loads.
    local = TWO_DICE_BOTS.replace(
        'name = "random-guess"', 'name = "random-guess#1"\nbot = "random-guess"'
    )
    assert load_league(write(tmp_path, local)).bot_names == ["random-guess#1", "probability"]


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (TWO_DICE_BOTS, "a league on a server needs a secret seed"),
        (
            f'seed = "{"ab" * 32}"\n'
            + TWO_DICE_BOTS.replace('name = "probability"', 'name = "p"\nbot = "probability"'),
            "on a server the bots are the connected bots of those names",
        ),
        (
            'name = "m"\ngame = "mahjong"\n[[bots]]\nname = "greedy"\n[[bots]]\nname = "random"\n',
            "on a server mahjong plays the rotate layout, which seats four bots a table",
        ),
    ],
)
def test_a_server_rule_broken_because_of_the_server_option_names_the_option(
    tmp_path: Path, text: str, rule: str
) -> None:
    """The file plays in-process as it is; only --server makes it break a rule of leagues on a
    server, so the message names the option beside the file instead of blaming the file alone."""
    config_file = write(tmp_path, text)
    load_league(config_file)  # in-process it loads
    with pytest.raises(LeagueConfigError) as caught:
        load_league(config_file, server="ws://127.0.0.1:8765")
    assert str(caught.value).startswith(f"{config_file} with --server: {rule}")
    # Written in the file, the same rule is the file's alone.
    with pytest.raises(LeagueConfigError) as in_file:
        load_league(write(tmp_path, 'server = "ws://127.0.0.1:8765"\n' + text))
    assert str(in_file.value).startswith(f"{config_file}: config: {rule}")


def test_a_ruleset_with_a_time_table_is_refused(tmp_path: Path) -> None:
    ruleset = tmp_path / "timed.toml"
    ruleset.write_text("[rules]\nplayers = 2\n\n[time]\ndeadline_ms = 0\n", encoding="utf-8")
    message = refused(tmp_path, f'ruleset = "{ruleset}"\n' + TWO_DICE_BOTS)
    assert "timed.toml" in message and "deadline_ms and bank_ms" in message


def test_a_time_bank_is_a_new_league_and_its_absence_keeps_old_leagues(tmp_path: Path) -> None:
    config = load_league(write(tmp_path, TWO_DICE_BOTS))
    # The fingerprint of this config before `bank_ms` existed: stored leagues must still resume.
    assert (
        config.fingerprint() == "c8f25cdab0711ba8a1586367246a9e7e13d36fb69443a0b0448d88030ef17f14"
    )
    banked = load_league(write(tmp_path, "bank_ms = 60000\n" + TWO_DICE_BOTS))
    assert banked.bank_ms == 60000 and banked.fingerprint() != config.fingerprint()
    assert "bank_ms" in refused(tmp_path, "bank_ms = -1\n" + TWO_DICE_BOTS)


def test_an_edited_bot_config_file_is_a_new_league(tmp_path: Path) -> None:
    options = tmp_path / "bayes.toml"
    options.write_text('guess = "odds"\n', encoding="utf-8")
    text = TWO_DICE_BOTS + f'[[bots]]\nname = "b"\nbot = "bayes"\nconfig = "{options}"\n'
    before = load_league(write(tmp_path, text)).fingerprint()
    options.write_text('guess = "odds"\npsychology = 0.25\n', encoding="utf-8")
    assert load_league(write(tmp_path, text)).fingerprint() != before


def test_an_edited_ruleset_file_is_a_new_league(tmp_path: Path) -> None:
    ruleset = tmp_path / "dice.toml"
    ruleset.write_text("[rules]\ndice = 5\n", encoding="utf-8")
    text = f'ruleset = "{ruleset}"\n' + TWO_DICE_BOTS
    before = load_league(write(tmp_path, text)).fingerprint()
    ruleset.write_text("[rules]\ndice = 4\n", encoding="utf-8")
    assert load_league(write(tmp_path, text)).fingerprint() != before


def test_a_bot_that_keeps_learnt_tables_between_runs_is_refused(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    message = refused(
        tmp_path,
        TWO_DICE_BOTS
        + f'[[bots]]\nname = "learner"\nbot = "bayes"\noptions = {{ tables_dir = "{tables}" }}\n',
    )
    assert "bot 3 ('learner') keeps state between runs: tables_dir" in message
    assert "without that option" in message

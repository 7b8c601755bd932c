"""The Bayesian player's saved tables: checked on load, written atomically, shown as a profile
(`arena liars-dice model`), and a bad file refused before any game is played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.dealing import MatchSeed
from arena.matches.liars_dice_series import make_ld_bot, play_duel
from bots.liars_dice import Bayes, ModelError, OpponentModel, load_model
from bots.liars_dice.bot import ConfigError
from bots.liars_dice.opponent_model import check_tables_dir, model_path, save_model
from bots.registry import make_bot

runner = CliRunner()


def _model() -> OpponentModel:
    return OpponentModel(
        opponent="type5",
        games=7,
        opening_lie=[3, 1],
        decisions={"2": 4, "10": 1},
        support={"2": [1, 3], "10": [1, 0]},
        challenge={"2,1": [2, 1], "2,0": [0, 1], "10,0": [0, 1]},
        lie={"2,1": [1, 1]},
        same_face={"2,1,0": [1, 0], "2,1,1": [0, 1]},
        our_openings={"2": [2, 2], "3": [0, 1]},
    )


def test_saved_tables_load_back_equal(tmp_path: Path) -> None:
    model = _model()
    path = model_path(tmp_path, model.opponent)
    save_model(model, path)
    assert load_model(path) == model
    assert [p.name for p in tmp_path.iterdir()] == ["type5.json"]  # no temporary file left


def test_a_failed_write_keeps_the_previous_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "type5.json"
    save_model(_model(), path)
    before = path.read_text(encoding="utf-8")

    def broken(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("bots.liars_dice.opponent_model.json.dumps", broken)
    with pytest.raises(KeyboardInterrupt):
        save_model(OpponentModel(opponent="type5", games=99), path)
    assert path.read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir()] == ["type5.json"]


def test_profile_reads_the_tables_as_the_player_does() -> None:
    profile = _model().profile()
    assert profile["its_openings"] == {"seen": 4, "trust": round(4 / 14, 4), "p_lie": 0.3333}
    two, ten = profile["its_responses"]  # sorted by count as a number, not as text
    assert (two["our_count"], ten["our_count"]) == (2, 10)
    assert two["seen"] == 4 and two["trust"] == round(4 / 14, 4)
    assert two["p_support"] == round((3 + 1) / (4 + 2), 4)
    assert two["p_challenge_supported"] == 0.4  # (1 + 1) / (3 + 2)
    assert two["p_challenge_unsupported"] == 0.6667
    assert two["p_lie_supported"] == 0.5
    assert two["p_lie_unsupported"] == 0.5  # never seen: reads 1/2
    assert profile["our_openings"] == [
        {"count": 2, "seen": 4, "trust": round(4 / 14, 4), "p_challenged": 0.5},
        {"count": 3, "seen": 1, "trust": round(1 / 11, 4), "p_challenged": 0.6667},
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{bad", "is not JSON"),
        ("[1, 2]", "holds one JSON object"),
        ('{"version": 2}', "version 2 is not supported"),
        ('{"version": 1, "opponent": "x"}', "games: Field required"),
    ],
)
def test_a_bad_tables_file_is_named_with_what_is_wrong(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "type5.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError, match=message) as caught:
        load_model(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("challenge", {"2": [1, 1]}, "keys must read A,B"),
        ("challenge", {"\uff12,1": [1, 1]}, "keys must read A,B"),
        ("decisions", {"\u0663": 1}, "keys must read A"),
        ("opening_lie", [1, 2, 3], "opening_lie"),
        ("decisions", {"2": -1}, "greater than or equal to 0"),
        ("extra", 1, "Extra inputs are not permitted"),
    ],
)
def test_malformed_tables_are_refused(field: str, value: object, message: str) -> None:
    data = _model().to_json() | {field: value}
    with pytest.raises(ModelError, match=message):
        OpponentModel.from_json(data)


def test_a_bad_tables_dir_is_refused_when_the_bot_is_built(tmp_path: Path) -> None:
    (tmp_path / "type5.json").write_text("{bad", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"'tables_dir'.*type5\.json is not JSON"):
        make_bot("liars_dice", "bayes", {"tables_dir": str(tmp_path)})
    a_file = tmp_path / "type5.json"
    with pytest.raises(ModelError, match="is not a directory"):
        check_tables_dir(a_file)
    check_tables_dir(tmp_path / "missing")  # made on the first save


def test_gauntlet_refuses_a_bad_tables_dir_before_playing(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "type5.json").write_text('{"version": 1}', encoding="utf-8")
    config = tmp_path / "bayes.toml"
    config.write_text(f'tables_dir = "{tables}"\n', encoding="utf-8")
    result = runner.invoke(
        app, ["liars-dice", "gauntlet", "--bot", "bayes", "--config", str(config), "--games", "1"]
    )
    assert result.exit_code == 2
    assert "malformed liar's dice tables" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_model_command_shows_what_a_game_taught(tmp_path: Path) -> None:
    bot = make_ld_bot("bayes", {"seed": "1", "tables_dir": str(tmp_path)})
    play_duel(
        bot, make_ld_bot("type9"), 40, MatchSeed.from_text("m"), match_id="m", driver="direct"
    )
    assert isinstance(bot.strategy, Bayes)
    learnt = bot.strategy.models["type9"]
    result = runner.invoke(app, ["liars-dice", "model", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    (shown,) = json.loads(result.output)["models"]
    assert shown["file"] == str(tmp_path / "type9.json")
    assert shown["games"] == learnt.games == 40
    assert shown["its_openings"]["seen"] == sum(learnt.opening_lie) == 20  # it opens every other
    assert shown["its_openings"]["p_lie"] == round(learnt.p_opening_lie(), 4)
    text = runner.invoke(app, ["liars-dice", "model", str(tmp_path / "type9.json")])
    assert text.exit_code == 0
    assert "type9: 40 games learnt" in text.output


@pytest.mark.parametrize(
    ("name", "message"), [("missing.json", "does not exist"), (".", "holds no tables")]
)
def test_model_command_refusals(tmp_path: Path, name: str, message: str) -> None:
    result = runner.invoke(app, ["liars-dice", "model", str(tmp_path / name)])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_a_reveal_rewrites_only_that_opponents_tables(tmp_path: Path) -> None:
    bot = make_ld_bot("bayes", {"seed": "1", "tables_dir": str(tmp_path)})
    seed = MatchSeed.from_text("only")
    play_duel(bot, make_ld_bot("type5"), 5, seed, match_id="a", driver="direct")
    (tmp_path / "type5.json").unlink()
    play_duel(bot, make_ld_bot("type9"), 5, seed, match_id="b", driver="direct")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["type9.json"]

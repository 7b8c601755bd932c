from __future__ import annotations

import json

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def test_audit_bridge_json() -> None:
    result = runner.invoke(app, ["audit", "bridge", "--deals", "300", "--seed", "cli", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["deals"] == 300 and len(data["patterns"]) == 39
    assert data["tests"][0]["name"] == "hand patterns (all four hands)"


def test_audit_tables_name_the_omitted_row() -> None:
    result = runner.invoke(app, ["audit", "bridge", "--deals", "300", "--seed", "cli"])
    assert result.exit_code == 0, result.output
    assert "omitted" in result.stdout and "6-4-2-1" in result.stdout


def test_audit_mahjong_and_dice() -> None:
    for kind, deals in (("mahjong", "200"), ("dice", "200")):
        result = runner.invoke(app, ["audit", kind, "--deals", deals, "--seed", "x", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["tests"]


def test_planted_dealer_is_labelled_and_caught() -> None:
    args = ["audit", "dice", "--deals", "500", "--seed", "x", "--planted", "mask-modulo", "--json"]
    data = json.loads(runner.invoke(app, args).stdout)
    assert "PLANTED" in data["audit"] and data["tests"][0]["p_value"] < 1e-9


def test_deal_bridge_prints_a_diagram() -> None:
    seed = bytes(range(32)).hex()
    result = runner.invoke(app, ["deal", "bridge", "--seed", seed, "--index", "0"])
    assert result.exit_code == 0, result.output
    assert "┌─── N ───┐" in result.stdout
    assert "N:KT6.852.K652.Q95 J5.AT9763.8.AKJ6 9742.4.JT974.T73 AQ83.KQJ.AQ3.842" in result.stdout


def test_bench_dealing_small() -> None:
    args = ["bench", "dealing", "--deals", "3000", "--scalar-deals", "300", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["deals"] == 3000 and data["scalar_deals"] == 300
    assert data["speedup"] > 0


def test_too_few_deals_is_a_clean_error() -> None:
    result = runner.invoke(app, ["audit", "bridge", "--deals", "10"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: --deals must be at least 260, got 10"

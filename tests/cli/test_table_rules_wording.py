"""docs/RULES.md says what `arena match liars-dice --bots a,b,c` does with the ruleset: without
--rules the default rules are played for that many players; only a ruleset given with --rules
must be for that many. It used to say every table needs a ruleset of its size."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()
RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"
THREE_BOTS = ["match", "liars-dice", "--bots", "random-guess,probability,bayes", "--games", "6"]


def _table_bullet() -> str:
    text = RULES_MD.read_text(encoding="utf-8")
    found = re.search(
        r"^- \*\*Table\*\* \(`arena match liars-dice --bots.*?(?=^- |\Z)", text, re.M | re.S
    )
    assert found, "RULES.md has no **Table** bullet for `arena match liars-dice --bots`"
    return " ".join(found.group(0).split())


def test_rules_md_says_what_a_table_does_with_the_ruleset() -> None:
    bullet = _table_bullet()
    assert "without `--rules` the default rules" in bullet
    assert "`players` set to the number of bots" in bullet
    adapted = runner.invoke(app, [*THREE_BOTS, "--seed", "1", "--json"])
    assert adapted.exit_code == 0, adapted.output
    assert "a ruleset given with `--rules` must have that many `players`" in bullet
    given = runner.invoke(app, [*THREE_BOTS, "--seed", "1", "--rules", "liars_dice"])
    assert given.exit_code == 2
    assert "the ruleset has players = 2 but --bots names 3" in given.output

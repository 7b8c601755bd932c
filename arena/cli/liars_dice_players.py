"""``arena liars-dice personalities`` and ``model``: the players the experiments are about — the
32 test personalities and what the Bayesian player learnt."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.cli.common import fail, print_json
from arena.cli.liars_dice import ld_app, out
from bots.liars_dice import GROUPS, PERSONALITIES, ModelError, group_members, load_model

PERSONALITIES_HELP = (
    "List the 32 test personalities and their traits, and the four groups (honest or liar, "
    "preferring to challenge or to bid) that the gauntlet also gives its results by."
)


@ld_app.command("personalities", help=PERSONALITIES_HELP)
def personalities(
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    if json_output:
        print_json(
            {
                "personalities": [
                    {"name": name, "traits": traits.to_json()}
                    for name, traits in PERSONALITIES.items()
                ],
                "groups": [
                    {"group": group, "opponents": members}
                    for group, members in group_members(PERSONALITIES).items()
                ],
            }
        )
        return
    for name, traits in PERSONALITIES.items():
        out.print(f"{name:>7}  {traits.describe()}", markup=False)
    members = group_members(PERSONALITIES)
    out.print("groups:", markup=False)
    for group in GROUPS:
        out.print(f"  {group}: {', '.join(members[group])}", markup=False)


MODEL_HELP = (
    "Show what the Bayesian player learnt about an opponent (seed 002 §4.3; the seed's 'show "
    "profile', 圖 5.5): the tables it saved with the bot option tables_dir. PATH is one "
    "<opponent>.json file or a directory of them. Probabilities are read as the player reads "
    "them (smoothed, an unseen situation reads 1/2); trust is n/(n+10), the chance that the "
    "player uses the network in that situation."
)

MODEL_FILES = (
    "arena liars-dice model reads the tables files (<opponent>.json) that the bayes option "
    "tables_dir writes"
)


@ld_app.command("model", help=MODEL_HELP)
def model_command(
    path: Path = typer.Argument(..., help="a tables file, or a directory of them", readable=False),
    json_output: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    try:
        found = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        fail(f"{path} does not exist")
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    files = [path]
    if stat.S_ISDIR(found.st_mode):
        try:
            # Listed here, not by glob, which takes a directory it may not read for an empty one.
            files = sorted(file for file in path.iterdir() if file.name.endswith(".json"))
        except OSError as exc:
            fail(f"cannot read the directory {path}: {exc.strerror or exc}")
        if not files:
            fail(f"{path} holds no tables (*.json); the bayes option tables_dir writes them")
    try:
        profiles = [load_model(file).profile() | {"file": str(file)} for file in files]
    except ModelError as exc:
        # A config, or some other JSON, given by mistake: say what the command reads.
        fail(f"{exc}; {MODEL_FILES}")
    if json_output:
        print_json({"models": profiles})
        return
    for profile in profiles:
        show_profile(profile)


def show_profile(
    profile: dict[str, Any], out: Console = out, *, learner: str | None = None
) -> None:
    """One opponent's learnt tables, as the Bayesian player reads them (圖 5.5). Worded from the
    player's side ("its answers to our bid"), or, given ``learner`` (the bot's name), to the
    person it learnt them of (`arena liars-dice play`: "your answers to bayes's bid")."""
    openings = profile["its_openings"]
    words = _PERSON_WORDS if learner is not None else _PLAYER_WORDS
    bot = escape(learner or "")
    # The opponent's name (a person's --name) and the path are text, not markup.
    out.print(
        f"[bold]{escape(profile['opponent'])}[/]: {profile['games']} games learnt "
        f"({escape(profile['file'])})\n"
        + words["openings"].format(bot=bot)
        + f": {openings['seen']} seen, trust {openings['trust']:.2f}, "
        f"lie {openings['p_lie']:.0%} " + words["opening_lie"].format(bot=bot)
    )
    out.print(words["responses"].format(bot=bot))
    responses = Table(box=box.SIMPLE)
    for column in ("A", "seen", "trust", "supports", "challenges s/u", "lies s/u"):
        responses.add_column(column, justify="right")
    for row in profile["its_responses"]:
        responses.add_row(
            str(row["our_count"]),
            str(row["seen"]),
            f"{row['trust']:.2f}",
            f"{row['p_support']:.0%}",
            f"{row['p_challenge_supported']:.0%} / {row['p_challenge_unsupported']:.0%}",
            f"{row['p_lie_supported']:.0%} / {row['p_lie_unsupported']:.0%}",
        )
    out.print(responses)
    out.print(words["our_openings"].format(bot=bot))
    ours = Table(box=box.SIMPLE)
    for column in ("count", "seen", "trust", "challenged"):
        ours.add_column(column, justify="right")
    for row in profile["our_openings"]:
        ours.add_row(
            str(row["count"]), str(row["seen"]), f"{row['trust']:.2f}", f"{row['p_challenged']:.0%}"
        )
    out.print(ours)
    out.print(words["legend"].format(bot=bot) + "\n")


_PLAYER_WORDS = {
    "openings": "its openings",
    "opening_lie": "(count − its dice of the face > 1)",
    "responses": "its answers to our bid of count A (圖 4.9):",
    "our_openings": "our openings, challenged at once (圖 4.10b):",
    "legend": "supports: our count − its dice of our face < 3; lies: its count − its dice > 1\n"
    "s/u: when its dice support our face / when they do not",
}
_PERSON_WORDS = {
    "openings": "your openings",
    "opening_lie": "(count − your dice of the face > 1)",
    "responses": "your answers to {bot}'s bid of count A (圖 4.9):",
    "our_openings": "{bot}'s openings, challenged by you at once (圖 4.10b):",
    "legend": "supports: {bot}'s count − your dice of its face < 3\n"
    "lies: your count − your dice of the face > 1\n"
    "s/u: when your dice support {bot}'s face / when they do not",
}

"""A league begun in-process and resumed on a server (``--server``) has matches played by
connected bots: its stored config must say so, or it would lend those matches to a league
in-process (`arena.leagues.reuse`) and let a later league on a server reuse its seed."""

from __future__ import annotations

from pathlib import Path

from test_league_tuner_findings import EXTRA_BOT, LEAGUES, load

from arena.leagues.runner import open_league, run_league
from arena.store import ResultStore

SERVER = "ws://127.0.0.1:1"


def _resumed_on_a_server(store: ResultStore, text_path: Path) -> None:
    """What `run_league` stores when the same league is run again with ``--server``."""
    config = load(text_path, LEAGUES["liars-dice"])
    stored = open_league(config, store)
    store.open_league(
        config.name,
        config.game,
        config.league_seed,
        config.fingerprint(),
        {**stored.config, "server": SERVER},
        aliases=config.fingerprint_aliases(),
    )


def test_the_stored_config_of_a_league_resumed_on_a_server_names_the_server(
    tmp_path: Path,
) -> None:
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(load(tmp_path, LEAGUES["liars-dice"]), store)
        _resumed_on_a_server(store, tmp_path)
        (league,) = store.leagues()
    assert league.config["server"] == SERVER
    assert league.config["contents"], "the rest of the stored config is kept"


def test_it_lends_no_match_to_a_league_in_process(tmp_path: Path) -> None:
    more = load(tmp_path, LEAGUES["liars-dice"] + EXTRA_BOT["liars-dice"], "more.toml")
    with ResultStore(tmp_path / "control.sqlite") as store:
        run_league(load(tmp_path, LEAGUES["liars-dice"]), store)
        assert run_league(more, store).reused, "in-process, the shared matches are reused"
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_league(load(tmp_path, LEAGUES["liars-dice"]), store)
        _resumed_on_a_server(store, tmp_path)
        assert run_league(more, store).reused == []

"""`arena bench network`: what a mutation audit found untested. Which runs `run_all` plays and
for which broker, the baseline the ratios are taken against, the bots' options file, the
progress lines, the tables that count as finished, each run's figures and the report's targets
at their bounds. The network runs are replaced by made-up ones (their own tests play them, in
test_net_bench.py); nothing is timed."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.bench import network
from arena.bench.network import Run, percentiles, run_all, run_tables
from arena.bench.network_report import NETWORK_RUNS, judge, render_rows, render_targets
from arena.matches.mahjong import MatchSpec

RESULT = {"players": [{"score": 1}], "decisions": 10, "hands": 4}


class FakeRuns:
    """Every run of `run_all` made up: the in-process ones take ``in_process`` seconds in turn,
    each network run 3 s; what each was asked to play is kept in ``played``."""

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        in_process: Sequence[float] = (2.0, 1.0),
        mosquitto_url: str | None = "mqtt://127.0.0.1:1883",
    ) -> None:
        self.played: list[tuple[str, str | None, str | None]] = []
        self.options: list[dict[str, Any]] = []
        self.configs: list[Path | None] = []
        self.tables: list[tuple[Any, ...]] = []
        walls: Iterator[float] = itertools.cycle(in_process)

        async def inprocess(spec: MatchSpec, options: dict[str, Any]) -> Run:
            self.options.append(options)
            return Run("in-process", next(walls), dict(RESULT))

        async def network_run(
            spec: MatchSpec, mqtt: str | None, label: str, config: Path | None = None
        ) -> Run:
            text = None if config is None else config.read_text(encoding="utf-8")
            self.played.append((label, mqtt, text))
            self.configs.append(config)
            return Run(label, 3.0, dict(RESULT), [1.0, 2.0])

        @asynccontextmanager
        async def mosquitto() -> AsyncIterator[str | None]:
            yield mosquitto_url

        async def tables(*args: Any) -> dict[str, Any]:
            self.tables.append(args)
            rtt = {"n": 2, "p50": 1.0, "p90": 2.0, "p99": 2.0, "max": 2.0}
            finished = {"connections": 4 * args[1], "finished": args[1], "wall_s": 1.0}
            return {"tables": args[1], "hands_each": args[2], **finished, "rtt_ms": rtt}

        monkeypatch.setattr(network, "run_inprocess", inprocess)
        monkeypatch.setattr(network, "run_two_hops", network_run)
        monkeypatch.setattr(network, "run_one_hop", network_run)
        monkeypatch.setattr(network, "mosquitto", mosquitto)
        monkeypatch.setattr(network, "_mosquitto_version", lambda: "2.0.18")
        monkeypatch.setattr(network, "run_tables", tables)


async def _run_all(**changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "games": 4,
        "strategy": "greedy",
        "seed": "s",
        "tables": 0,
        "table_hands": 1,
        "with_mqtt": True,
    }
    args.update(changes)
    return await run_all(**args)


async def test_every_ratio_is_to_the_faster_of_the_two_baselines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    FakeRuns(monkeypatch, in_process=(2.0, 1.5))
    report = await _run_all(with_mqtt=False)
    assert report["in-process"]["runs_s"] == [2.0, 1.5]
    assert report["in-process"]["wall_s"] == 1.5
    assert report["websocket"]["ratio"] == 2.0  # 3 s against 1.5 s
    FakeRuns(monkeypatch, in_process=(1.2, 2.0))
    report = await _run_all(with_mqtt=False)
    assert report["in-process"]["wall_s"] == 1.2 and report["websocket"]["ratio"] == 2.5


async def test_both_brokers_play_every_mqtt_row_each_through_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = FakeRuns(monkeypatch)
    report = await _run_all(mqtt_broker="both")
    assert [label for label, _, _ in runs.played] == list(NETWORK_RUNS)
    brokers = {label: mqtt for label, mqtt, _ in runs.played}
    assert brokers["websocket"] is None and brokers["websocket-in-server"] is None
    assert brokers["mqtt"] == brokers["mqtt-in-server"] == "mqtt://127.0.0.1:1883"
    for label in ("mqtt-embedded", "mqtt-embedded-in-server"):
        url = brokers[label]  # a fresh port of the embedded broker, not Mosquitto's
        assert url is not None and url.startswith("mqtt://127.0.0.1:")
        assert url != "mqtt://127.0.0.1:1883"
    assert all(label in report for label in NETWORK_RUNS)
    assert report["mqtt_broker"] == "Mosquitto 2.0.18"
    assert report["mqtt_embedded_broker"].startswith("amqtt ")


async def test_mosquitto_alone_leaves_the_embedded_rows_unplayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = FakeRuns(monkeypatch)
    report = await _run_all(mqtt_broker="mosquitto")
    assert [label for label, _, _ in runs.played] == list(NETWORK_RUNS[:4])
    assert report["mqtt_broker"] == "Mosquitto 2.0.18"
    assert report["mqtt_embedded_broker"] == "not run (--mqtt-broker mosquitto)"


async def test_without_the_mosquitto_binary_the_mqtt_rows_are_skipped_and_said_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = FakeRuns(monkeypatch, mosquitto_url=None)
    report = await _run_all(mqtt_broker="mosquitto")
    assert [label for label, _, _ in runs.played] == ["websocket", "websocket-in-server"]
    assert report["mqtt_broker"] == "skipped: the mosquitto binary is missing"
    verdicts = {t["quantity"].split(",")[0]: t["met"] for t in report["targets"]}
    assert verdicts["MQTT through Mosquitto"] is None


async def test_thinking_bots_get_their_options_file_and_it_is_removed_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = FakeRuns(monkeypatch)
    await _run_all(with_mqtt=False, think_ms=2.5)
    assert runs.options == [{"think_ms": 2.5}, {"think_ms": 2.5}]
    assert [text for _, _, text in runs.played] == ["think_ms = 2.5\n"] * 2
    assert all(config is not None and not config.exists() for config in runs.configs)


async def test_the_options_file_is_removed_when_a_run_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = FakeRuns(monkeypatch)
    seen: list[Path | None] = []

    async def broken(spec: MatchSpec, mqtt: str | None, label: str, config: Path | None) -> Run:
        seen.append(config)
        raise RuntimeError("the server did not start")

    monkeypatch.setattr(network, "run_two_hops", broken)
    with pytest.raises(RuntimeError, match="did not start"):
        await _run_all(with_mqtt=False, think_ms=1.0)
    assert runs.options == [{"think_ms": 1.0}]
    (config,) = seen
    assert config is not None and not config.exists()


async def test_the_tables_are_played_only_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = FakeRuns(monkeypatch)
    report = await _run_all(with_mqtt=False, tables=0)
    assert runs.tables == [] and "tables" not in report
    report = await _run_all(with_mqtt=False, tables=3, table_hands=2, seed="t")
    assert runs.tables == [("greedy", 3, 2, "t")]
    assert report["tables"]["tables"] == 3


async def test_each_run_is_announced_as_it_starts_and_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeRuns(monkeypatch, in_process=(2.0, 1.25))
    said: list[str] = []
    await _run_all(with_mqtt=False, tables=2, say=said.append)
    assert said == [
        "in-process: 4 hands …",
        "in-process: 2.00 s",
        "websocket: 4 hands …",
        "websocket: 3.00 s",
        "websocket-in-server: 4 hands …",
        "websocket-in-server: 3.00 s",
        "in-process again: 4 hands …",
        "in-process again: 1.25 s",
        "2 tables × 1 hands at once …",
    ]


async def test_a_table_that_stops_short_of_its_hands_is_not_finished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @asynccontextmanager
    async def server(mqtt: str | None) -> AsyncIterator[str]:
        yield "ws://127.0.0.1:1"

    @asynccontextmanager
    async def bots(url: str, strategy: str, prefix: str, count: int, copies: int) -> Any:
        yield [f"{prefix}{k}-{i}" for k in range(count) for i in range(copies)]

    @asynccontextmanager
    async def seats(url: str, members: list[str], **_: Any) -> AsyncIterator[list[Any]]:
        yield [object()] * len(members)

    async def play(spec: MatchSpec, **_: Any) -> Any:
        short = spec.seed.endswith("/table1")  # this table's match ends a hand early
        return SimpleNamespace(hands=spec.games - 1 if short else spec.games)

    async def ready(url: str, names: Sequence[str]) -> None:
        return None

    monkeypatch.setattr(network, "server_process", server)
    monkeypatch.setattr(network, "bot_processes", bots)
    monkeypatch.setattr(network, "_wait_for_bots", ready)
    monkeypatch.setattr(network, "remote_seats", seats)
    monkeypatch.setattr(network, "play_match", play)
    summary = await run_tables("greedy", 3, 2, "s")
    assert (summary["tables"], summary["finished"], summary["connections"]) == (3, 2, 12)


# -- each run's figures -------------------------------------------------------------------------


def test_the_percentiles_are_numpys() -> None:
    samples = [float(k) for k in range(100, 0, -1)]  # 100 … 1, unsorted
    # numpy.percentile's default: linear between the order statistics (the median of 1 … 100
    # is 50.5, where the sample at rank ⌊q·n⌋ gave 51).
    assert percentiles(samples) == {"n": 100, "p50": 50.5, "p90": 90.1, "p99": 99.01, "max": 100.0}
    assert percentiles([]) == {}


def test_a_run_compares_its_whole_result_and_its_time_with_the_baseline() -> None:
    baseline = Run("in-process", 2.0, dict(RESULT))
    assert baseline.to_json(None) == {"wall_s": 2.0, "decisions": 10}  # no round trips
    same = Run("websocket", 3.0, dict(RESULT), [1.0]).to_json(baseline)
    assert (same["ratio"], same["same_result"], same["rtt_ms"]["n"]) == (1.5, True, 1)
    scores = dict(RESULT, players=[{"score": 2}])  # the same decisions, other scores
    assert Run("mqtt", 1.0, scores).to_json(baseline)["same_result"] is False


# -- the targets and the lines ------------------------------------------------------------------


def _report(**changes: Any) -> dict[str, Any]:
    def run(ratio: float) -> dict[str, Any]:
        return {"wall_s": ratio, "ratio": ratio, "same_result": True, "rtt_ms": {"p50": 1.0}}

    report: dict[str, Any] = {
        "in-process": {"wall_s": 1.0, "runs_s": [1.0, 1.1]},
        "websocket": run(1.5),
        "websocket-in-server": run(1.2),
        "mqtt": run(2.0),
        "mqtt-in-server": run(1.5),
        "mqtt_broker": "Mosquitto 2",
        "mqtt_embedded_broker": "not run (--mqtt-broker mosquitto)",
        "tables": {
            "tables": 16,
            "hands_each": 8,
            "connections": 64,
            "finished": 16,
            "wall_s": 3.0,
            "rtt_ms": {"p50": 5.0, "p99": 20.0, "max": 30.0},
        },
    }
    report.update(changes)
    report["targets"] = judge(report)
    return report


def test_figures_exactly_at_their_bounds_meet_them() -> None:
    assert [t["met"] for t in _report()["targets"]] == [True, True, None, True, True]


def test_tables_with_no_round_trip_at_all_miss_the_p99_target() -> None:
    tables = dict(_report()["tables"], rtt_ms={})
    p99 = _report(tables=tables)["targets"][3]
    assert (p99["measured"], p99["met"]) == (None, False)
    assert p99["quantity"] == "16 tables at once: round trip p99, ms"
    assert render_targets([p99])[0].endswith("(<= 20): MISSED")


def test_the_rows_show_the_baselines_every_run_played_and_the_tables() -> None:
    embedded_only = _report(
        **{
            "mqtt-embedded": {"wall_s": 4.0, "ratio": 4.0, "same_result": True, "rtt_ms": {}},
            "tables": dict(_report()["tables"], finished=15),
        }
    )
    del embedded_only["mqtt"], embedded_only["mqtt-in-server"]
    lines = render_rows(embedded_only)
    assert lines[0].endswith("1.00 s  (the faster of 1.00, 1.10 s)")
    assert [line.split()[0] for line in lines[1:4]] == [
        "websocket",
        "websocket-in-server",
        "mqtt-embedded",
    ]
    (tables,) = [line for line in lines if "connections" in line]
    assert tables.startswith("  16 tables × 8 hands, 64 connections: 15 finished in 3.00 s")

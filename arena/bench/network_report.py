"""``arena bench network``'s targets and its human report: the runs' ratios and the tables' round
trip judged against DESIGN §6 (`judge`), what makes a run wrong rather than slow (`failures`),
and the lines the command prints (`render_rows`, `render_targets`)."""

from __future__ import annotations

from typing import Any

NETWORK_RUNS = (
    "websocket",
    "websocket-in-server",
    "mqtt",
    "mqtt-in-server",
    "mqtt-embedded",
    "mqtt-embedded-in-server",
)
"""Every network run's label, in the order they are played and shown: ``mqtt…`` through a
Mosquitto broker, ``mqtt-embedded…`` through the server's embedded (amqtt) broker."""
TARGETS = {"websocket_ratio": 1.5, "mqtt_ratio": 2.0, "tables_rtt_p99_ms": 20.0}
"""DESIGN §6's bounds: wall-time ratios to in-process over two hops (what ``arena match …
--server`` does), and the round trip's p99 with many tables at once."""


def _target(
    quantity: str, comparison: str, bound: float | None, measured: Any, met: bool | None
) -> dict[str, Any]:
    return {
        "quantity": quantity,
        "comparison": comparison,
        "bound": bound,
        "measured": measured,
        "met": met,
    }


def _ratio_target(report: dict[str, Any], label: str, what: str, bound: float) -> dict[str, Any]:
    run = report.get(label)
    ratio = None if run is None else run["ratio"]
    # Not run (no broker, --no-mqtt, another --mqtt-broker) is not judged rather than missed:
    # nothing was measured.
    met = None if ratio is None else ratio <= bound
    return _target(f"{what}, two hops: wall ratio to in-process", "<=", bound, ratio, met)


def judge(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The network targets, each met, missed or ``None`` (not judged: that run was skipped).

    The design's "over MQTT ≤ 2×" is judged on the Mosquitto runs; the embedded broker's runs
    are held to the same bound as a target of their own, so that a miss there shows as one."""
    mqtt = TARGETS["mqtt_ratio"]
    targets = [
        _ratio_target(report, "websocket", "websocket", TARGETS["websocket_ratio"]),
        _ratio_target(report, "mqtt", "MQTT through Mosquitto", mqtt),
        _ratio_target(report, "mqtt-embedded", "MQTT through the embedded broker", mqtt),
    ]
    tables = report.get("tables")
    p99 = None if tables is None else tables["rtt_ms"].get("p99")
    bound = TARGETS["tables_rtt_p99_ms"]
    # A p99 over no samples at all (nothing played) cannot show the target met.
    met = None if tables is None else p99 is not None and p99 <= bound
    what = "tables at once" if tables is None else f"{tables['tables']} tables at once"
    targets.append(_target(f"{what}: round trip p99, ms", "<=", bound, p99, met))
    finished = None if tables is None else f"{tables['finished']}/{tables['tables']}"
    done = None if tables is None else tables["finished"] == tables["tables"]
    targets.append(_target(f"{what}: tables finished", "all", None, finished, done))
    return targets


def failures(report: dict[str, Any]) -> list[str]:
    """What makes the run wrong rather than slow: a network run whose games differ from the
    in-process ones, or a table of the concurrency run that did not finish."""
    wrong = [
        f"the {label} run does not give the in-process result"
        for label in NETWORK_RUNS
        if label in report and not report[label]["same_result"]
    ]
    tables = report.get("tables")
    if tables is not None and tables["finished"] != tables["tables"]:
        wrong.append(f"only {tables['finished']} of {tables['tables']} tables finished")
    return wrong


def render_targets(targets: list[dict[str, Any]]) -> list[str]:
    """One line per target: what, measured, bound, met / MISSED / not judged."""
    lines = []
    for t in targets:
        verdict = "not judged" if t["met"] is None else "met" if t["met"] else "MISSED"
        measured = "not run" if t["measured"] is None else t["measured"]
        bound = "" if t["bound"] is None else f" {t['bound']:g}"
        lines.append(f"  target: {t['quantity']} {measured} ({t['comparison']}{bound}): {verdict}")
    return lines


def render_rows(report: dict[str, Any]) -> list[str]:
    """The report's lines under the command's heading: one per run, the brokers, the tables at
    once and the targets."""
    base = report["in-process"]["wall_s"]
    runs_s = ", ".join(f"{wall:.2f}" for wall in report["in-process"]["runs_s"])
    lines = [f"  {'in-process':<24} {base:8.2f} s  (the faster of {runs_s} s)"]
    for label in NETWORK_RUNS:
        if label not in report:
            continue
        run = report[label]
        rtt = run.get("rtt_ms", {})
        lines.append(
            f"  {label:<24} {run['wall_s']:8.2f} s  ×{run['ratio']:.2f}  same result: "
            f"{run['same_result']}  round trip p50 {rtt.get('p50')} p99 {rtt.get('p99')} ms"
        )
    lines.append(f"  mqtt broker: {report['mqtt_broker']}")
    if "mqtt_embedded_broker" in report:
        lines.append(f"  embedded mqtt broker: {report['mqtt_embedded_broker']}")
    if "tables" in report:
        t = report["tables"]
        rtt = t["rtt_ms"]
        lines.append(
            f"  {t['tables']} tables × {t['hands_each']} hands, {t['connections']} connections: "
            f"{t['finished']} finished in {t['wall_s']:.2f} s; round trip p50 {rtt.get('p50')} "
            f"p99 {rtt.get('p99')} max {rtt.get('max')} ms"
        )
    return lines + render_targets(report["targets"])

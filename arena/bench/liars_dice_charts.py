"""The seed's win-trend charts (seed 002 圖 5.3): cumulative wins against games played, between
the slope-1/2 and slope-1 guide lines, drawn with matplotlib from a gauntlet. Given a baseline's
gauntlet on the same seed, each chart also draws the baseline's wins, as the seed's 圖 5.9–5.11
compare the player before and after the Bayesian network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.bench.liars_dice import Gain, Gauntlet
from arena.matches.liars_dice_series import Duel


def _cumulative(duel: Duel) -> list[int]:
    wins = 0
    ys = []
    for outcome in duel.outcomes:
        wins += outcome
        ys.append(wins)
    return ys


def plot_trends(
    gauntlet: Gauntlet, directory: Path, baseline: Gauntlet | None = None
) -> list[Path]:
    """Cumulative wins against games played, between the slope-1/2 and slope-1 guide lines: one
    PNG per opponent and one grid of them all; with ``baseline`` (the same seed, games and
    opponents) its wins are drawn beside them."""
    if baseline is not None:
        Gain(gauntlet, baseline)  # refuses gauntlets that do not pair up
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    written = []

    def draw(ax: Any, k: int, small: bool) -> None:
        duel = gauntlet.duels[k]
        xs = list(range(1, duel.games + 1))
        ax.plot([0, duel.games], [0, duel.games], color="0.6", lw=0.8, ls="--", label="slope 1")
        ax.plot(
            [0, duel.games], [0, duel.games / 2], color="0.6", lw=0.8, ls=":", label="slope 1/2"
        )
        title = f"vs {duel.opponent}: {duel.win_rate:.1%}"
        if baseline is not None:
            base = baseline.duels[k]
            ax.plot(xs, _cumulative(base), color="tab:orange", lw=1.0, label=f"{baseline.bot} wins")
            rate = f"{base.win_rate:.1%}"
            title += f" / {rate}" if small else f" ({baseline.bot} {rate})"
        ax.plot(xs, _cumulative(duel), color="tab:blue", lw=1.2, label=f"{gauntlet.bot} wins")
        ax.set_title(title, fontsize=8 if small else 10)
        ax.set_xlim(0, duel.games)
        ax.set_ylim(0, duel.games)
        if not small:
            ax.set_xlabel("games played")
            ax.set_ylabel("cumulative wins")
            ax.legend(loc="upper left", fontsize=8)
        else:
            ax.tick_params(labelsize=6)

    safe_bot = gauntlet.bot.replace("/", "_")
    for k, duel in enumerate(gauntlet.duels):
        fig, ax = plt.subplots(figsize=(4.5, 4.0), dpi=100)
        draw(ax, k, small=False)
        fig.tight_layout()
        path = directory / f"{safe_bot}-vs-{duel.opponent}.png"
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    columns = min(8, len(gauntlet.duels))
    rows = (len(gauntlet.duels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(2.2 * columns, 2.2 * rows), dpi=100)
    flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
    for k, ax in enumerate(flat[: len(gauntlet.duels)]):
        draw(ax, k, small=True)
    for ax in flat[len(gauntlet.duels) :]:
        ax.set_visible(False)
    beside = "" if baseline is None else f" ({baseline.bot} {baseline.mean:.1%})"
    fig.suptitle(
        f"{gauntlet.bot}: {gauntlet.games} games per personality, mean {gauntlet.mean:.1%}"
        f"{beside} (seed {gauntlet.seed})"
    )
    fig.tight_layout()
    path = directory / f"{safe_bot}-gauntlet.png"
    fig.savefig(path)
    plt.close(fig)
    written.append(path)
    return written

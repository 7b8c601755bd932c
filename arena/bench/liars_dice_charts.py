"""The seed's win-trend charts (seed 002 圖 5.3): cumulative wins against games played, between
the slope-1/2 and slope-1 guide lines, drawn with matplotlib from a gauntlet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.bench.liars_dice import Duel, Gauntlet


def plot_trends(gauntlet: Gauntlet, directory: Path) -> list[Path]:
    """Cumulative wins against games played, between the slope-1/2 and slope-1 guide lines: one
    PNG per opponent and one grid of them all."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    written = []

    def draw(ax: Any, duel: Duel, small: bool) -> None:
        xs = range(1, duel.games + 1)
        wins = 0
        ys = []
        for outcome in duel.outcomes:
            wins += outcome
            ys.append(wins)
        ax.plot([0, duel.games], [0, duel.games], color="0.6", lw=0.8, ls="--", label="slope 1")
        ax.plot(
            [0, duel.games], [0, duel.games / 2], color="0.6", lw=0.8, ls=":", label="slope 1/2"
        )
        ax.plot(list(xs), ys, color="tab:blue", lw=1.2, label=f"{gauntlet.bot} wins")
        ax.set_title(f"vs {duel.opponent}: {duel.win_rate:.1%}", fontsize=8 if small else 11)
        ax.set_xlim(0, duel.games)
        ax.set_ylim(0, duel.games)
        if not small:
            ax.set_xlabel("games played")
            ax.set_ylabel("cumulative wins")
            ax.legend(loc="upper left", fontsize=8)
        else:
            ax.tick_params(labelsize=6)

    safe_bot = gauntlet.bot.replace("/", "_")
    for duel in gauntlet.duels:
        fig, ax = plt.subplots(figsize=(4.5, 4.0), dpi=100)
        draw(ax, duel, small=False)
        fig.tight_layout()
        path = directory / f"{safe_bot}-vs-{duel.opponent}.png"
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    columns = 8
    rows = (len(gauntlet.duels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(2.2 * columns, 2.2 * rows), dpi=100)
    flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
    for ax, duel in zip(flat, gauntlet.duels, strict=False):
        draw(ax, duel, small=True)
    for ax in flat[len(gauntlet.duels) :]:
        ax.set_visible(False)
    fig.suptitle(
        f"{gauntlet.bot}: {gauntlet.games} games per personality, mean {gauntlet.mean:.1%} "
        f"(seed {gauntlet.seed})"
    )
    fig.tight_layout()
    path = directory / f"{safe_bot}-gauntlet.png"
    fig.savefig(path)
    plt.close(fig)
    written.append(path)
    return written

"""The build steps pyproject.toml cannot state without an experimental table: the optional C
versions of the one-hand mahjong checks (arena/games/mahjong/_speedups.c), and the named rulesets
in a built wheel. ``optional``: with no C compiler the install still succeeds, and the same
checks run in Python, only slower."""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

RULESETS_IN_CHECKOUT = Path("configs", "rulesets")
# Where arena.games.rulesets looks first; kept out of the source tree (.gitignore).
RULESETS_IN_WHEEL = Path("arena", "games", "bundled_rulesets")


class BuildPyWithRulesets(build_py):
    """configs/ is not a package, so a wheel would carry no rulesets and every command that
    names one (the mahjong default, ``competition``, among them) would fail after a plain
    ``pip install``: copy them in beside the code. An editable install reads the checkout's."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib, RULESETS_IN_WHEEL)
        self.mkpath(str(target))
        for source in sorted(RULESETS_IN_CHECKOUT.glob("*.toml")):
            self.copy_file(str(source), str(target / source.name))


setup(
    cmdclass={"build_py": BuildPyWithRulesets},
    ext_modules=[
        Extension(
            "arena.games.mahjong._speedups",
            sources=["arena/games/mahjong/_speedups.c"],
            optional=True,
        )
    ],
)

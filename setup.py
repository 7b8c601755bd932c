"""The one build step pyproject.toml cannot state without an experimental table: the optional
C versions of the one-hand mahjong checks (arena/games/mahjong/_speedups.c). ``optional``: with
no C compiler the install still succeeds, and the same checks run in Python, only slower."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "arena.games.mahjong._speedups",
            sources=["arena/games/mahjong/_speedups.c"],
            optional=True,
        )
    ]
)

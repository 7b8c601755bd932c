"""Ruleset files shared by every game: ``configs/rulesets/NAME.toml`` with a ``game`` key,
optional ``title``/``description``, the rules under ``[rules]`` and the match's time controls
under an optional ``[time]`` (read by `arena.referee.TimeControl.from_ruleset`); plus the value
checks every game's rules use, so each error names the key at fault."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Final

from arena.games.errors import RulesetError
from arena.text_files import NotUTF8Error, read_text_file

BUNDLED_RULESET_DIR: Final = Path(__file__).resolve().parent / "bundled_rulesets"
CHECKOUT_RULESET_DIR: Final = Path(__file__).resolve().parents[2] / "configs" / "rulesets"


def installed_ruleset_dir(bundled: Path, checkout: Path) -> Path:
    """A built wheel carries its own copy of the rulesets (setup.py puts it there: configs/ is
    no package), and looks no further: beside site-packages a ``configs`` directory would be
    somebody else's. A checkout, editable install included, has no copy and reads
    configs/rulesets, where the files are edited."""
    return bundled if bundled.is_dir() else checkout


RULESET_DIR: Final = installed_ruleset_dir(BUNDLED_RULESET_DIR, CHECKOUT_RULESET_DIR)
META_KEYS: Final = frozenset({"game", "title", "description"})
TIME_KEY: Final = "time"


def check_int(key: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesetError(f"rule {key!r} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise RulesetError(f"rule {key!r} must be between {low} and {high}, got {value}")


def check_bool(key: str, value: object) -> None:
    if not isinstance(value, bool):
        raise RulesetError(f"rule {key!r} must be true or false, got {value!r}")


def list_rulesets(game: str) -> list[str]:
    """Names of the rulesets of ``game`` in ``configs/rulesets/``."""
    if not RULESET_DIR.is_dir():
        return []
    names = []
    for path in sorted(RULESET_DIR.glob("*.toml")):
        try:
            data = tomllib.loads(read_text_file(path))
        except (OSError, NotUTF8Error, tomllib.TOMLDecodeError):
            # One broken file must not hide the others (nor crash the error that lists them).
            continue
        if data.get("game") == game:
            names.append(path.stem)
    return names


def ruleset_path(game: str, name: str | Path) -> Path:
    """A ruleset file: a path to a ``.toml`` file, or the name of one in ``configs/rulesets/``."""
    path = Path(name)
    if path.suffix == ".toml" or path.parent != Path("."):
        if not path.is_file():
            raise RulesetError(f"no ruleset file {path}")
        return path
    if not RULESET_DIR.is_dir():
        raise RulesetError(
            f"no ruleset directory {RULESET_DIR}: this installation lost its named rulesets "
            "(reinstall the package), or pass a ruleset file path"
        )
    candidate = RULESET_DIR / f"{name}.toml"
    if not candidate.is_file():
        known = ", ".join(list_rulesets(game)) or "none"
        raise RulesetError(f"no {game} ruleset named {str(name)!r}; known: {known}")
    return candidate


def _ruleset_data(
    game: str, name: str | Path, game_key_required: bool
) -> tuple[Path, dict[str, Any]]:
    path = ruleset_path(game, name)
    try:
        data = tomllib.loads(read_text_file(path))
    except (OSError, NotUTF8Error) as exc:
        # TOML is UTF-8 by definition: a file saved as Big5 is named, not a traceback.
        raise RulesetError(f"cannot read ruleset {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"{path}: not valid TOML: {exc}") from exc
    if "game" not in data and game_key_required:
        raise RulesetError(f"{path}: missing key 'game' (game = {game!r})")
    found = data.get("game", game)
    if found != game:
        raise RulesetError(f"{path}: key 'game' is {found!r}, not {game!r}")
    for key in data:
        if key not in ("rules", TIME_KEY) and key not in META_KEYS:
            raise RulesetError(
                f"{path}: unknown key {key!r}; put rules under [rules], time controls under [time]"
            )
    for key in ("rules", TIME_KEY):
        if not isinstance(data.get(key, {}), dict):
            raise RulesetError(f"{path}: key {key!r} must be a table")
    return path, data


def rules_table(game: str, name: str | Path, *, game_key_required: bool = True) -> dict[str, Any]:
    """The ``[rules]`` table of a ruleset file of ``game``, after checking the file's frame.

    Errors name the file and the key: not TOML, another game's file, an unknown top-level key.
    """
    _, data = _ruleset_data(game, name, game_key_required)
    rules: dict[str, Any] = data.get("rules", {})
    return rules


def time_table(
    game: str, name: str | Path, *, game_key_required: bool = True
) -> tuple[Path, dict[str, Any]]:
    """The file and the ``[time]`` table of a ruleset file of ``game`` (empty when absent)."""
    path, data = _ruleset_data(game, name, game_key_required)
    time: dict[str, Any] = data.get(TIME_KEY, {})
    return path, time

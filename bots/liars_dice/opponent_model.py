"""What the Bayesian player (seed 002 §4.3) learns about one opponent, and its file format.

The three networks are kept as raw counts (`OpponentModel`); probabilities are read from them
Laplace-smoothed, so an unseen situation reads 1/2. Tables are saved per opponent as
``<dir>/<opponent>.json`` (a name that would not be the same file name on every system gets a
hashed one, `model_path`; `ModelFile` is the format, checked on every load) and can be read back
as the seed's "show profile" view (圖 5.5) with `profile` (``arena liars-dice model``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from arena.files import probe_writable, replace_file
from arena.games.liars_dice import Bid
from bots.base import BotReportedError

MODEL_VERSION: Literal[1] = 1
TRUST_PRIOR = 10
"""The 10 of the seed's trust threshold n/(n+10)."""

Cells = dict[str, list[int]]


class ModelError(ValueError):
    """A tables file that cannot be used: unreadable, of another version, or malformed."""


def _p(cell: list[int] | None, index: int) -> float:
    """Laplace-smoothed probability of outcome ``index`` (0 or 1) in a two-outcome cell."""
    if cell is None:
        return 0.5
    return (cell[index] + 1) / (cell[0] + cell[1] + 2)


def _bump(cells: Cells, key: str, outcome: bool) -> None:
    cells.setdefault(key, [0, 0])[int(outcome)] += 1


def _trust(n: int) -> float:
    return n / (n + TRUST_PRIOR)


@dataclass
class OpponentModel:
    """The learnt tables of the three networks against one opponent (raw counts)."""

    opponent: str = "opponent"
    games: int = 0
    opening_lie: list[int] = field(default_factory=lambda: [0, 0])
    """Its openings: [honest, lie] (圖 4.10a)."""
    decisions: dict[str, int] = field(default_factory=dict)
    """Its decisions facing our count A (the n of the trust threshold)."""
    support: Cells = field(default_factory=dict)
    """B | A: [not supporting, supporting]."""
    challenge: Cells = field(default_factory=dict)
    """E | A,B: [bid, challenge]."""
    lie: Cells = field(default_factory=dict)
    """C | A,B (its bids only): [honest, lie]."""
    same_face: Cells = field(default_factory=dict)
    """D | A,B,C (its bids only): [other face, our face]."""
    our_openings: Cells = field(default_factory=dict)
    """Our opening count → [not challenged, challenged] by it at once (圖 4.10b)."""

    # -- inference ----------------------------------------------------------------------------

    def trust_opening(self) -> float:
        return _trust(sum(self.opening_lie))

    def trust_response(self, a: int) -> float:
        return _trust(self.decisions.get(str(a), 0))

    def trust_our_opening(self, count: int) -> float:
        return _trust(sum(self.our_openings.get(str(count), [0, 0])))

    def p_opening_lie(self) -> float:
        return _p(self.opening_lie, 1)

    def p_our_opening_challenged(self, count: int) -> float:
        return _p(self.our_openings.get(str(count)), 1)

    def posterior(self, a: int, same: bool) -> tuple[float, float]:
        """(p(support), p(lie)) for an opponent bid answering our count ``a``."""
        joint = [[0.0, 0.0], [0.0, 0.0]]
        for b in (0, 1):
            ab = f"{a},{b}"
            base = _p(self.support.get(str(a)), b) * _p(self.challenge.get(ab), 0)
            for c in (0, 1):
                d = _p(self.same_face.get(f"{a},{b},{c}"), int(same))
                joint[b][c] = base * _p(self.lie.get(ab), c) * d
        total = sum(map(sum, joint))
        return (joint[1][0] + joint[1][1]) / total, (joint[0][1] + joint[1][1]) / total

    # -- training from a reveal ---------------------------------------------------------------

    def learn(
        self, bids: Sequence[tuple[int, Bid]], challenger: int, me: int, hand: list[int]
    ) -> None:
        """Update every table from one revealed round; ``hand`` is the opponent's dice by face."""
        self.games += 1
        for i, (seat, bid) in enumerate(bids):
            if seat == me:
                continue
            lie = bid.count - hand[bid.face] > 1
            if i == 0:
                self.opening_lie[int(lie)] += 1
                continue
            ours = bids[i - 1][1]
            b = self._observe_facing(ours, hand, challenged=False)
            ab = f"{ours.count},{int(b)}"
            _bump(self.lie, ab, lie)
            _bump(self.same_face, f"{ab},{int(lie)}", bid.face == ours.face)
        if challenger != me and bids and bids[-1][0] == me:
            self._observe_facing(bids[-1][1], hand, challenged=True)
        if bids and bids[0][0] == me:
            _bump(self.our_openings, str(bids[0][1].count), len(bids) == 1 and challenger != me)

    def _observe_facing(self, ours: Bid, hand: list[int], *, challenged: bool) -> bool:
        a = str(ours.count)
        b = ours.count - hand[ours.face] < 3
        self.decisions[a] = self.decisions.get(a, 0) + 1
        _bump(self.support, a, b)
        _bump(self.challenge, f"{a},{int(b)}", challenged)
        return b

    # -- reading it: the seed's "show profile" ------------------------------------------------

    def profile(self) -> dict[str, Any]:
        """What the player believes of this opponent, as the player reads it: every probability
        smoothed as in play, each with the trust n/(n+10) the situation has earned."""
        responses = []
        for a in sorted(self.decisions, key=int):
            count = int(a)
            row: dict[str, Any] = {
                "our_count": count,
                "seen": self.decisions[a],
                "trust": round(self.trust_response(count), 4),
                "p_support": round(_p(self.support.get(a), 1), 4),
            }
            for b, label in ((1, "supported"), (0, "unsupported")):
                row[f"p_challenge_{label}"] = round(_p(self.challenge.get(f"{a},{b}"), 1), 4)
                row[f"p_lie_{label}"] = round(_p(self.lie.get(f"{a},{b}"), 1), 4)
            responses.append(row)
        openings = [
            {
                "count": int(count),
                "seen": sum(cell),
                "trust": round(self.trust_our_opening(int(count)), 4),
                "p_challenged": round(self.p_our_opening_challenged(int(count)), 4),
            }
            for count, cell in sorted(self.our_openings.items(), key=lambda item: int(item[0]))
        ]
        return {
            "opponent": self.opponent,
            "games": self.games,
            "its_openings": {
                "seen": sum(self.opening_lie),
                "trust": round(self.trust_opening(), 4),
                "p_lie": round(self.p_opening_lie(), 4),
            },
            "its_responses": responses,
            "our_openings": openings,
        }

    # -- persistence --------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return ModelFile.from_model(self).model_dump()

    @classmethod
    def from_json(cls, data: Any) -> OpponentModel:
        """The model in ``data`` (a parsed tables file); `ModelError` says what is wrong."""
        if not isinstance(data, dict):
            raise ModelError("a liar's dice tables file holds one JSON object")
        if "version" not in data:
            # Some other JSON file: saying its version None is not supported would suggest
            # that another arena wrote it.
            raise ModelError("not a liar's dice tables file (no 'version' key)")
        if data.get("version") != MODEL_VERSION:
            raise ModelError(
                f"liar's dice model version {data.get('version')!r} is not supported "
                f"(this arena reads version {MODEL_VERSION})"
            )
        try:
            checked = ModelFile.model_validate(data)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in issue['loc']) or 'file'}: {issue['msg']}"
                for issue in error.errors()
            )
            raise ModelError(f"malformed liar's dice tables: {problems}") from None
        return cls(**checked.model_dump(exclude={"version"}))


Pair = Annotated[list[Annotated[int, Field(ge=0)]], Field(min_length=2, max_length=2)]

_KEY_PATTERNS = {
    "decisions": re.compile(r"[0-9]+"),
    "support": re.compile(r"[0-9]+"),
    "our_openings": re.compile(r"[0-9]+"),
    "challenge": re.compile(r"[0-9]+,[01]"),
    "lie": re.compile(r"[0-9]+,[01]"),
    "same_face": re.compile(r"[0-9]+,[01],[01]"),
}
_KEY_FORMS = {
    "decisions": "A",
    "support": "A",
    "our_openings": "A",
    "challenge": "A,B",
    "lie": "A,B",
    "same_face": "A,B,C",
}


class ModelFile(BaseModel):
    """The JSON of one opponent's tables (``<tables_dir>/<opponent>.json``). Cells are
    ``[outcome 0, outcome 1]`` counts keyed by the network's parents: A (our count, a number), B
    and C (0 or 1) joined by commas."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    opponent: str
    games: int = Field(ge=0)
    opening_lie: Pair
    decisions: dict[str, Annotated[int, Field(ge=0)]]
    support: dict[str, Pair]
    challenge: dict[str, Pair]
    lie: dict[str, Pair]
    same_face: dict[str, Pair]
    our_openings: dict[str, Pair]

    @field_validator(*_KEY_PATTERNS)
    @classmethod
    def _keys(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        name = info.field_name or ""
        bad = [key for key in value if not _KEY_PATTERNS[name].fullmatch(key)]
        if bad:
            raise ValueError(f"keys must read {_KEY_FORMS[name]}, got {bad[:3]}")
        return value

    @classmethod
    def from_model(cls, model: OpponentModel) -> ModelFile:
        return cls(
            opponent=model.opponent,
            games=model.games,
            opening_lie=list(model.opening_lie),
            decisions=dict(model.decisions),
            support={k: list(v) for k, v in model.support.items()},
            challenge={k: list(v) for k, v in model.challenge.items()},
            lie={k: list(v) for k, v in model.lie.items()},
            same_face={k: list(v) for k, v in model.same_face.items()},
            our_openings={k: list(v) for k, v in model.our_openings.items()},
        )


_PLAIN_NAME = re.compile(r"[a-z0-9_.-]{1,200}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_READABLE_LENGTH = 48
_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{port}{digit}" for port in ("com", "lpt") for digit in "0123456789"}
)
"""Names Windows keeps for devices, whatever their case and whatever follows their first dot:
``nul.json`` or ``Com1.x.json`` opens the device, not a file."""


def model_path(directory: Path, opponent: str) -> Path:
    """``<directory>/<opponent>.json`` for a name of lower-case letters, digits and ``_ . -``
    (not a Windows device name: `_WINDOWS_DEVICES`), as it always was, so existing tables still
    load. Any other name is written file-name-safe, cut to 48 characters, and followed by
    ``+`` and 12 hex digits of its SHA-256: ``小明`` and ``小華``, ``a/b`` and ``a_b``, or
    ``Alice`` and ``alice`` never share a file, not even where file names ignore case (macOS's
    and Windows' file systems by default), so one player's tables are never read as another's;
    no plain name can look like a hashed one (``+`` is not in a plain name)."""
    if _PLAIN_NAME.fullmatch(opponent) and not _is_device(opponent):
        return directory / f"{opponent}.json"
    digest = hashlib.sha256(opponent.encode("utf-8")).hexdigest()[:12]
    readable = _UNSAFE.sub("_", opponent)[:_READABLE_LENGTH]
    if _is_device(readable):
        readable = f"_{readable}"  # CON.x+… would still open the device
    return directory / f"{readable}+{digest}.json"


def _is_device(name: str) -> bool:
    return name.split(".", 1)[0].lower() in _WINDOWS_DEVICES


def legacy_model_path(directory: Path, opponent: str) -> Path:
    """Where an arena before the hashed names (`model_path`) saved ``opponent``'s tables: every
    unsafe character as ``_``, so several names could share it (and, for a name with capitals
    or a Windows device name, where one saved them before those were hashed). Read only when the
    file's ``opponent`` is the name asked for; the next save goes to `model_path`."""
    return directory / f"{_UNSAFE.sub('_', opponent) or '_'}.json"


def load_model(path: Path) -> OpponentModel:
    """One tables file; `ModelError` names the file and what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ModelError(f"cannot read {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelError(f"{path} is not JSON, so not a liar's dice tables file: {error}") from None
    try:
        return OpponentModel.from_json(data)
    except ModelError as error:
        raise ModelError(f"{path}: {error}") from None


def check_tables_dir(directory: Path) -> None:
    """Refuse a tables directory that is a file, cannot be made or written in, or holds a
    tables file that cannot be read, before any game is played with it: a save that failed only
    after the first game would lose what was learnt, or stop a run midway. A missing directory
    is made now (the first save would make it anyway): removing it again could pull it from
    under another process of the same run that has just saved in it."""
    if directory.exists() and not directory.is_dir():
        raise ModelError(f"tables_dir {directory} is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ModelError(
            f"tables_dir {directory}: cannot make that directory: {error.strerror or error}"
        ) from None
    try:
        probe_writable(directory, prefix=".tables-write-check-")
    except OSError as error:
        raise ModelError(
            f"tables_dir {directory}: cannot write in that directory: {error.strerror or error}"
        ) from None
    for path in sorted(directory.glob("*.json")):
        load_model(path)


class TablesSaveError(ModelError, BotReportedError):
    """Learnt tables that could not be written (the directory went away, the disk is full): the
    run must stop, not play on learning nothing that lasts."""


def save_model(model: OpponentModel, path: Path) -> None:
    """Write the tables to ``path`` atomically: a run stopped mid-write leaves the previous
    tables, never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        # newline: the same bytes on every system (Windows would write \r\n).
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(json.dumps(model.to_json(), indent=1, sort_keys=True) + "\n")
        # Another worker of a run (--jobs) may be reading the file, which Windows lets no
        # rename replace meanwhile.
        replace_file(Path(tmp), path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""Tokens: who may play as which bot, and who may open tables.

The tokens file is TOML with two tables, each mapping a name to the SHA-256 hex digest of that
name's token; the tokens themselves are never stored::

    [bots]
    "g1" = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

    [admins]
    "lead" = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"

`arena tokens add NAME [--admin]` creates a token, prints it once and stores its digest.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
import secrets
import stat
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError
from arena.files import lock_byte, replace_file, unlock_byte
from arena.text_files import NotUTF8Error, read_text_file
from protocol.messages import is_bot_name

_DIGEST = re.compile(r"^[0-9a-f]{64}$")


class TokenFileError(ArenaError, ValueError):
    """The tokens file cannot be read; the message names the file and the entry."""


def digest(token: str) -> str:
    # surrogatepass: a hello's JSON can carry a lone surrogate, which plain UTF-8 refuses.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def is_loopback(host: str) -> bool:
    """True for an address (or ``localhost``) that only this machine can reach."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class TokenStore:
    """Digests by name. ``open`` means no tokens file: every name is accepted (loopback only)."""

    bots: Mapping[str, str] = field(default_factory=dict)
    admins: Mapping[str, str] = field(default_factory=dict)
    open: bool = False

    @classmethod
    def open_store(cls) -> TokenStore:
        return cls(open=True)

    @classmethod
    def load(cls, path: Path) -> TokenStore:
        try:
            data = tomllib.loads(read_text_file(path))
        except (OSError, NotUTF8Error, tomllib.TOMLDecodeError) as exc:
            # An OSError's own text repeats the path: its reason alone, after the path once.
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise TokenFileError(f"{path}: {reason}") from None
        tables: dict[str, dict[str, str]] = {}
        for section in ("bots", "admins"):
            table = data.get(section, {})
            if not isinstance(table, dict):
                raise TokenFileError(f"{path}: [{section}] must be a table of name = digest")
            for name, value in table.items():
                if not is_bot_name(name):
                    raise TokenFileError(f"{path}: [{section}] {name!r} is not a valid name")
                if not isinstance(value, str) or not _DIGEST.match(value):
                    raise TokenFileError(
                        f"{path}: [{section}] {name}: expected a 64-digit lowercase SHA-256 hex"
                    )
            tables[section] = dict(table)
        unknown = set(data) - {"bots", "admins"}
        if unknown:
            raise TokenFileError(f"{path}: unknown tables {sorted(unknown)}; use [bots], [admins]")
        return cls(bots=tables["bots"], admins=tables["admins"])

    @staticmethod
    def _check(table: Mapping[str, str], name: str, token: str | None) -> bool:
        wanted = table.get(name)
        if wanted is None or token is None:
            return False
        return hmac.compare_digest(wanted, digest(token))

    def check_bot(self, name: str, token: str | None) -> bool:
        return self.open or self._check(self.bots, name, token)

    def check_admin(self, name: str, token: str | None) -> bool:
        return self.open or self._check(self.admins, name, token)


def _render(bots: Mapping[str, str], admins: Mapping[str, str]) -> str:
    lines = ["# arena tokens: name = SHA-256 hex of the token (written by `arena tokens add`)"]
    for section, table in (("bots", bots), ("admins", admins)):
        lines.append(f"\n[{section}]")
        lines.extend(f'"{name}" = "{table[name]}"' for name in sorted(table))
    return "\n".join(lines) + "\n"


def add_token(path: Path, name: str, *, admin: bool = False, replace: bool = False) -> str:
    """Create a fresh token for ``name`` and return it in clear. A name that already has a
    token of that kind is refused unless ``replace``: replacing it locks out whoever holds the
    old one, which should never happen by a typo.

    Safe to run in parallel on one file: each call holds an exclusive lock on ``FILE.lock``
    (kept beside it) from reading the file to renaming the new one into place, so no call
    overwrites another's token. A file that cannot be written, or that its owner made
    read-only, is `TokenFileError` naming it, and the file is left as it was."""
    if not is_bot_name(name):
        raise TokenFileError(f"{name!r}: a name is 1-64 of A-Z a-z 0-9 _ . -")
    try:
        if path.is_dir():
            raise TokenFileError(f"cannot write tokens file {path}: it is a directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.with_name(path.name + ".lock")):
            store = TokenStore.load(path) if path.exists() else TokenStore()
            bots, admins = dict(store.bots), dict(store.admins)
            table = admins if admin else bots
            if name in table and not replace:
                kind = "admin" if admin else "bot"
                raise TokenFileError(
                    f"{kind} {name} already has a token in {path}; pass --replace to issue a "
                    "new one (the old one then stops working)"
                )
            _refuse_read_only(path)
            token = secrets.token_urlsafe(32)
            table[name] = digest(token)
            _write_atomically(path, _render(bots, admins))
    except OSError as exc:
        raise TokenFileError(f"cannot write tokens file {path}: {_reason(path, exc)}") from None
    return token


@contextmanager
def _locked(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``lock`` (created if need be) for the block. The
    lock file is never removed: one removed while another process waits on it would let a
    third lock a new file of that name, and two writers would run at once.

    On Windows (no ``fcntl``) the lock is `msvcrt.locking`'s on the file's first byte, which
    nobody reads (the file stays empty); it waits some ten seconds for another holder, then
    gives up with `TokenFileError`, where ``flock`` waits as long as it takes."""
    try:
        import fcntl  # POSIX; imported here so that reading tokens needs no more than Python
    except ImportError:
        fcntl = None  # type: ignore[assignment]

    try:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        # Named here: the caller's message names the tokens file, which may not even exist.
        raise TokenFileError(
            f"cannot lock {lock}, which guards the tokens file: {exc.strerror or exc}"
        ) from None
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
            return
        try:
            lock_byte(descriptor, 0, wait=True)
        except BlockingIOError:
            raise TokenFileError(
                f"cannot lock {lock}, which guards the tokens file: another `arena tokens add` "
                "has held it for ten seconds; try again once it is done"
            ) from None
        try:
            yield
        finally:
            with suppress(OSError):
                unlock_byte(descriptor, 0)
    finally:
        os.close(descriptor)  # releases the lock


def _refuse_read_only(path: Path) -> None:
    """A rename replaces a file whatever its mode: a tokens file whose owner took its write
    permission away (or that this user may not write) would lose that protection unseen."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & stat.S_IWUSR or not os.access(path, os.W_OK):
        raise TokenFileError(
            f"cannot write tokens file {path}: it is read-only (make it writable to add tokens)"
        )


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a fresh file beside ``path`` and rename it over ``path``: a crash
    never leaves a half-written file. Mode 0600 (`tempfile.mkstemp`'s), because the digests,
    though not secrets, tell an attacker which names to aim at."""
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        # newline: the same bytes on every system (Windows would write \r\n).
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        replace_file(Path(temporary), path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
    # The rename itself lives in the directory: without this a crash could still undo it.
    with suppress(OSError):
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def _reason(path: Path, exc: OSError) -> str:
    """Why ``path`` could not be written, in a few words: the path is in the message already
    (an `OSError`'s own text repeats it), and "File exists" from creating the directory means
    that a parent is a file."""
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        for parent in path.parents:
            if parent.exists():
                if not parent.is_dir():
                    return f"{parent} is not a directory"
                break
    return exc.strerror or str(exc)

"""Standard streams that any console or pipe can take.

On Windows, output that is piped or redirected (``arena … > out.txt``, a PowerShell pipe, an
IDE's console, a CI log) is encoded in the ANSI code page (cp1252 in the West, cp950 in Taiwan)
unless ``PYTHONUTF8=1``. Our help and reports print characters such a code page lacks (≥, −,
→, ♠, χ², the Chinese names of the Tai): with Python's default ``strict`` errors the command
would stop half-way with a traceback. Text shows an escape instead (``\\u2265``), and JSON is
written in ASCII there, so that it stays exact whatever the code page."""

from __future__ import annotations

import codecs
import sys
from typing import IO


def tolerate_unencodable_output() -> None:
    """Let stdout and stderr escape a character their encoding cannot write instead of raising
    `UnicodeEncodeError`. Called first thing by the ``arena`` and ``bots`` commands."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            reconfigure(errors="backslashreplace")


def writes_unicode(stream: IO[str] | None = None) -> bool:
    """Whether ``stream`` (stdout by default) encodes every character: a UTF encoding. A stream
    whose encoding is unknown counts as not."""
    encoding = getattr(sys.stdout if stream is None else stream, "encoding", None)
    if not encoding:
        return False
    try:
        return codecs.lookup(encoding).name.startswith("utf")
    except LookupError:
        return False


def json_ascii_only(stream: IO[str] | None = None) -> bool:
    """The ``ensure_ascii`` for JSON written to ``stream`` (stdout by default): readable
    characters where the stream takes them, ``\\uXXXX`` escapes (the same JSON once parsed)
    where it does not."""
    return not writes_unicode(stream)

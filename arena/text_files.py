"""Reading a text file a person saved with whatever editor they had: the config files (bot
configs, league configs, rulesets), which TOML says are UTF-8.

Windows tools do not all save plain UTF-8. Notepad (before Windows 10 1903) and many others start
UTF-8 with a byte-order mark (BOM), which TOML does not allow; Windows PowerShell 5.1's ``>``
and ``Out-File`` write UTF-16 LE with a BOM. A BOM says the encoding for certain, so those files are
read as what they are. A file in a legacy code page (cp950/Big5 Chinese comments, cp1252) has
no such mark and cannot be told apart from a damaged file: it is refused with the place of the
first byte that is not UTF-8 and what to do about it.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Final

_BYTE_ORDER_MARKS: Final = (
    # UTF-32 LE first: its mark starts with UTF-16 LE's.
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
"""Each mark and the codec that reads a file starting with it (and drops the mark)."""

SAVE_AS_UTF8: Final = "save it as UTF-8"


class NotUTF8Error(ValueError):
    """A text file that is neither UTF-8 nor text with a byte-order mark. The message says
    where and what to do, not which file: the caller names the file in its own words."""


def read_text_file(path: Path) -> str:
    """The text of ``path``: UTF-8, with or without a BOM, or UTF-16/UTF-32 with a BOM (the
    BOM dropped). Raises `OSError` when the file cannot be read, `NotUTF8Error` when its bytes
    are none of those."""
    data = path.read_bytes()
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                name = encoding.upper().removesuffix("-SIG")
                # The UTF-16/32 codecs count the mark in the place of a bad byte; utf-8-sig,
                # which drops the mark before it decodes, does not.
                start = exc.start + (len(mark) if encoding == "utf-8-sig" else 0)
                raise NotUTF8Error(
                    f"it starts with a {name} byte-order mark but is not {name} text (from "
                    f"byte {start}): {SAVE_AS_UTF8}"
                ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUTF8Error(
            f"it is not UTF-8 text: byte 0x{data[exc.start]:02X} at {_where(data, exc.start)} "
            f"(saved in another encoding, such as Big5/cp950 or ANSI?): {SAVE_AS_UTF8}"
        ) from None


def _where(data: bytes, offset: int) -> str:
    """``line L, column C`` of byte ``offset`` of ``data``, as an editor counts them (the
    column in characters, the line's earlier bytes read as UTF-8)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return f"line {line}, column {column}"

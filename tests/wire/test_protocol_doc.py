"""docs/PROTOCOL.md is generated from the code (real games through the referee); it must not
drift. Regenerate with `arena protocol doc --write`."""

import re

from arena.games.registry import GAME_MODULES, get_spec
from arena.protocol_doc import DOC_PATH, EXAMPLES, render


def test_protocol_md_is_up_to_date() -> None:
    assert DOC_PATH.read_text(encoding="utf-8") == render(), (
        "docs/PROTOCOL.md is stale: run `arena protocol doc --write`"
    )


def test_every_game_has_a_complete_example() -> None:
    """Every game of the registry, not every example: a new game needs an example (its
    messages, and its action grammar, which the example's section renders)."""
    text = DOC_PATH.read_text(encoding="utf-8")
    for game in sorted(GAME_MODULES):
        examples = [example for example in EXAMPLES if example.game_kind == game]
        assert examples, (
            f"docs/PROTOCOL.md has no example of the game {game!r}: add an ExampleGame to "
            "EXAMPLES in arena/protocol_doc.py, then run `arena protocol doc --write`"
        )
        for example in examples:
            assert f"## {example.title}" in text, f"{example.title!r}: run `arena protocol doc`"
        grammar = get_spec(game).action_grammar
        assert grammar, f"{game!r}: its GameSpec has no action_grammar for docs/PROTOCOL.md"
        for line in grammar:
            form = line.partition(" — ")[0]
            assert f"* `{form}`" in text, f"{game!r}: action form {form!r} is not in the doc"
    # A whole duel: both seats are asked, and the game ends with a reveal and a game_end.
    assert '"kind":"reveal"' in text
    assert '"kind":"game_end"' in text


def test_every_logged_message_is_valid_and_round_trips() -> None:
    """A bot author copies these lines: each must be a message our own models accept as is."""
    from protocol.codec import encode, parse_message

    logged = [
        line.split(" ", 1)[1]
        for line in DOC_PATH.read_text(encoding="utf-8").splitlines()
        if line[:2] == "S>" or (line[:1].isdigit() and line[1:3] == ">S")
    ]
    assert len(logged) > 100
    for text in logged:
        assert encode(parse_message(text)) == text


def test_every_type_a_field_names_is_readable_and_defined() -> None:
    """A reader in another language needs no Python: no typing repr in a type cell, and each
    object or enum a field names has its own table."""
    text = DOC_PATH.read_text(encoding="utf-8")
    cells = re.findall(r"^\| `\w+` \| (.+?) \| (?:yes|no) \|", text, re.MULTILINE)
    assert len(cells) > 100
    for cell in cells:
        for python in ("Annotated", "FieldInfo", "Union[", "Literal[", "typing", "protocol."):
            assert python not in cell, cell
    named = set(re.findall(r"\b[A-Z][A-Za-z]+\b", " ".join(cells))) - {"None", "Any"}
    defined = set(re.findall(r"^### `([A-Z]\w+)`$", text, re.MULTILINE))
    assert named <= defined, named - defined
    assert {"BidRecord", "RerollRecord", "Exchange", "MeldView", "TaiRow", "ErrorCode"} <= defined
    payload_cells = [cell for cell in cells if "payloads" in cell]
    assert len(payload_cells) == 2  # event.payload and request.observation

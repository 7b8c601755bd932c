"""docs/PROTOCOL.md is generated from the code (real games through the referee); it must not
drift. Regenerate with `arena protocol doc --write`."""

from arena.protocol_doc import DOC_PATH, EXAMPLES, render


def test_protocol_md_is_up_to_date() -> None:
    assert DOC_PATH.read_text(encoding="utf-8") == render(), (
        "docs/PROTOCOL.md is stale: run `arena protocol doc --write`"
    )


def test_every_game_has_a_complete_example() -> None:
    text = DOC_PATH.read_text(encoding="utf-8")
    for example in EXAMPLES:
        assert f"## {example.title}" in text
    # A whole duel: both seats are asked, and the game ends with a reveal and a game_end.
    assert '"kind":"reveal"' in text
    assert '"kind":"game_end"' in text

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

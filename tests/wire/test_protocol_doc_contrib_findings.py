"""docs/PROTOCOL.md's completeness test goes by the registry's games, not by the examples: a game
added without an example (and so without its action grammar in the doc) fails it."""

import pytest

from arena.games.registry import GAME_MODULES
from tests.wire import test_protocol_doc


def test_a_registered_game_without_an_example_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAME_MODULES, "tic_tac_toe", "arena.games.tic_tac_toe")
    with pytest.raises(AssertionError, match="no example of the game 'tic_tac_toe'"):
        test_protocol_doc.test_every_game_has_a_complete_example()

"""docs/PROTOCOL.md's generator refuses what it cannot document rather than write something a
reader cannot use, and writes an action text without a meaning as the text alone: cases a
mutation audit found untested (the shipped messages and games never reach them)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TypeVar

import pytest
from pydantic import BaseModel, create_model

from arena import protocol_doc
from arena.protocol_doc import EXAMPLES, _game_section, _referenced_types, _type_text


def test_two_wire_types_of_one_name_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each named type gets a table headed by its name: two of one name could not be told apart.
    first = create_model("Thing", value=(int, ...))
    second = create_model("Thing", label=(str, ...))
    holder: type[BaseModel] = create_model("Holder", a=(first, ...), b=(second, ...))
    monkeypatch.setattr(protocol_doc, "MESSAGE_TYPES", (holder,))
    with pytest.raises(ValueError, match=r"share a name.*Thing"):
        _referenced_types()


@pytest.mark.parametrize("annotation", ["Forward", TypeVar("T")])
def test_a_field_type_with_no_documented_form_is_refused(annotation: object) -> None:
    with pytest.raises(TypeError, match="no documented form for the field type"):
        _type_text(annotation)


def test_an_action_text_without_a_meaning_is_listed_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    grammar = ("challenge", "bid N F — raise to N dice showing F")
    monkeypatch.setattr(
        protocol_doc, "get_spec", lambda kind: SimpleNamespace(action_grammar=grammar)
    )
    lines = _game_section(EXAMPLES[1], [])
    assert "* `challenge`" in lines
    assert "* `bid N F` — raise to N dice showing F" in lines

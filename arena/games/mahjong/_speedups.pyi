from typing import Any

def is_winning(counts: Any, sets_needed: Any, /) -> bool | None: ...
def deficiency(counts: Any, sets: int, /) -> int | None: ...
def install(
    suit_class: Any,
    honour_class: Any,
    merge: Any,
    final: Any,
    n_suit: int,
    n_honour: int,
    n_merged: int,
    /,
) -> None: ...

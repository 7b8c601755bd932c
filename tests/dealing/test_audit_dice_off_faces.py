"""A roller that gives a die off the faces fails the dice audit by name, instead of crashing
numpy's tallies (a negative face) or the tests' cell counts (a face above the last)."""

from __future__ import annotations

import pytest

from arena.dealing.audit import audit_dice
from arena.dealing.deals import roll_dice
from arena.dealing.streams import DealingError, MatchSeed, RandomStream

SEED = MatchSeed.from_text("off-faces")


def _sevens_now_and_then(stream: RandomStream, count: int, faces: int) -> list[int]:
    rolled = roll_dice(stream, count, faces)
    return [7, *rolled[1:]] if rolled[0] == 6 else rolled


def _zeros_now_and_then(stream: RandomStream, count: int, faces: int) -> list[int]:
    rolled = roll_dice(stream, count, faces)
    return [0, 0, *rolled[2:]] if rolled[0] == 1 else rolled


@pytest.mark.parametrize(
    ("roller", "per_roll"), [(_sevens_now_and_then, 1), (_zeros_now_and_then, 2)]
)
def test_a_face_off_the_die_fails_every_test_by_name(roller: object, per_roll: int) -> None:
    report = audit_dice(SEED, 600, roll=roller)  # type: ignore[arg-type]
    first_faces = {1: 6, 2: 1}[per_roll]
    hits = sum(
        1 for k in range(600) if roll_dice(RandomStream(SEED, f"dice/{k}"), 5, 6)[0] == first_faces
    )
    assert hits > 0
    named = {t.name: t.impossible for t in report.tests}
    assert named == {
        "faces of every die": (f"a face outside 1–6: {hits * per_roll} seen",),
        "sum of 5 dice": (f"a roll with a face outside 1–6: {hits} seen",),
        "hand types of five dice": (f"a roll with a face outside 1–6: {hits} seen",),
    }
    assert all(t.p_value == 0.0 for t in report.tests)
    assert not report.verdict().passed
    # The rolls on the faces are tallied as before: the off rolls only leave the sums and types.
    assert sum(r["observed"] for r in report.tallies["sums"]) == 600 - hits


def test_a_roller_giving_the_wrong_number_of_dice_is_refused_by_name() -> None:
    def four(stream: RandomStream, count: int, faces: int) -> list[int]:
        return roll_dice(stream, count - 1, faces)

    with pytest.raises(DealingError, match=r"^the roller gave 4 dice for dice/0, not 5$"):
        audit_dice(SEED, 100, roll=four)

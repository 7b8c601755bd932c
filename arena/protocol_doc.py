"""Generate docs/PROTOCOL.md from the code: message tables from the models, and complete message
logs of real games played through the referee. A test regenerates it and diffs the file, so the
document cannot drift from what the server says."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from arena.dealing import MatchSeed
from arena.games.mahjong.rules import load_ruleset
from arena.games.registry import get_spec
from arena.referee import play_game
from arena.transports.base import Seat
from arena.transports.inprocess import InProcessSeat
from bots.registry import make_bot
from protocol.codec import encode
from protocol.messages import (
    ERROR_MEANINGS,
    Action,
    Bye,
    Error,
    ErrorCode,
    Event,
    Hello,
    Request,
    Welcome,
)
from protocol.payloads import Payload

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"


@dataclass(frozen=True)
class ExampleGame:
    """A game played for the document: who plays, with which rules and seed."""

    title: str
    game_kind: str
    bots: Sequence[tuple[str, Mapping[str, Any]]]
    rules: Mapping[str, Any]
    seed_text: str
    deal: Mapping[str, Any] = field(default_factory=dict)
    #: only these seats' messages are shown (all when empty)
    shown_seats: tuple[int, ...] = ()
    intro: str = ""


EXAMPLES: tuple[ExampleGame, ...] = (
    ExampleGame(
        title="Example: a 1A2B duel",
        game_kind="bulls_cows",
        bots=(
            ("super-comparison", {"answerer": "evader", "seed": 1}),
            ("random", {"answerer": "fixed", "seed": 2}),
        ),
        rules={"mode": "duel", "digits": 3, "alphabet": "123456789", "max_guesses": 20},
        seed_text="protocol-doc",
        deal={"game_index": 0},
        intro=(
            "Two bots each guess the other's code and answer the other's guesses. A guess is "
            "asked with no `legal` list (504 codes) but a `hint`; answers and reveals are listed. "
            "Seat 0 answers adaptively (the evader keeps the most codes possible), which is legal "
            "as long as its reveal at the end matches every answer."
        ),
    ),
    ExampleGame(
        title="Example: a game of liar's dice",
        game_kind="liars_dice",
        bots=(("random-guess", {"seed": 1}), ("probability", {"seed": 2})),
        rules={},
        seed_text="protocol-doc",
        deal={"game_index": 0, "first": 0},
        intro=(
            "Two players, five dice each, one round (the seed's set-up). Each seat receives its "
            "own dice in a private event; the reveal at the challenge is public."
        ),
    ),
    ExampleGame(
        title="Example: a hand of Taiwan mahjong",
        game_kind="mahjong",
        bots=(("greedy", {}),) * 4,
        rules=load_ruleset("competition").to_mapping(),
        seed_text="golden",
        deal={"round": 16, "hand": 0},
        shown_seats=(0,),
        intro=(
            "Four greedy bots, the competition ruleset. Only seat 0's messages are shown: it sees "
            "its own tiles, everyone's discards and melds, and is asked to claim only when it has "
            "a claim. Tiles are `1m`…`9m`, `1p`…`9p`, `1s`…`9s`, `1z`…`7z` (E S W N, white, "
            "green, red; see RULES.md)."
        ),
    ),
)


class _TranscriptSeat:
    """Wraps a seat and writes down every message in both directions, as on the wire."""

    def __init__(self, inner: Seat, seat: int, transcript: list[tuple[int, str, str]]) -> None:
        self.inner = inner
        self.seat = seat
        self.transcript = transcript

    async def send(self, message: Event | Error) -> None:
        self.transcript.append((self.seat, "to", encode(message)))
        await self.inner.send(message)

    async def ask(self, request: Request) -> Action:
        self.transcript.append((self.seat, "to", encode(request)))
        action = await self.inner.ask(request)
        self.transcript.append((self.seat, "from", encode(action)))
        return action


async def transcript_of(example: ExampleGame) -> list[tuple[int, str, str]]:
    transcript: list[tuple[int, str, str]] = []
    bots = [
        make_bot(example.game_kind, strategy, config, name=f"{strategy}-{seat}")
        for seat, (strategy, config) in enumerate(example.bots)
    ]
    seats = [_TranscriptSeat(InProcessSeat(bot), seat, transcript) for seat, bot in enumerate(bots)]
    await play_game(
        example.game_kind,
        seats,
        rules=example.rules,
        seed=MatchSeed.from_text(example.seed_text),
        deal=example.deal,
        players=[bot.name for bot in bots],
        match_id="doc",
        game_id="g1",
    )
    return transcript


def _payload_models(annotation: Any = Payload) -> list[type[BaseModel]]:
    """Every payload model in the union, in declaration order."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in get_args(annotation):
        found += _payload_models(arg)
    return found


def _type_text(annotation: Any) -> str:
    if annotation == Payload:
        return "payload"
    if get_origin(annotation) is Literal:
        return " \\| ".join(json.dumps(arg) for arg in get_args(annotation))
    if isinstance(annotation, type) and not get_args(annotation):
        return annotation.__name__
    text = str(annotation).replace("typing.", "").replace("protocol.games.", "")
    return text.replace("|", "\\|")


def _field_rows(model: type[BaseModel]) -> list[str]:
    rows = []
    for name, info in model.model_fields.items():
        required = "yes" if info.is_required() else "no"
        meaning = info.description or (
            "always " + json.dumps(info.default) if name == "type" else ""
        )
        rows.append(f"| `{name}` | `{_type_text(info.annotation)}` | {required} | {meaning} |")
    return rows


def _message_section() -> list[str]:
    out = ["## Messages", ""]
    for model in (Hello, Welcome, Event, Request, Action, Error, Bye):
        type_name = model.model_fields["type"].default
        out += [f"### `{type_name}`", "", (model.__doc__ or "").strip(), ""]
        out += ["| field | type | required | meaning |", "|---|---|---|---|"]
        out += _field_rows(model)
        out.append("")
    out += [
        "## Payloads",
        "",
        "`event.payload` and `request.observation` are one of these objects, told apart by",
        "`game` and `kind`.",
        "",
    ]
    for payload_model in _payload_models():
        game = payload_model.model_fields["game"].default
        kind = payload_model.model_fields["kind"].default
        out += [f"### `{game}` / `{kind}`", "", (payload_model.__doc__ or "").strip(), ""]
        out += ["| field | type | required | meaning |", "|---|---|---|---|"]
        out += [
            row
            for row in _field_rows(payload_model)
            if not row.startswith(("| `game`", "| `kind`"))
        ]
        out.append("")
    out += ["## Error codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| `{code.value}` | {meaning} |" for code, meaning in ERROR_MEANINGS.items()]
    out.append("")
    return out


def _handshake_section() -> list[str]:
    hello = Hello(name="my-bot", token="s3cret", games=["bulls_cows", "mahjong"])
    welcome = Welcome(name="my-bot", session="s-1", resume_token="r-6f1c")
    bad = Error(code=ErrorCode.STALE_SEQ, text="action for seq 7, pending seq is 8", seq=7)
    return [
        "## A session",
        "",
        "A bot opens a connection (a websocket, or its MQTT topics: see NETWORK.md), sends",
        "`hello`, and waits for `welcome`. It is then seated by the server and receives, for each",
        "game, an `event` with a `game_start` payload (its seat and the players), the events its",
        "seat may see, and a `request` whenever a decision is due. It answers each request with",
        "one `action` that echoes the request's `seq`, before `deadline_ms`. A late, malformed or",
        "illegal answer gets an `error` and the request is asked again once (with a new `seq`);",
        "after a second failure the referee plays the game's fallback action for the seat and",
        "broadcasts a `penalty` event. A bad message never closes the connection by itself.",
        "A request's `observation` holds everything the seat may know, so a bot that decides",
        'from requests alone may say `"events": false` in its `hello` and is then sent no',
        "`event` at all (requests, errors and `bye` still come).",
        "",
        "```json",
        encode(hello),
        encode(welcome),
        encode(bad),
        "```",
        "",
    ]


def _game_section(example: ExampleGame, transcript: list[tuple[int, str, str]]) -> list[str]:
    spec = get_spec(example.game_kind)
    out = [f"## {example.title}", ""]
    if example.intro:
        out += [example.intro, ""]
    if spec.action_grammar:
        out += ["Action texts:", ""]
        for line in spec.action_grammar:
            form, _, meaning = line.partition(" — ")
            out.append(f"* `{form}` — {meaning}" if meaning else f"* `{form}`")
        out.append("")
    shown = set(example.shown_seats) or {seat for seat, _, _ in transcript}
    out += [
        f"The complete message log of one game (seed text `{example.seed_text}`), "
        + ("every seat" if not example.shown_seats else f"seat {sorted(shown)} only")
        + ": `S>n` is the server to seat n, `n>S` seat n to the server.",
        "",
        "```text",
    ]
    for seat, direction, text in transcript:
        if seat in shown:
            arrow = f"S>{seat}" if direction == "to" else f"{seat}>S"
            out.append(f"{arrow} {text}")
    out += ["```", ""]
    return out


def render() -> str:
    lines = [
        "# The arena protocol (version 1)",
        "",
        "<!-- Generated by `arena protocol doc --write` from the code; a test checks it. -->",
        "",
        "Every message is one JSON object: one websocket text frame, or one MQTT message. Every",
        "message has `v` (the protocol version, 1) and `type`; `match`, `game`, `seat` and `seq`",
        "are set where they apply. Unknown fields are errors. `arena protocol schema` prints the",
        "JSON Schema of every message. Payloads (`event.payload`, `request.observation`) carry",
        "`game` (`arena` for the frame of a game, else the game) and `kind`.",
        "",
    ]
    lines += _handshake_section()
    lines += _message_section()
    for example in EXAMPLES:
        lines += _game_section(example, asyncio.run(transcript_of(example)))
    return "\n".join(lines).rstrip() + "\n"

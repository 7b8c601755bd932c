"""Generate docs/PROTOCOL.md from the code: message tables from the models, and complete message
logs of real games played through the referee. A test regenerates it and diffs the file, so the
document cannot drift from what the server says."""

from __future__ import annotations

import asyncio
import inspect
import json
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from arena.dealing import MatchSeed
from arena.games.liars_dice.rules import LiarsDiceRules
from arena.games.mahjong.rules import load_ruleset
from arena.games.registry import get_spec
from arena.matches.frame import MatchFrame
from arena.referee import play_game
from arena.transports.base import Seat
from arena.transports.inprocess import InProcessSeat
from bots.registry import make_bot
from protocol.codec import encode
from protocol.messages import (
    ERROR_MEANINGS,
    MESSAGE_TYPES,
    SILENCE_LIMIT_S,
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
    #: the game's id, as the match of its kind names its first game
    game_id: str = "g0"


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
            "asked with no `legal` list (504 codes) but a `hint`; answers are listed, and a "
            "reveal is asked with a `hint` only (the code must match every answer given). "
            "Seat 0 answers adaptively (the evader keeps the most codes possible), which is legal "
            "as long as its reveal at the end matches every answer.\n\n"
            'What a bot needs of the rules (RULES.md, "1A2B"): each bot chooses its own code '
            "(3 distinct symbols of 1-9 here: `game_start` carries the rules) and keeps it to "
            "itself; nothing of it is sent before `reveal`. An answer `xAyB` counts the guess's "
            "symbols in the right place (A) and present elsewhere (B). Turns are equal: if seat 0 "
            "solves with its k-th guess, seat 1 still makes its k-th; both solving is a draw "
            "(`both_solved`), else the one who solved wins (`solved`); neither within "
            "`max_guesses` is a draw. A reveal that contradicts one of the seat's answers loses "
            "the game (`breach`). A win scores 1, a draw 0.5, a loss 0. A seat that fails to "
            'answer twice gets a fallback that gives the game away (RULES.md, "Fallbacks").'
        ),
    ),
    ExampleGame(
        title="Example: a game of liar's dice",
        game_kind="liars_dice",
        bots=(("random-guess", {"seed": 1}), ("probability", {"seed": 2})),
        # The whole ruleset, as a match sends it in game_start (never an empty object).
        rules=LiarsDiceRules(players=2).to_mapping(),
        seed_text="protocol-doc",
        deal={"game_index": 0, "first": 0},
        intro=(
            "Two players, five dice each, one round (the seed's set-up). Each seat receives its "
            "own dice in a private event; the reveal at the challenge is public.\n\n"
            'What a bot needs of the rules (RULES.md, "Liar\'s dice"): the opener must bid, at '
            "least `min_open` (2) dice; then each seat in turn raises the standing bid or "
            "challenges it. A challenge ends the round and lifts every cup: the bid holds when "
            "the dice showing its face number at least its count, and then the challenger "
            "loses, else the bidder. The loser scores 0, every other seat 1 (under `series` the "
            "loser drops a die and the last seat with dice wins). Under `ones_wild` "
            "(`game_start` carries the rules) a one counts as any face until someone bids ones "
            "in the round (the observation's `ones_wild` says whether they still are); a bid on "
            "ones counts ones only. A seat that fails to answer twice plays `challenge` when a "
            "bid stands, else `bid 2x1` (`min_open` x 1)."
        ),
    ),
    ExampleGame(
        title="Example: a hand of Taiwan mahjong",
        game_kind="mahjong",
        bots=(("greedy", {}),) * 4,
        rules=load_ruleset("competition").to_mapping(),
        seed_text="golden",
        # The first hand of a match, as `arena match mahjong` deals and names it.
        deal={"round": 0, "hand": 0, "scores": [0, 0, 0, 0]},
        game_id="r0h0",
        shown_seats=(0,),
        intro=(
            "Four greedy bots, the competition ruleset. Only seat 0's messages are shown: it sees "
            "its own tiles, everyone's discards and melds, and is asked to claim only when it has "
            "a claim (competition ruleset; under `claims_ask_every_seat` it is asked, with `pass` "
            "alone, after every discard of another seat). Tiles are `1m`…`9m`, `1p`…`9p`, "
            "`1s`…`9s`, `1z`…`7z` (E S W N, white, green, red; see RULES.md).\n\n"
            "What a bot needs of the rules — a hand, claims and their priority, wins, Tai "
            'scoring, what each seat sees and the fallbacks — is in RULES.md, "Mahjong table '
            'and match" and "Tai scoring".'
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
        # Shown as a connected bot should send it (`bots run` does): echoing the request's
        # `match` and `game` as well, which an in-process seat has no need to.
        echoed = action.model_copy(update={"match": request.match, "game": request.game})
        self.transcript.append((self.seat, "from", encode(echoed)))
        return action


async def transcript_of(example: ExampleGame) -> list[tuple[int, str, str]]:
    transcript: list[tuple[int, str, str]] = []
    bots = [
        make_bot(example.game_kind, strategy, config, name=f"{strategy}-{seat}")
        for seat, (strategy, config) in enumerate(example.bots)
    ]
    seats = [_TranscriptSeat(InProcessSeat(bot), seat, transcript) for seat, bot in enumerate(bots)]
    seed = MatchSeed.from_text(example.seed_text)
    names = [bot.name for bot in bots]
    # A match of one game, so the log shows the frame every match has: match_start with the
    # seed's commitment before the deal, match_end with the seed after the game.
    frame = MatchFrame(
        example.game_kind, seed, seats, names, games=1, rules=example.rules, match_id="doc"
    )
    await frame.start()
    played = await play_game(
        example.game_kind,
        seats,
        rules=example.rules,
        seed=seed,
        deal=example.deal,
        players=names,
        match_id="doc",
        game_id=example.game_id,
        reveal=False,
    )
    frame.tally(names, played.result.scores)
    await frame.finish()
    return transcript


def _payload_models(annotation: Any = Payload) -> list[type[BaseModel]]:
    """Every payload model in the union, in declaration order."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in get_args(annotation):
        found += _payload_models(arg)
    return found


_PAYLOAD_CELL = "one of the [payloads](#payloads), told apart by `game`, then `kind`"


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _named_types(annotation: Any) -> list[type]:
    """The models and enums an annotation refers to (not payloads), for the Types section."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel | Enum):
        return [annotation]
    found: list[type] = []
    for arg in get_args(annotation):
        found += _named_types(arg)
    return found


def _type_text(annotation: Any) -> str:
    """A field's type as a reader in any language can take it: ``list[BidRecord]``, ``int | None``,
    ``"chi" | "pon"``; models and enums by name (each has a table under "Types")."""
    if annotation is type(None):
        return "None"
    if annotation is Any:
        return "Any"
    origin = get_origin(annotation)
    if origin is Annotated:
        return _type_text(get_args(annotation)[0])
    if origin is Literal:
        return " | ".join(json.dumps(arg) for arg in get_args(annotation))
    if _is_union(annotation):
        return " | ".join(_type_text(arg) for arg in get_args(annotation))
    if origin is not None:
        inner = ", ".join(_type_text(arg) for arg in get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if isinstance(annotation, type):
        return annotation.__name__
    raise TypeError(f"no documented form for the field type {annotation!r}")


def _type_cell(annotation: Any) -> str:
    if _payload_models(annotation) and set(_payload_models(annotation)) <= set(_payload_models()):
        # The payload union, nested in discriminated unions: say what it is, not how Python
        # spells it.
        return _PAYLOAD_CELL
    text = _type_text(annotation).replace("|", "\\|")
    return f"`{text}`"


def _field_rows(model: type[BaseModel]) -> list[str]:
    rows = []
    for name, info in model.model_fields.items():
        # A message's `type` (and a payload's `game`/`kind`) has a default in the model, but the
        # server reads the message by it: a frame without it is refused, so it is required.
        required = "yes" if info.is_required() or name in ("type", "kind") else "no"
        meaning = info.description or (
            "always " + json.dumps(info.default) if name == "type" else ""
        )
        rows.append(f"| `{name}` | {_type_cell(info.annotation)} | {required} | {meaning} |")
    return rows


def _referenced_types() -> list[type]:
    """Every model and enum a message or payload field names, and those they name in turn, in
    order of first use; each needs its own table, or a reader cannot build it."""
    pending: list[type] = [*MESSAGE_TYPES, *_payload_models()]
    documented = set(pending)
    found: list[type] = []
    while pending:
        model = pending.pop(0)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        for info in model.model_fields.values():
            for named in _named_types(info.annotation):
                if named not in documented:
                    documented.add(named)
                    found.append(named)
                    pending.append(named)
    names = [kind.__name__ for kind in found]
    duplicated = {name for name in names if names.count(name) > 1}
    if duplicated:
        raise ValueError(f"wire types share a name, the doc cannot tell them apart: {duplicated}")
    return found


def _types_section() -> list[str]:
    out = ["## Types", "", "The objects and enums named by the fields above.", ""]
    for kind in _referenced_types():
        out += [f"### `{kind.__name__}`", ""]
        if issubclass(kind, ErrorCode):
            out += [
                "A string: one of the codes under [Error codes](#error-codes).",
                "",
            ]
            continue
        if issubclass(kind, Enum):
            values = ", ".join(f"`{json.dumps(member.value)}`" for member in kind)
            out += [inspect.cleandoc(kind.__doc__ or ""), "", f"A string, one of {values}.", ""]
            continue
        if not issubclass(kind, BaseModel):
            raise TypeError(f"no documented form for the wire type {kind!r}")
        out += [inspect.cleandoc(kind.__doc__ or ""), ""]
        out += ["| field | type | required | meaning |", "|---|---|---|---|"]
        out += _field_rows(kind)
        out.append("")
    return out


def _message_section() -> list[str]:
    out = ["## Messages", ""]
    for model in MESSAGE_TYPES:
        type_name = model.model_fields["type"].default
        out += [f"### `{type_name}`", "", inspect.cleandoc(model.__doc__ or ""), ""]
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
        out += [f"### `{game}` / `{kind}`", "", inspect.cleandoc(payload_model.__doc__ or ""), ""]
        out += ["| field | type | required | meaning |", "|---|---|---|---|"]
        out += [
            row
            for row in _field_rows(payload_model)
            if not row.startswith(("| `game`", "| `kind`"))
        ]
        out.append("")
    out += _types_section()
    out += ["## Error codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| `{code.value}` | {meaning} |" for code, meaning in ERROR_MEANINGS.items()]
    out.append("")
    return out


def _handshake_section() -> list[str]:
    hello = Hello(name="my-bot", token="s3cret", games=["bulls_cows", "mahjong"])
    welcome = Welcome(name="my-bot", session="s-1", resume_token="r-6f1c")
    bad = Error(
        code=ErrorCode.STALE_SEQ, text="action for seq 7; the pending request is seq 8", seq=7
    )
    aborted = Error(
        code=ErrorCode.MATCH_ABORTED,
        match="mahjong-8a5615782aac",
        text="match mahjong-8a5615782aac was stopped before its end (its admin disconnected); "
        "you are back in the lobby",
    )
    silence = f"{SILENCE_LIMIT_S:g}"
    return [
        "## A session",
        "",
        "A bot opens a connection (a websocket, or its MQTT topics: see NETWORK.md), sends",
        "`hello`, and waits for `welcome`. It is then seated by the server and receives, for each",
        "game, an `event` with a `game_start` payload (its seat and the players), the events its",
        "seat may see, and a `request` whenever a decision is due. It answers each request with",
        "one `action` that echoes the request's `seq`, before `deadline_ms` (timed by the",
        "referee from when it sends the request, so the network's time counts). The action is",
        "a text: one of the request's `legal` list as written, or, where there are too many to",
        "list, one formed as its `hint` says; case and runs of spaces are forgiven. A seat's",
        "requests are numbered from 1 through the whole match, never again from 1 in the next",
        "game, so a `seq` names one request of a match even when the action leaves out `game`;",
        "but the next match (the bot's next table) numbers them from 1 again, so a late answer",
        "to the previous match that leaves out `match` could pass for an answer to the new",
        "one. Echo the request's `match`, `game` and `seat` in every `action`, as the examples",
        "below do. A late, malformed or",
        "illegal answer gets an `error` and the request is asked again once (with a new `seq`);",
        "after a second failure the referee plays the game's fallback action for the seat and",
        "sends that seat, and no other, a `penalty` event (in a mahjong claim only the seats",
        "that can claim are asked, unless the ruleset sets `claims_ask_every_seat`, so the",
        "others must not learn who failed). The re-ask goes out as soon as the failure is",
        "known (for no answer, the moment the deadline passes, with the `late` error just",
        "before it), and its own full `deadline_ms` runs from then: a bot still thinking over",
        "the late request is already spending the re-ask's time, so one slow decision usually",
        "costs a penalty if the bot only reads the connection between decisions. Keep reading",
        "it while the bot thinks, drop the work for a `seq` once its `late` error arrives, and",
        "answer the newest request at once (a re-ask is the same position: an answer worked out",
        "for the late request fits it). Malformed is also",
        "an `action` with the pending `seq` that names another `seat` than the request's, has",
        "a field of the wrong JSON type, or has a field that `action` does not have (an unknown",
        "field: strict by design, additions come through `features`, below): `bad_message`,",
        "and it counts as a failed answer like an illegal one. An action with another `seq`, or",
        "that names another `match` or `game` (a late answer to an earlier request), gets",
        "`stale_seq` (with the pending request's `match` and `game`, and the action's `seq`)",
        "and the request stays pending. A bad message never closes the connection",
        "by itself; many in a short time do (`flood`), but a bot's first late answer to a request",
        "it was sent is not counted (a second answer to it, or an answer to a request never",
        "sent, is). Only a frame whose `type` is `action` can answer a request: one that is not",
        "JSON, has no `type` or another one gets its `error` (`bad_json`, `bad_message`) and",
        "does not count as an answer, so the request stays pending until its deadline (the",
        "error says so: `(request N is still pending: answer it)`). An answer that comes after",
        'the table has closed gets `not_expected` ("you are not seated").',
        "A request's `observation` holds everything the seat may know, so a bot that decides",
        'from requests alone may say `"events": false` in its `hello` and is then sent no',
        "`event` at all (requests, errors and `bye` still come).",
        "",
        'A match may give each player a **time bank** (NETWORK.md, "Time controls"): an',
        "answer after `deadline_ms` is then still taken while the bank covers the overrun, which",
        "is spent from it; an answer the bank cannot cover, or none, empties it, and the referee",
        "plays the fallback at once, without asking again. Every request of such a match carries",
        "`bank_ms`, the milliseconds left in the seat's bank, to a bot that asked for it (below);",
        "a bot that finds no `bank_ms` should take `deadline_ms` as its limit.",
        "",
        "**v1 additions.** `bank_ms` on requests, the refusal codes `name_in_use` and",
        "`resume_unknown`, the `match_aborted` notice, `welcome.resumed` and the refusal",
        "`shutting_down` came after the first v1 bots, which refuse fields and codes they do",
        "not know. So a bot gets each only if its `hello` lists it in `features`",
        '(`"features": ["bank_ms", "refusal_codes", "match_aborted", "resumed",',
        '"shutting_down"]`; names the server does not know are ignored). A server',
        "older than `features` answers such a `hello` with `bad_message` and keeps the",
        "connection: say `hello` again without it. `welcome.resumed` says whether the `hello`",
        "took back the bot's session (its seat and a pending request), which a bot restarted",
        "without its resume token cannot tell from the token it gets.",
        "",
        "`hello.token` is needed when the server has tokens (`arena serve --tokens FILE`,",
        'NETWORK.md "Auth"); a server without them ignores it. A resuming `hello` (`resume`',
        'set, after a dropped connection: NETWORK.md "Drops, reconnects and resume") is a',
        "whole `hello` again: the same `name` and `token`; its `events` and `features` replace",
        "the session's, and its `games` are not read (the session keeps its seat). It is",
        "answered with `welcome`, then the session's journal — the match's `match_start`, then",
        'the events of the game in progress and of the bot\'s absence; none with `"events":',
        "false` — then the request still pending, if one is. It takes the session over at once,",
        "even from a connection the server still holds open (a half-open link, or another",
        'process): that one gets `bye` ("replaced by a resumed connection") and is closed.',
        "",
        "A `hello` may be refused with `error` and the connection closed: `auth_failed` (a wrong",
        "or missing token: stop), `name_in_use` (another session holds the name: if it is this",
        "bot's, say `hello` with `resume` set to that session's `resume_token`; else retry later",
        "or take another name) or `resume_unknown` (`hello.resume` names no session: say",
        "`hello` again without it; when the server still knows why the session ended, the",
        "text says so: the bot said `bye`, or its table closed while it was away, with the",
        "match and whether its reconnect grace had run out). The last two are v1 additions",
        "(`refusal_codes`): a bot that did not ask, or an older server, gets `auth_failed`",
        "for them too. During a drain (the server is shutting down) a `hello` that would start",
        "a session gets `shutting_down`: nothing is wrong with the bot, say `hello` again later",
        "(a v1 addition, `shutting_down`: a bot that did not ask gets `not_expected`). A `name`",
        "that is not 1-64 of `A-Z a-z 0-9 _ . -` makes the `hello` malformed (`bad_message`),",
        "and the connection stays; over MQTT a topic whose `<name>` breaks that rule gets no",
        'reply at all, since the server answers only on a bot\'s down topic (NETWORK.md, "MQTT").',
        "A second `hello` on a connection (an MQTT topic pair) that has a session gets the",
        "`welcome` again if it repeats the first or carries the session's resume token (a",
        "seated bot's counts as a resume), else `not_expected`.",
        "",
        "When a table closes before its match has ended (its referee disconnected or closed it,",
        "the server is stopping or lost its MQTT broker), every seated bot still connected gets",
        "`error` `match_aborted` if it asked for it, with the match's `match` and no `seq`: no",
        "`match_end` will follow, a pending request is void, and the bot is back in the lobby.",
        'It comes to a bot with `"events": false` too, and always before any `bye`: when the',
        "server is stopping, a `bye` follows it (its `text` says so) and the connection closes.",
        "",
        "In mahjong, after a discard or an added kong a request goes only to the seats that can",
        "claim, unless the ruleset sets `claims_ask_every_seat` (`competition-server`, the",
        'default of matches on a server; RULES.md "Asking every seat"). Then every other seat',
        'gets one, a seat with no claim with `"legal": ["pass"]`. It must be answered like any',
        "other request, before its deadline: the referee never answers for the bot. A bot that",
        "wants its own claim chances kept private should not answer a `pass`-only request faster",
        "than a real choice.",
        "",
        f"Over MQTT a bot must send a message at least every {silence} s: `ping` when it has",
        "nothing else to say (the server does not answer it). A bot silent for longer gets `bye`",
        "and is dropped as if its connection had closed: a seated bot's session turns absent",
        "(resume it with `hello.resume`), a waiting one is forgotten and its name freed. Over a",
        "websocket the connection's own pings do this, and `ping` is allowed but not needed.",
        "A bot that leaves sends `bye` first, over MQTT above all: a clean MQTT disconnect",
        "discards the connection's will, and a server on another broker than its own then learns",
        'that the bot left only from its silence (NETWORK.md, "MQTT"). The server answers a',
        "bot's `bye` with its own `bye` and closes the connection. Over a websocket a bot's",
        "`bye` means that it leaves now: its session ends, with no reconnect grace and no resume",
        "(its resume token gets `resume_unknown`, and its name is free for a new `hello`); at a",
        "table, the request pending for it and every later one of its match are answered at",
        "once with the referee's fallback (each a `penalty`). A bot that means to come back (a",
        "restart) closes the connection without `bye` and resumes. Over MQTT a `bye` cannot be",
        "told from the will the broker publishes for a dead connection, so there it counts as a",
        "dropped connection: a seated bot's session turns absent, and may be resumed.",
        "",
        "```json",
        encode(hello),
        encode(welcome),
        encode(bad),
        encode(aborted),
        encode(Bye(reason="my owner stopped me")),
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
        f"The complete message log of a match of one game (seed text `{example.seed_text}`): "
        "`match_start` commits to the seed before the deal, `match_end` reveals it; "
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
        "Every message is one JSON object in UTF-8: one websocket text frame (a binary frame is",
        "read the same way), or one MQTT message. A bot connects to the server's URL,",
        "`ws://HOST:PORT` (any path). Every message has `type`, and every message the server",
        "sends has `v` (the protocol version, 1); a bot's may leave `v` out, which reads as 1.",
        "`match`, `game`, `seat` and `seq` are set where they apply. Unknown fields are errors,",
        "and an `error` names the field and what is wrong. `arena protocol schema` prints the",
        "JSON Schema of every message. Payloads (`event.payload`, `request.observation`) carry",
        "`game` (`arena` for the frame of a game, else the game) and `kind`.",
        "",
        "Field types are JSON types, checked strictly: `int` is a JSON integer (not `2.0` or",
        '`"2"`; `v` is the integer `1`), `float` any JSON number, `str` a string, `bool`',
        "`true`/`false`, `None` `null`, `list[T]` an array of T, `dict[str, Any]` an object, and",
        '`"a" | "b"` one of those strings. Objects and enums named by a field (`BidRecord`,',
        "`ErrorCode`, …) have their own table under [Types](#types).",
        "",
    ]
    lines += _handshake_section()
    lines += _message_section()
    for example in EXAMPLES:
        lines += _game_section(example, asyncio.run(transcript_of(example)))
    return "\n".join(lines).rstrip() + "\n"

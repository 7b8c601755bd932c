"""A bot written only from docs/PROTOCOL.md: the `websockets` library and hand-written JSON.

It imports nothing from this project on purpose, as a bot author in any language would work. It
plays one game of whatever it is seated for, then says bye and prints one JSON line: the
game_end payload, how many requests it answered, and any error the server sent it.

    python plain_client.py ws://127.0.0.1:8765 NAME GAME
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys

from websockets.asyncio.client import connect


def feedback(secret: str, guess: str) -> str:
    bulls = sum(a == b for a, b in zip(secret, guess, strict=True))
    cows = len(set(secret) & set(guess)) - bulls
    return f"{bulls}A{cows}B"


def codes(digits: int, alphabet: str) -> list[str]:
    return ["".join(p) for p in itertools.permutations(alphabet, digits)]


def bulls_cows_action(request: dict) -> str:
    """1A2B guesses and reveals are not listed: form them from the observation."""
    seen = request["observation"]
    space = codes(seen["digits"], seen["alphabet"])
    if request["hint"].startswith("guess"):
        tried = {g["guess"] for g in seen["guesses"]}
        for code in space:
            if code not in tried and all(
                feedback(code, g["guess"]) == g["feedback"] for g in seen["guesses"]
            ):
                return f"guess {code}"
        return f"guess {next(c for c in space if c not in tried)}"
    # A reveal must match every answer this seat gave.
    for code in space:
        if all(feedback(code, a["guess"]) == a["feedback"] for a in seen["answers"]):
            return f"reveal {code}"
    return f"reveal {space[0]}"


def choose(request: dict) -> str:
    legal = request.get("legal")
    if legal:
        for winning in ("tsumo", "ron"):
            if winning in legal:
                return winning
        return legal[0]
    return bulls_cows_action(request)


async def play(url: str, name: str, game: str) -> dict:
    answered = 0
    errors = []
    async with connect(url) as ws:
        await ws.send(json.dumps({"v": 1, "type": "hello", "name": name, "games": [game]}))
        welcome = json.loads(await ws.recv())
        if welcome["type"] != "welcome":
            return {"refused": welcome}
        async for frame in ws:
            message = json.loads(frame)
            if message["type"] == "request":
                action = {
                    "v": 1,
                    "type": "action",
                    "seq": message["seq"],
                    "action": choose(message),
                }
                await ws.send(json.dumps(action))
                answered += 1
            elif message["type"] == "error":
                errors.append(message)
            elif message["type"] == "bye":
                break
            elif message["type"] == "event":
                payload = message["payload"]
                if payload["game"] == "arena" and payload["kind"] == "game_end":
                    await ws.send(json.dumps({"v": 1, "type": "bye", "reason": "one game"}))
                    return {"game_end": payload, "answered": answered, "errors": errors}
    return {"game_end": None, "answered": answered, "errors": errors}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(play(sys.argv[1], sys.argv[2], sys.argv[3]))))

"""1A2B bots (seed 004): guessers 隨機取樣法 (random), 次數分析法 (frequency), 超級比較法
(super-comparison), max entropy and the shipped optimal tree; answerers fixed and 保護範圍法
(evader). ``BOTS`` maps each guesser's name to a factory ``(name, config) -> Bot``; config keys
``answerer`` (fixed | evader) and ``seed``."""

from bots.bulls_cows.answerers import (
    ANSWERERS,
    Answerer,
    EvaderAnswerer,
    FixedAnswerer,
    make_answerer,
)
from bots.bulls_cows.bot import (
    BOTS,
    GUESSERS,
    BotConfigError,
    BullsCowsBot,
    build_bot,
    describe_options,
    make_guesser,
)
from bots.bulls_cows.guessers import (
    EntropyGuesser,
    FrequencyGuesser,
    Guesser,
    RandomGuesser,
    SuperComparisonGuesser,
)
from bots.bulls_cows.trees import TreeGuesser, load_tree

__all__ = [
    "ANSWERERS",
    "BOTS",
    "GUESSERS",
    "Answerer",
    "BotConfigError",
    "BullsCowsBot",
    "EntropyGuesser",
    "EvaderAnswerer",
    "FixedAnswerer",
    "FrequencyGuesser",
    "Guesser",
    "RandomGuesser",
    "SuperComparisonGuesser",
    "TreeGuesser",
    "build_bot",
    "describe_options",
    "load_tree",
    "make_answerer",
    "make_guesser",
]

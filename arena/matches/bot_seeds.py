"""The seed an in-process bot of a match plays with: `bots.seeds`, where ``bots run`` reads it
too (bots may not import the match formats). Re-exported for the match formats and leagues."""

from bots.seeds import UNSEEDED, bot_options, seeded_options

__all__ = ["UNSEEDED", "bot_options", "seeded_options"]

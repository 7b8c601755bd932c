"""Root of the arena's exception tree: every error the arena raises on purpose derives from it."""


class ArenaError(Exception):
    """Base class of every deliberate arena error."""

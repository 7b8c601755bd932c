"""Leagues: every pairing of a list of bots in one game, played in parallel, stored in SQLite,
reported as standings with error bars (`arena league FILE`; docs/LEAGUES.md)."""

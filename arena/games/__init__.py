"""Pure rules engines, one package per game."""

"""``python -m bots …`` runs the ``bots`` command: for a machine whose virtual environment's
scripts folder is not on PATH (often so on Windows)."""

from bots.cli import main

if __name__ == "__main__":
    main()

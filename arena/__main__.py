"""``python -m arena …`` runs the ``arena`` command: for a machine whose virtual environment's
scripts folder is not on PATH (often so on Windows)."""

from arena.cli.main import main

# Only when run: imported (a tool, a test) it must not start the command line.
if __name__ == "__main__":
    main()

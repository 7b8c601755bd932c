"""``python -m arena …`` runs the ``arena`` command: for a machine whose virtual environment's
scripts folder is not on PATH (often so on Windows)."""

from arena.cli.main import main

# Worker processes are spawned, and spawning imports the parent's main module again under
# another name: without this test each worker would run the command line anew.
if __name__ == "__main__":
    main()

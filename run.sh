#!/usr/bin/env bash
# The main job: set up the environment if needed, then run the local evaluation.
# Settings come from the environment: ARENA_SEED (another league seed), ARENA_RECORDS (where
# the records and the SQLite file go).
set -euo pipefail
cd "$(dirname "$0")"
if [[ $# -gt 0 ]]; then
  echo "error: ./run.sh takes no arguments; set ARENA_SEED or ARENA_RECORDS instead" >&2
  exit 2
fi
scripts/ensure-env.sh
exec scripts/main-job.sh

#!/usr/bin/env bash
# The main job: set up the environment if needed, then run the local evaluation.
# Extra arguments are passed to the main job.
set -euo pipefail
cd "$(dirname "$0")"
scripts/ensure-env.sh
exec scripts/main-job.sh "$@"

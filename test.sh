#!/usr/bin/env bash
# The test command: set up the environment if needed, then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")"
scripts/ensure-env.sh
echo "== ruff" && .venv/bin/ruff check .
echo "== ruff format --check" && .venv/bin/ruff format --check .
echo "== mypy" && .venv/bin/mypy
echo "== pytest"
set +e
.venv/bin/pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$status"

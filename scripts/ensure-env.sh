#!/usr/bin/env bash
# Create or refresh the project's virtualenv (.venv) so a fresh clone needs nothing else.
# Re-installs only when pyproject.toml, setup.py or the C source they build changed since the
# last install (an editable install compiles arena/games/mahjong/_speedups.c in place; without a
# compiler the project still installs and runs those checks in Python).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "error: Python >= 3.11 is required (found $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "creating .venv ..." >&2
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.arena-installed
want=$(cat pyproject.toml setup.py arena/games/mahjong/_speedups.c | sha256sum | cut -d' ' -f1)
python_only="$want python-only"
can_build_c() {
  # A compiler and the Python headers: the two things a build of the C checks needs.
  command -v "${CC:-cc}" >/dev/null 2>&1 &&
    .venv/bin/python -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'
}
have=$(cat "$stamp" 2>/dev/null || true)
if [ "$have" = "$python_only" ] && can_build_c; then
  have="retry"  # installed without the C checks, and they can be built now
fi
if [ "$have" != "$want" ] && [ "$have" != "$python_only" ]; then
  echo "installing the project and its dev tools into .venv ..." >&2
  .venv/bin/python -m pip install --quiet --upgrade pip
  # -qq: setuptools' notice about editable installs is noise here; errors still show.
  .venv/bin/python -m pip install -qq -e ".[dev]"
  if .venv/bin/python -c 'import arena.games.mahjong._speedups' 2>/dev/null; then
    echo "$want" > "$stamp"
  else
    echo "note: the C mahjong checks were not built (no C compiler or Python headers?); they" \
      "run in Python, slower" >&2
    echo "$python_only" > "$stamp"
  fi
fi

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
have=$(cat "$stamp" 2>/dev/null || true)
# What a build of the C checks needs: the compiler setuptools calls (CC, else Python's own) and
# Python's headers. An install without the C checks records it, and the build is tried again
# only once it changes (a compiler or the headers installed since), not on every run. Looked up
# only when the stamp is not the one of a full install, so a usual run starts no Python for it.
toolchain() {
  .venv/bin/python - <<'PY'
import os, shutil, sysconfig
compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
headers = os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
print(f"cc={shutil.which(compiler) or 'none'} headers={'yes' if headers else 'no'}")
PY
}
if [ "$have" != "$want" ]; then
  python_only="$want python-only $(toolchain)"
fi
if [ "$have" != "$want" ] && [ "$have" != "${python_only:-}" ]; then
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

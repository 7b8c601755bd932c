#!/usr/bin/env bash
# The main job (./run.sh): a local evaluation of the built-in bots on the embedded defaults —
# in-process transport, records written under ./records/ (replay them with `arena replay`).
# The league runner (SQLite results) replaces this script when it lands.
set -euo pipefail
cd "$(dirname "$0")/.."
arena=.venv/bin/arena
seed=${ARENA_SEED:-2026}
records=${ARENA_RECORDS:-records}
mkdir -p "$records"

echo "== 1A2B: every secret of the 3-digit game, super-comparison guesser"
"$arena" bulls-cows eval --guesser super-comparison
echo
echo "== 1A2B: the optimal guesser against the range-protecting evader"
"$arena" bulls-cows eval --guesser optimal --answerer evader
echo
echo "== 1A2B: duel series, optimal vs super-comparison (seed $seed)"
"$arena" match bulls-cows --a optimal --b super-comparison --games 200 --seed "$seed" \
  --record "$records/bulls-cows"
echo
echo "== Liar's dice: random-guess against the 32 test personalities, 100 games each"
"$arena" liars-dice gauntlet --bot random-guess --games 100 --seed "$seed"
echo
echo "== Taiwan mahjong: greedy vs random, A/B layout (A B A B), one 384-hand match"
"$arena" match mahjong --bots greedy,random --layout ab --games 384 --seed "$seed" \
  --record "$records/mahjong"
echo
echo "Records are under $records/: try 'arena replay FILE' or 'arena verify FILE'."

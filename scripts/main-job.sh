#!/usr/bin/env bash
# The main job (./run.sh): local leagues of the built-in bots on the embedded defaults —
# in-process transport, every game stored in SQLite (records/league.sqlite), the JSONL game
# records under records/ (replay them with `arena replay`) — then two of the seeds' own
# experiments. Running it again resumes: stored matches are shown, not replayed.
set -euo pipefail
cd "$(dirname "$0")/.."
arena=.venv/bin/arena
# The configs set seed = "2026"; ARENA_SEED plays (and stores) new leagues on another seed.
seed_option=()
if [[ -n "${ARENA_SEED:-}" ]]; then seed_option=(--seed "$ARENA_SEED"); fi
seed=${ARENA_SEED:-2026}
records=${ARENA_RECORDS:-records}
db="$records/league.sqlite"
mkdir -p "$records"

echo "== League: Taiwan mahjong, greedy vs random, one 384-hand A/B match (seed $seed)"
"$arena" league configs/leagues/mahjong.toml --db "$db" "${seed_option[@]}" --records "$records/mahjong"
echo
echo "== League: liar's dice, six bots round robin, 500 games a pairing (seed $seed)"
"$arena" league configs/leagues/liars-dice.toml --db "$db" "${seed_option[@]}" \
  --records "$records/liars-dice"
echo
echo "== League: 1A2B duels, five bots round robin, 100 games a pairing (seed $seed)"
"$arena" league configs/leagues/bulls-cows.toml --db "$db" "${seed_option[@]}" \
  --records "$records/bulls-cows"
echo
echo "== Seed 004: every secret of the 3-digit game, super-comparison guesser"
"$arena" bulls-cows eval --guesser super-comparison
echo
echo "== Seed 002: random-guess against the 32 test personalities, 100 games each"
"$arena" liars-dice gauntlet --bot random-guess --games 100 --seed "$seed"
echo
show="arena league FILE${ARENA_SEED:+ --seed $ARENA_SEED} --db $db --show"
echo "Every league game is in $db ($show);"
echo "records are under $records/: try 'arena replay FILE' or 'arena verify FILE'."

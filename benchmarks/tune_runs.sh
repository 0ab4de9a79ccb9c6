#!/usr/bin/env bash
# The tuning runs behind benchmarks/RESULTS.md, "Tuned policies (mcsim tune, issue 16)".
#
#   benchmarks/tune_runs.sh [OUT_DIR] [STEP ...]      (steps: sh tt dq eg; default all)
#
# Runs one after the other under `nice`, each writing OUT_DIR/<step>.txt (stdout),
# OUT_DIR/<step>.err (progress) and, for tune, OUT_DIR/<step>/ (tune.json, evaluations.csv,
# objective.png). Wall times go to OUT_DIR/times.txt. Needs `mcsim` and `python` on PATH.
# SCALE=100 divides every budget and game count by 100 (a quick check of the script).
set -u
S=${SCALE:-1}
OUT=${1:-tune-runs}
shift || true
STEPS=${*:-sh tt dq eg}
mkdir -p "$OUT"
M="nice -n 10 mcsim"

run() {
    local name=$1; shift
    local t0; t0=$(date +%s)
    "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err"
    echo "$name rc=$? $(( $(date +%s) - t0 )) s  $*" >> "$OUT/times.txt"
}
tuned() { python -c "import json,sys; print(json.load(open(sys.argv[1]))['policy'])" "$OUT/$1/tune.json"; }

for step in $STEPS; do
    case $step in
    sh)  # Sacred Hill: tuned tactician against default tactician, both seat orders
        run sh $M tune sacred-hill -p tactician:eps=0 --budget $((1000000 / S)) --seed 1 --out "$OUT/sh" ;;
    tt)  # Thurn and Taxis: tuned route against two default routes; then each in all 3 seats
        run tt $M tune thurn-and-taxis -p route --players 3 --budget $((1000000 / S)) --seed 1 --out "$OUT/tt"
        run tt-default $M simulate thurn-and-taxis -p route --players 3 -n $((30000 / S)) --seed 2 -q
        run tt-tuned $M simulate thurn-and-taxis -p "$(tuned tt)" --players 3 -n $((30000 / S)) --seed 2 -q ;;
    dq)  # Don Quixote solo: tuned heuristic's score on fresh deals, and on 5 random tile sets
        run dq $M tune don-quixote -p heuristic --budget $((1000000 / S)) --seed 1 --out "$OUT/dq"
        run dq-ensemble $M evaluate don-quixote -p heuristic -p "$(tuned dq)" -n $((20000 / S)) --seed 2 \
            --tileset-ensemble 5 -q ;;
    eg)  # El Grande: tuned heuristic against three default heuristics (equal share 25%)
        run eg $M tune el-grande -p heuristic:eps=0 --players 4 --budget $((100000 / S)) --seed 1 \
            --out "$OUT/eg" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
    esac
done

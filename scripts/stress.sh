#!/usr/bin/env bash
# The stress run (issue 52): the whole pytest suite several times in a row, each run in a new
# random order, with busy processes beside it eating the cores, on each worker count named. It
# stops at the first red run and prints the seed that replays it; at the end, a table of the
# runs (seed, workers, wall time, load, result) for docs/benchmarks.md.
#
#   scripts/stress.sh                      5 rounds x (all cores, one worker), 2 busy processes
#   scripts/stress.sh --runs 1 --workers auto -m "not slow"     a quick look
#   scripts/stress.sh --load 0             on a quiet machine
#
# Extra arguments go to pytest. Logs and the table go to .stress/ (git ignores it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=5
load=2
workers="auto 0"
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --load) load="$2"; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done

"$root/scripts/test-setup.sh"
cd "$root"
export PATH="$root/.venv/bin:$PATH"
out="$root/.stress"
mkdir -p "$out"
stamp="$(date -u +%Y%m%d-%H%M%S)"
table="$out/stress-$stamp.md"

busy=()
sampler=""
cleanup() {
    for pid in "${busy[@]}" $sampler; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
for _ in $(seq 1 "$load"); do
    (while :; do :; done) &
    busy+=("$!")
done

loads="$out/load-$stamp.txt"
(while :; do cut -d' ' -f1 /proc/loadavg; sleep 5; done) >"$loads" &
sampler="$!"

{
    echo "Stress run of $stamp UTC on $(nproc) cores, $load busy processes beside it,"
    echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with changes)'):"
    echo "\`scripts/stress.sh --runs $runs --load $load --workers \"$workers\"${*:+ $*}\`"
    echo
    echo "| run | workers | seed | wall | load (1-min, mean / max) | result |"
    echo "| --- | --- | --- | --- | --- | --- |"
} >"$table"

status=0
for run in $(seq 1 "$runs"); do
    for n in $workers; do
        seed="$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')"
        log="$out/run-$stamp-$run-n$n.log"
        mark="$(wc -l <"$loads")"
        echo "== stress run $run of $runs, -n $n, --randomly-seed=$seed ($log)"
        start="$(date +%s)"
        set +e
        pytest -n "$n" --dist worksteal --randomly-seed="$seed" -p no:cacheprovider -q "$@" >"$log" 2>&1
        code=$?
        set -e
        wall=$(($(date +%s) - start))
        result="$(grep -E '^(=+ )?[0-9]+ (passed|failed)' "$log" | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')"
        read -r mean max < <(tail -n +"$((mark + 1))" "$loads" |
            awk '{s+=$1; if ($1>m) m=$1} END {if (NR) printf "%.1f %.1f\n", s/NR, m; else print "- -"}')
        printf '| %s | %s | %s | %d min %02d s | %s / %s | %s |\n' "$run" "$n" "$seed" \
            $((wall / 60)) $((wall % 60)) "$mean" "$max" "${result:-exit $code}" >>"$table"
        echo "   exit $code in ${wall} s: ${result:-no result line}"
        if [ "$code" -ne 0 ]; then
            grep -E '^(FAILED|ERROR) ' "$log" | head -20 || true
            echo "stress: red; replay with: scripts/test.sh -n $n --randomly-seed=$seed" >&2
            status=1
            break 2
        fi
    done
done
echo
cat "$table"
exit "$status"

#!/bin/sh
# Prints the top functions of a trace by wall-clock time beside CPU time.
set -eu
trace=${1:-testdata/traces/phases.txt}
w=$(mktemp); c=$(mktemp)
trap 'rm -f "$w" "$c"' EXIT
./wallfold -q "$trace" > "$w"
./wallfold -q --weight=cpu "$trace" > "$c"
echo "wallfold on $trace"
echo
echo "  perf script --show-switch-events --show-task-events | wallfold > wall.folded"
echo
# Inclusive share of each frame (counted once per stack), top 8 by wall.
share() {
	awk '{ n = $NF; $NF = ""; tot += n; split($0, f, ";"); delete seen
	       for (i in f) { g = f[i]; sub(/ +$/, "", g); if (!(g in seen)) { seen[g] = 1; s[g] += n } } }
	     END { for (g in s) printf "%s\t%.1f\t%.3f\n", g, 100 * s[g] / tot, s[g] / 1e9 }' "$1" | sort
}
share "$w" > "$w.s"; share "$c" > "$c.s"
printf '%-28s %18s %18s\n' "function (inclusive)" "wall-clock" "CPU"
join -t "$(printf '\t')" "$w.s" "$c.s" | sort -t "$(printf '\t')" -k2,2nr | head -8 |
	awk -F '\t' '{ printf "%-28s %8.1f%% %7.3fs %8.1f%% %7.3fs\n", substr($1, 1, 28), $2, $3, $4, $5 }'
rm -f "$w.s" "$c.s"
printf '\ntotal: wall %.3f s, cpu %.3f s\n' \
	"$(awk '{ s += $NF } END { print s / 1e9 }' "$w")" "$(awk '{ s += $NF } END { print s / 1e9 }' "$c")"

#!/bin/sh
# The point, on a shipped trace: its functions by wall-clock time beside
# their CPU time (wallfold -f top).
set -eu
trace=${1:-testdata/traces/phases.txt}
echo "\$ wallfold -f top --top=8 $trace"
./wallfold -q -f top --top=8 "$trace"
./wallfold -q -f svg -o demo.svg "$trace"
echo
echo "wrote demo.svg: the flame graph of $trace, widths by wall time, colours by parallelism (serial red); open it in a browser"

#!/usr/bin/env bash
# Byte-for-byte comparison of two wallfold builds: every shipped trace and
# corpus file, through every output and filter flag, from a file and from
# stdin; stdout, stderr, the -o file and the exit status must agree, each
# compared and counted on its own.
#
#   scripts/same-output.sh OLD_BINARY [NEW_BINARY]
#
# NEW_BINARY defaults to a build of this checkout. Prints each difference
# and the number of runs compared; exits 1 when any differ.
set -uo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: scripts/same-output.sh OLD_BINARY [NEW_BINARY]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
new=${2:-$tmp/wallfold.new}
[ -n "${2:-}" ] || go build -o "$new" . || exit 2

inputs=(testdata/traces/*.txt testdata/traces/*.txt.gz testdata/corpus/*/*.txt testdata/corpus/*/*.txt.gz)
flagsets=(
	""
	"--weight=cpu"
	"-f pprof"
	"-f summary"
	"--summary"
	"--pid"
	"--tid --weight=cpu"
	"--all --addrs"
	"--kernel"
	"--jit"
	"--scope=process"
	"--scope=workload --summary"
	"--parallelism=1"
	"--parallelism=2- -f pprof"
	"--parallelism-frame"
	"--parallelism-frame --parallelism=1,3"
	"--time=10%,60%"
	"--time=,50% -f summary"
	"--time=0,1e12 --weight=cpu"
	"--pids=2-40000 --tid"
	"--tids=1-30000"
	"--comm=spin,cc1,phases,xz,make,go"
	"--event=cpu-clock -f summary"
	"--event=cycles"
	"--strict"
	"-q -f pprof --pid"
	"--parallelism= --comm= --time= --pids= --tids= --event="
	"--comm=, -f summary"
	"-f svg"
	"-f svg --weight=cpu"
	"-f trace"
	"-f trace --off-cpu --time=10%,60%"
	"-f top"
	"-f top --weight=cpu --top=3"
	"--off-cpu"
	"--off-cpu -f summary"
	"--off-cpu -f pprof --labels=comm,pid,tid,parallelism,state"
	"-f summary --scope=process --top=1"
	"-f pprof --start=1700000000"
	"--pid --summary"
	"-f summary --tid"
)
# Through stdin: the sequential reader, deferred % windows.
stdinsets=("" "-f svg" "-f trace" "-f top" "-f pprof" "-f summary" "--time=20%,70%" "--time=20%,70% -f pprof" "--strict --summary")

runs=0 diffs=0
declare -A bykey=([out]=0 [err]=0 [file]=0 [rc]=0)
# one BIN INPUT MODE FLAGS -> files in $tmp/BIN.{out,err,file,rc}
one() {
	local tag=$1 bin=$2 in=$3 mode=$4 flags=$5
	rm -f "$tmp/$tag.file"
	if [ "$mode" = stdin ]; then
		# shellcheck disable=SC2086
		"$bin" $flags -o "$tmp/$tag.file" <"$in" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
	else
		# shellcheck disable=SC2086
		"$bin" $flags -o "$tmp/$tag.file" "$in" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
	fi
	echo $? >"$tmp/$tag.rc"
	# Names differ only by the binary's path in messages, never expected.
	[ -f "$tmp/$tag.file" ] || : >"$tmp/$tag.file"
}
# same K: the two runs' K agree. A profile without perf's header takes its
# calendar time from the clock ("now minus the span"), which no two runs
# share: profiles are compared decoded, without their Time line.
same() {
	local k=$1
	cmp -s "$tmp/old.$k" "$tmp/new.$k" && return 0
	[ "$k" = file ] && [ "$(head -c2 "$tmp/old.$k" | od -An -tx1 | tr -d ' ')" = 1f8b ] || return 1
	go tool pprof -raw "$tmp/old.$k" 2>/dev/null | grep -v '^Time: ' >"$tmp/old.raw"
	go tool pprof -raw "$tmp/new.$k" 2>/dev/null | grep -v '^Time: ' >"$tmp/new.raw"
	cmp -s "$tmp/old.raw" "$tmp/new.raw"
}
compare() {
	local in=$1 mode=$2 flags=$3
	one old "$old" "$in" "$mode" "$flags"
	one new "$new" "$in" "$mode" "$flags"
	runs=$((runs + 1))
	local k differ=0
	# Every key is compared: a stderr change must not hide one in stdout.
	for k in out err file rc; do
		if ! same "$k"; then
			differ=1
			bykey[$k]=$((bykey[$k] + 1))
			echo "DIFFER ($k): $mode $in $flags"
			if [ "$k" != file ]; then diff "$tmp/old.$k" "$tmp/new.$k" | head -5; fi
		fi
	done
	diffs=$((diffs + differ))
}
for in in "${inputs[@]}"; do
	[ -f "$in" ] || continue
	for f in "${flagsets[@]}"; do compare "$in" file "$f"; done
	for f in "${stdinsets[@]}"; do compare "$in" stdin "$f"; done
done
# Inputs that are not perf script text: the diagnosis.
printf 'a;b;c 12\nd;e 3\n' >"$tmp/folded.txt"
printf 'PERFILE2\0\0\0binary' >"$tmp/perf.data"
: >"$tmp/empty.txt"
for in in "$tmp/folded.txt" "$tmp/perf.data" "$tmp/empty.txt"; do
	for f in "" "--strict"; do compare "$in" file "$f"; done
done
echo "same-output: $runs runs compared, $diffs differ (stdout ${bykey[out]}, stderr ${bykey[err]}, -o file ${bykey[file]}, exit status ${bykey[rc]})"
[ "$diffs" -eq 0 ]

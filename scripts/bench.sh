#!/usr/bin/env bash
# Throughput and peak RSS of wallfold on a large input.
#
#   scripts/bench.sh [TRACE.txt [PERF.data]]
#   OLD=path/to/old/wallfold scripts/bench.sh ...   # also: old vs new
#
# TRACE defaults to /work/big/gobuild.txt if present, else the shipped
# traces concatenated to ~200 MB in /tmp. Reports wall time (best and
# median of RUNS runs, default 5), MB/s and peak RSS (/usr/bin/time -v)
# for folded and pprof output, the scaling with the CPUs Go may use on a
# regular file (GOMAXPROCS 1, 2, 4, ... all; and a pipe; with the paired
# ratio of each round, and what two CPUs of the machine gave: two
# GOMAXPROCS=1 copies at once against one), and peak RSS on
# a ~1 GB input (TRACE repeated, times rising). With PERF.data, times `perf script ... > /dev/null`,
# `... | cat`, `... | drain` (wallfold's pipe reader alone) and
# `... | wallfold` in interleaved rounds. With OLD set, the old and the new
# binary also run in interleaved rounds (folded, pprof, stdin), with the
# ratio of their median wall and CPU times. Then wallfold against
# inferno-collapse-perf (when on PATH), perl's stackcollapse-perf.pl and
# a Go line count, thread for thread on a samples-only copy of TRACE
# (CPU time medians of interleaved rounds); ONLY=peers runs that alone,
# ONLY=scaling the scaling alone,
# PIN=N runs each peer on CPU N alone (taskset: a VM's CPUs may differ in
# speed for minutes, docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
RUNS=${RUNS:-5}
tmp=${TMPDIR:-/tmp}/wallfold-bench
mkdir -p "$tmp"
bin=$tmp/wallfold
CGO_ENABLED=0 $GO build -o "$bin" . # as make build: static

in=${1:-}
if [ -z "$in" ]; then
	if [ -f /work/big/gobuild.txt ]; then
		in=/work/big/gobuild.txt
	else
		in=$tmp/gen200.txt
		if [ ! -f "$in" ]; then
			: >"$in"
			while [ "$(stat -c %s "$in")" -lt 200000000 ]; do
				cat testdata/traces/*.txt >>"$in"
			done
		fi
	fi
fi
data=${2:-}
[ -f /usr/bin/time ] || { echo "bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

size=$(stat -c %s "$in")
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $($GO version | cut -d' ' -f3)"
echo "input: $in ($((size / 1000000)) MB)"
cat "$in" >/dev/null # page cache

# stats FILE: "best X median Y" of the numbers in FILE.
stats() {
	sort -n "$1" | awk '{a[NR]=$1} END {printf "best %.3f median %.3f", a[1], a[int((NR+1)/2)]}'
}

# measure LABEL CMD...: wall time of $RUNS runs (best, median), MB/s of
# the best, and peak RSS.
measure() {
	local label=$1 rss=0 r
	shift
	: >"$tmp/walls.txt"
	: >"$tmp/faults.txt"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -v -o "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/stderr.txt"
		awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/time.txt" >>"$tmp/walls.txt"
		awk -F': ' '/page faults/ {n+=$2} END {print n}' "$tmp/time.txt" >>"$tmp/faults.txt"
		r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
		[ "$r" -gt "$rss" ] && rss=$r
	done
	best=$(sort -n "$tmp/walls.txt" | head -1)
	printf '%-28s %s s  %7.1f MB/s (best)  peak RSS %6.1f MB  page faults %s\n' "$label" "$(stats "$tmp/walls.txt")" \
		"$(awk -v s="$size" -v t="$best" 'BEGIN{print s/1e6/t}')" "$(awk -v r="$rss" 'BEGIN{print r/1024}')" \
		"$(sort -n "$tmp/faults.txt" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
}

# Thread for thread against its peers, on what they all read: a
# samples-only copy of the input (its PERF_RECORD_ lines left out, as
# perf script prints it without --show-switch-events/--show-task-events).
# CPU time (user+sys from getrusage) of $RUNS interleaved rounds, medians;
# wallfold --weight=cpu (the CPU profile the peers write) from the file
# (the default reader), on stdin (the sequential one) and from the file
# with GOMAXPROCS=1 (one thread, as inferno --nthreads 1);
# inferno-collapse-perf --nthreads 1 and its default; perl's
# stackcollapse-perf.pl ($STACKCOLLAPSE, else on PATH); a Go
# bufio.Scanner line count (the floor of reading lines).
peers() {
	local samples=$tmp/samples.txt tools=$tmp/tools
	grep -v 'PERF_RECORD_' "$in" >"$samples" || true
	mkdir -p "$tools/cputime" "$tools/lines"
	printf 'module cputime\n\ngo 1.26\n' >"$tools/cputime/go.mod"
	printf '%s\n' 'package main' '' 'import (' '	"fmt"' '	"os"' '	"os/exec"' '	"syscall"' '	"time"' ')' '' \
		'// cputime CMD...: CMD with stdout to /dev/null; prints its wall and CPU (user+sys) seconds.' \
		'func main() {' '	c := exec.Command(os.Args[1], os.Args[2:]...)' '	c.Stdin, c.Stderr = os.Stdin, os.Stderr' \
		'	t := time.Now()' '	if err := c.Run(); err != nil {' '		fmt.Fprintln(os.Stderr, err)' '		os.Exit(1)' '	}' \
		'	ru := c.ProcessState.SysUsage().(*syscall.Rusage)' \
		'	fmt.Printf("%.4f %.4f\n", time.Since(t).Seconds(), float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9)' '}' \
		>"$tools/cputime/main.go"
	printf 'module lines\n\ngo 1.26\n' >"$tools/lines/go.mod"
	printf '%s\n' 'package main' '' 'import (' '	"bufio"' '	"fmt"' '	"os"' ')' '' \
		'func main() {' '	f, err := os.Open(os.Args[1])' '	if err != nil {' '		os.Exit(1)' '	}' \
		'	s := bufio.NewScanner(f)' '	s.Buffer(make([]byte, 128<<10), 4<<20)' '	n := 0' '	for s.Scan() {' '		n++' '	}' \
		'	fmt.Println(n)' '}' >"$tools/lines/main.go"
	(cd "$tools/cputime" && $GO build -o ../cputime.bin .) && (cd "$tools/lines" && $GO build -o ../lines.bin .)
	local pl=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
	local inf
	inf=$(command -v inferno-collapse-perf || true)
	local labels="wallfold wallfold-stdin wallfold-1cpu" l cmd
	[ -n "$inf" ] && labels="$labels inferno1 inferno"
	[ -n "$pl" ] && labels="$labels perl"
	labels="$labels lines"
	[ -n "$inf" ] || echo "inferno-collapse-perf: not on PATH (not measured; ../shared/tools/inferno-build.sh builds it)"
	[ -n "$pl" ] || echo "stackcollapse-perf.pl: not found (not measured; STACKCOLLAPSE=path/to/it)"
	local size
	size=$(stat -c %s "$samples")
	echo "samples-only copy: $samples ($((size / 1000000)) MB); $(nproc) CPUs${PIN:+, all on CPU $PIN}, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	for l in $labels; do : >"$tmp/peer.$l"; done
	for _ in $(seq "$RUNS"); do
		for l in $labels; do
			case $l in
			wallfold) cmd="\"$bin\" -q --weight=cpu \"$samples\"" ;;
			wallfold-stdin) cmd="\"$bin\" -q --weight=cpu <\"$samples\"" ;;
			wallfold-1cpu) cmd="GOMAXPROCS=1 \"$bin\" -q --weight=cpu \"$samples\"" ;;
			inferno1) cmd="\"$inf\" --nthreads 1 \"$samples\"" ;;
			inferno) cmd="\"$inf\" \"$samples\"" ;;
			perl) cmd="\"$pl\" \"$samples\"" ;;
			lines) cmd="\"$tools/lines.bin\" \"$samples\"" ;;
			esac
			${PIN:+taskset -c "$PIN"} "$tools/cputime.bin" sh -c "$cmd" </dev/null >>"$tmp/peer.$l"
		done
	done
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	median() { awk -v k="$2" '{print $k}' "$1" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
	local wf
	wf=$(median "$tmp/peer.wallfold" 2)
	for l in $labels; do
		local c
		c=$(median "$tmp/peer.$l" 2)
		printf '%-16s CPU median %.3f s (%6.0f MB/s by CPU), wall median %.3f s; CPU / wallfold'"'"'s %.2f\n' "$l" "$c" \
			"$(awk -v s="$size" -v t="$c" 'BEGIN{print s/1e6/t}')" "$(median "$tmp/peer.$l" 1)" "$(awk -v a="$c" -v b="$wf" 'BEGIN{print a/b}')"
	done
	if [ -n "$inf" ]; then
		printf 'thread for thread: inferno1 / wallfold-1cpu CPU %.2f\n' \
			"$(awk -v a="$(median "$tmp/peer.inferno1" 2)" -v b="$(median "$tmp/peer.wallfold-1cpu" 2)" 'BEGIN{print a/b}')"
	fi
}

# Scaling on a regular file with the CPUs Go may use (GOMAXPROCS):
# at 1 the sequential reader; at 2 one parser goroutine beside the model,
# and one that reads the file ahead; from 3 the file cut into chunks, a
# worker per CPU but one (at most 4). A pipe (cat FILE |) is read on the
# model's goroutine whatever the CPUs: perf script needs the other. $RUNS interleaved rounds; each
# run's 1-minute load average beside it, since a busy machine flattens
# the gain. Wall time by the shell's clock (1 ms), CPU by /usr/bin/time
# (10 ms). A virtual machine's CPUs may change speed from one minute to
# the next: the paired ratio (wall at 1 over wall at N in the same
# round), its median over the rounds, is steadier than a ratio of
# medians (docs/performance.md). Each round also runs one GOMAXPROCS=1
# copy, then two at once: 2 x wall(one) / wall(two) is what two CPUs of
# the machine gave then, 2.00 when both were wholly there; a guest idle
# by its load average may still share its host's cores (this one's two
# copies gave 1.3-2.2), and the ratio at 2 should not pass it.
scaling() {
	echo "scaling on $in ($RUNS interleaved rounds; wall, and CPU = user+sys; load = 1-min load average before each run):"
	procs="1"
	p=2
	while [ "$p" -lt "$(nproc)" ]; do procs="$procs $p"; p=$((p * 2)); done
	[ "$(nproc)" -gt 1 ] && procs="$procs $(nproc)"
	scal="$procs pipe"
	[ "$(nproc)" -gt 1 ] && scal="$scal two"
	for c in $procs pipe; do : >"$tmp/scal.$c.wall"; : >"$tmp/scal.$c.cpu"; : >"$tmp/scal.$c.load"; done
	: >"$tmp/scal.two.cap"
	for _ in $(seq "$RUNS"); do
		for c in $scal; do
			if [ "$c" = two ]; then
				# Its own one-copy run first (wall(1) of the table's runs
				# would tie this measure to the ratio's noise), through the
				# same shell as the two; a copy that fails stops the bench.
				t0=$(date +%s%N)
				GOMAXPROCS=1 sh -c "\"$bin\" -q \"$in\" >/dev/null"
				t1=$(date +%s%N)
				GOMAXPROCS=1 sh -c "\"$bin\" -q \"$in\" >/dev/null & p=\$!; \"$bin\" -q \"$in\" >/dev/null; s=\$?; wait \$p && [ \$s -eq 0 ]"
				echo "$t0 $t1 $(date +%s%N)" | awk '{printf "%.3f\n", 2 * ($2 - $1) / ($3 - $2)}' >>"$tmp/scal.two.cap"
				continue
			fi
			cut -d' ' -f1 /proc/loadavg >>"$tmp/scal.$c.load"
			t0=$(date +%s%N)
			if [ "$c" = pipe ]; then
				/usr/bin/time -f '%U %S' -o "$tmp/scal.t" sh -c "cat \"$in\" | \"$bin\" -q >/dev/null"
			else
				GOMAXPROCS=$c /usr/bin/time -f '%U %S' -o "$tmp/scal.t" "$bin" -q "$in" >/dev/null
			fi
			echo $(($(date +%s%N) - t0)) | awk '{printf "%.3f\n", $1 / 1e9}' >>"$tmp/scal.$c.wall"
			awk '{print $1+$2}' "$tmp/scal.t" >>"$tmp/scal.$c.cpu"
		done
	done
	median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
	w1=$(median "$tmp/scal.1.wall")
	printf '| GOMAXPROCS | wall median | wall best | CPU median | wall(1)/wall, medians | paired ratio median | loads |\n|---|---|---|---|---|---|---|\n'
	for c in $procs pipe; do
		w=$(median "$tmp/scal.$c.wall")
		name="$c"
		[ "$c" = pipe ] && name="pipe: cat FILE, all CPUs"
		paste -d' ' "$tmp/scal.1.wall" "$tmp/scal.$c.wall" | awk '{print $1 / $2}' >"$tmp/scal.$c.paired"
		printf '| %s | %.3f s | %.3f s | %.2f s | %.2f | %.2f | %s |\n' "$name" "$w" "$(sort -n "$tmp/scal.$c.wall" | head -1)" \
			"$(median "$tmp/scal.$c.cpu")" "$(awk -v a="$w1" -v b="$w" 'BEGIN{print a/b}')" "$(median "$tmp/scal.$c.paired")" \
			"$(paste -sd' ' "$tmp/scal.$c.load")"
	done

	if [ "$(nproc)" -gt 1 ]; then
		# The machine's two CPUs, round by round (measured apart from the
		# ratio at 2, they do not say which of its rounds had both).
		printf 'two GOMAXPROCS=1 copies at once: 2 x wall(one) / wall(two), median %.2f, rounds %s\n' \
			"$(median "$tmp/scal.two.cap")" "$(sort -n "$tmp/scal.two.cap" | awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1}')"
	fi
}

if [ "${ONLY:-}" = peers ]; then
	peers
	exit 0
elif [ "${ONLY:-}" = scaling ]; then
	scaling
	exit 0
fi
measure "folded" "$bin" -q "$in"
measure "pprof" "$bin" -q -f pprof -o "$tmp/out.pb.gz" "$in"
echo "pprof output: $(stat -c %s "$tmp/out.pb.gz") bytes gzipped, $(gzip -dc "$tmp/out.pb.gz" | wc -c) bytes of protobuf"
measure "folded --off-cpu" "$bin" -q --off-cpu "$in"
# --off-cpu against plain folded, interleaved: the ratio of medians
: >"$tmp/off.plain"; : >"$tmp/off.off"
for _ in $(seq "$RUNS"); do
	for m in plain off; do
		flag=""
		[ "$m" = off ] && flag=--off-cpu
		/usr/bin/time -f '%e' -o "$tmp/off.t" "$bin" -q $flag "$in" >/dev/null
		cat "$tmp/off.t" >>"$tmp/off.$m"
	done
done
mp=$(sort -n "$tmp/off.plain" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
mo=$(sort -n "$tmp/off.off" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf 'folded vs --off-cpu, %s interleaved rounds: median %.2f s vs %.2f s (--off-cpu/plain %.2f)\n' "$RUNS" "$mp" "$mo" \
	"$(awk -v a="$mo" -v b="$mp" 'BEGIN{print a/b}')"
measure "folded (sequential reader: stdin)" sh -c "\"$bin\" -q < \"$in\""

peers

if [ -n "${OLD:-}" ]; then
	# old and new in turn, RUNS rounds: the machine's noise hits both.
	echo "old ($OLD) vs new ($bin), $RUNS interleaved rounds:"
	for mode in folded pprof stdin; do
		for b in old new; do : >"$tmp/ab.$mode.$b.wall"; : >"$tmp/ab.$mode.$b.cpu"; done
	done
	for _ in $(seq "$RUNS"); do
		for mode in folded pprof stdin; do
			for b in old new; do
				exe=$bin
				[ "$b" = old ] && exe=$OLD
				case $mode in
				folded) cmd="\"$exe\" -q \"$in\" >/dev/null" ;;
				pprof) cmd="\"$exe\" -q -f pprof -o \"$tmp/ab.pb.gz\" \"$in\"" ;;
				stdin) cmd="\"$exe\" -q <\"$in\" >/dev/null" ;;
				esac
				/usr/bin/time -f '%e %U %S' -o "$tmp/ab.t" sh -c "$cmd"
				awk '{print $1}' "$tmp/ab.t" >>"$tmp/ab.$mode.$b.wall"
				awk '{print $2+$3}' "$tmp/ab.t" >>"$tmp/ab.$mode.$b.cpu"
			done
		done
	done
	median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
	for mode in folded pprof stdin; do
		ow=$(median "$tmp/ab.$mode.old.wall") nw=$(median "$tmp/ab.$mode.new.wall")
		oc=$(median "$tmp/ab.$mode.old.cpu") nc=$(median "$tmp/ab.$mode.new.cpu")
		printf '%-8s wall median old %.2f s new %.2f s (new/old %.2f); CPU median old %.2f s new %.2f s (new/old %.2f)\n' \
			"$mode" "$ow" "$nw" "$(awk -v a="$nw" -v b="$ow" 'BEGIN{print a/b}')" \
			"$oc" "$nc" "$(awk -v a="$nc" -v b="$oc" 'BEGIN{print a/b}')"
	done
fi

scaling

# ~1 GB: the trace repeated, each copy's times shifted past the copy
# before (a trace whose time only rises, as one long recording's).
n=$(( (1000000000 + size - 1) / size ))
big=$tmp/big1g.txt
if [ ! -f "$big" ] || [ "$(stat -c %s "$big")" -lt $((n * size)) ]; then
	span=$(awk '/^[^\t]/ && match($0, / [0-9]+\.[0-9]+: /) {t = substr($0, RSTART + 1, RLENGTH - 3) + 0; if (t > m) m = t} END {printf "%d", m + 1}' "$in")
	: >"$big"
	for k in $(seq 0 $((n - 1))); do
		awk -v off=$((k * span)) '/^[^\t]/ && match($0, / [0-9]+\.[0-9]+: /) {
			t = substr($0, RSTART + 1, RLENGTH - 3) + off
			$0 = substr($0, 1, RSTART) sprintf("%.6f", t) substr($0, RSTART + RLENGTH - 2)
		} {print}' "$in" >>"$big"
	done
fi
size=$(stat -c %s "$big")
echo "input: $big ($((size / 1000000)) MB, $n copies, times rising)"
RUNS=1 measure "folded 1 GB" "$bin" -q "$big"
RUNS=1 measure "folded 1 GB, GOMAXPROCS=1" env GOMAXPROCS=1 "$bin" -q "$big"
RUNS=1 measure "folded 1 GB, stdin" sh -c "\"$bin\" -q < \"$big\""
RUNS=1 measure "pprof 1 GB" "$bin" -q -f pprof -o "$tmp/out.pb.gz" "$big"
rm -f "$big"

if [ -n "$data" ]; then
	# perf script into /dev/null, cat, a reader that only drains the pipe
	# the way wallfold reads it (internal/fileio's pipe_linux.go with a
	# main that discards),
	# and wallfold: $RUNS interleaved rounds. For each: the whole
	# pipeline's wall time, perf script's own CPU and system time (what the
	# pipe and its reader cost the writer), and the tail: how long the
	# pipeline runs on after perf script has exited.
	drain=$tmp/drain
	mkdir -p "$drain/src"
	sed 's/^package fileio$/package main/' internal/fileio/pipe_linux.go >"$drain/src/pipe_linux.go"
	printf 'module drain\n\ngo 1.26\n' >"$drain/src/go.mod"
	printf '%s\n' 'package main' '' 'import (' '	"io"' '	"os"' ')' '' 'func main() {' \
		'	in := StdinPipe(os.Stdin)' '	buf := make([]byte, 128<<10)' '	for {' \
		'		if _, err := in.Read(buf); err == io.EOF {' '			return' '		} else if err != nil {' \
		'			os.Exit(1)' '		}' '	}' '}' >"$drain/src/main.go"
	(cd "$drain/src" && $GO build -o "$drain/drain" .)
	echo "perf script on $data ($RUNS interleaved rounds):"
	ps="perf script --show-switch-events --show-task-events -i $data"
	labels="devnull cat drain wallfold"
	for l in $labels; do : >"$tmp/pipe.$l.wall"; : >"$tmp/pipe.$l.cpu"; : >"$tmp/pipe.$l.sys"; : >"$tmp/pipe.$l.tail"; done
	for _ in $(seq "$RUNS"); do
		for l in $labels; do
			case $l in
			devnull) sink=">/dev/null" ;;
			cat) sink="| cat >/dev/null" ;;
			drain) sink="| $drain/drain" ;;
			wallfold) sink="| $bin -q >/dev/null" ;;
			esac
			s0=$(date +%s.%N)
			bash -c "{ /usr/bin/time -f '%U %S' -o $tmp/pipe.t $ps 2>/dev/null; date +%s.%N >$tmp/pipe.end; } $sink"
			s1=$(date +%s.%N)
			awk -v a="$s0" -v b="$s1" 'BEGIN{print b-a}' >>"$tmp/pipe.$l.wall"
			awk -v e="$(cat "$tmp/pipe.end")" -v b="$s1" 'BEGIN{print b-e}' >>"$tmp/pipe.$l.tail"
			awk '{print $1+$2}' "$tmp/pipe.t" >>"$tmp/pipe.$l.cpu"
			awk '{print $2}' "$tmp/pipe.t" >>"$tmp/pipe.$l.sys"
		done
	done
	for l in $labels; do
		case $l in
		devnull) name="perf script > /dev/null" ;;
		cat) name="perf script | cat > /dev/null" ;;
		drain) name="perf script | drain (pipe reader only)" ;;
		wallfold) name="perf script | wallfold > /dev/null" ;;
		esac
		printf '%-40s wall %s s; perf script CPU %s s, system %s s; tail %s s\n' "$name" "$(stats "$tmp/pipe.$l.wall")" \
			"$(stats "$tmp/pipe.$l.cpu")" "$(stats "$tmp/pipe.$l.sys")" "$(stats "$tmp/pipe.$l.tail")"
	done
fi

#!/usr/bin/env bash
# Opt-in check (make pyroscope-check, not make test): wallfold's pprof
# profiles pushed to a real Grafana Pyroscope server on 127.0.0.1 with
# profilecli upload (the push API Alloy uses), queried back and compared
# with what wallfold wrote. One PASS/FAIL line per check; exit 1 on any
# failure.
#
#   scripts/pyroscope-check.sh     # KEEP=1: keep the temp dir (server logs)
#
# Needs go and curl, and the Go module proxy the first time: the server
# and profilecli are built from the module source (PYRO_VERSION, default
# v1.12.0) and cached in $CACHE (~/.cache/wallfold-pyroscope). `go install
# .../cmd/pyroscope@VERSION` cannot do it: the module's go.mod has replace
# directives (its ./api submodule is not in the module zip), so the api
# module comes from the proxy (PYRO_API_VERSION) instead.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
PYRO_VERSION=${PYRO_VERSION:-v1.12.0}
PYRO_API_VERSION=${PYRO_API_VERSION:-v1.1.0}
CACHE=${CACHE:-$HOME/.cache/wallfold-pyroscope}
bin=$CACHE/pyroscope-$PYRO_VERSION

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wallfold-pyroscope.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

fails=0
where= # the server, for the PASS/FAIL lines
pass() { echo "PASS $where$*"; }
fail() { echo "FAIL $where$*"; fails=$((fails + 1)); }

# build: the server and profilecli, once.
if [ ! -x "$bin/pyroscope" ] || [ ! -x "$bin/profilecli" ]; then
	echo "building pyroscope $PYRO_VERSION (a few minutes, once) into $bin"
	dir=$($GO mod download -json "github.com/grafana/pyroscope@$PYRO_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	src=$tmp/src
	cp -r "$dir" "$src"
	chmod -R u+w "$src"
	(
		cd "$src"
		rm -f go.work go.work.sum
		export GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=mod"
		$GO mod edit -dropreplace=github.com/grafana/pyroscope/api -require="github.com/grafana/pyroscope/api@$PYRO_API_VERSION"
		mkdir -p "$bin.tmp"
		$GO build -o "$bin.tmp/" ./cmd/pyroscope ./cmd/profilecli
	)
	rm -rf "$bin" && mv "$bin.tmp" "$bin"
fi
cli=$bin/profilecli
$GO build -o "$tmp/wallfold" .
$GO build -o "$tmp/pproftotals" ./scripts/pproftotals
wf=$tmp/wallfold
tot=$tmp/pproftotals

free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}

# start NAME FLAGS...: a single-binary server on 127.0.0.1 (in-memory
# rings, filesystem storage in $tmp/NAME), ready; sets url.
start() {
	local name=$1 a=127.0.0.1 http grpc s
	shift
	http=$(free_port) grpc=$(free_port)
	local r=(-ring.store=inmemory)
	for s in distributor compactor overrides-exporter query-scheduler; do
		r+=("-$s.ring.store=inmemory" "-$s.ring.instance-addr=$a")
	done
	"$bin/pyroscope" -server.http-listen-address=$a -server.http-listen-port="$http" \
		-server.grpc-listen-address=$a -server.grpc-listen-port="$grpc" \
		-storage.backend=filesystem -storage.filesystem.dir="$tmp/$name/bucket" \
		-pyroscopedb.data-path="$tmp/$name/db" "${r[@]}" \
		-store-gateway.sharding-ring.store=inmemory -store-gateway.sharding-ring.instance-addr=$a \
		-ingester.lifecycler.addr=$a -query-frontend.instance-addr=$a \
		-memberlist.bind-addr=$a -memberlist.advertise-addr=$a \
		-ingester.min-ready-duration=0s -self-profiling.disable-push=true \
		-usage-stats.enabled=false "$@" >"$tmp/$name.log" 2>&1 &
	pids+=($!)
	url=http://$a:$http
	for _ in $(seq 120); do
		if [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/ready")" = 200 ]; then
			echo "server $name: $url $*"
			where="[$name] "
			return
		fi
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.5
	done
	tail -20 "$tmp/$name.log"
	fail "server $name did not become ready"
	exit 1
}

# upload TRACE FILE...: one push of FILEs with labels service_name and
# trace; prints the server's message on failure.
upload() {
	local trace=$1
	shift
	"$cli" upload --url="$url" --extra-labels=service_name=wallfold-check \
		--extra-labels=trace="$trace" "$@" >"$tmp/upload.log" 2>&1
}
upload_msg() { grep -v 'level=info' "$tmp/upload.log" | tr '\n' ' '; }

unset_all() { local k; for k in $(compgen -v "$1_"); do unset "$k"; done; }

# get VAR ARGS...: pproftotals ARGS' answers (from, to, total_wall, ...)
# as VAR_from, VAR_total_wall, ... (and no other VAR_*).
get() {
	local var=$1 k v
	shift
	unset_all "$var"
	while IFS== read -r k v; do
		printf -v "${var}_$k" %s "$v"
	done < <("$tot" "$@")
}

n=0
# merged VAR TRACE TYPE [SELECTOR]: the queried profile of TYPE (wall,
# cpu, samples) over exp's window, its totals as VAR_*.
merged() {
	local var=$1 trace=$2 type=$3 sel=${4:-} unit=nanoseconds out
	unset_all "$var"
	[ "$type" = samples ] && unit=count
	n=$((n + 1))
	out=$tmp/q$n.pb.gz
	"$cli" query merge --url="$url" --from=$((exp_from - 60)) --to=$((exp_to + 60)) \
		--query="{service_name=\"wallfold-check\",trace=\"$trace\"$sel}" \
		--profile-type="process_cpu:$type:$unit:cpu:nanoseconds" \
		--output=pprof="$out" 2>"$tmp/query.log" || { cat "$tmp/query.log"; return 1; }
	get "$var" -share=serial_phase "$out"
}

# label_values NAME TRACE: the values of label NAME, comma-separated.
label_values() {
	curl -sS -H 'Content-Type: application/json' \
		-d "{\"name\":\"$1\",\"matchers\":[\"{service_name=\\\"wallfold-check\\\",trace=\\\"$2\\\"}\"],\"start\":$(((exp_from - 60) * 1000)),\"end\":$(((exp_to + 60) * 1000))}" \
		"$url/querier.v1.QuerierService/LabelValues" | sed 's/.*"names":\[\(.*\)\].*/\1/; s/[" ]//g'
}

# totals TRACE FILE...: after an upload of FILEs, their wall, cpu and
# sample totals queried back equal what wallfold wrote.
totals() {
	local trace=$1 t e g
	shift
	get exp -share=serial_phase "$@"
	for t in wall cpu samples; do
		e=exp_total_$t g=got_total_$t
		merged got "$trace" "$t" || true
		if [ "${!g:-none}" = "${!e}" ]; then
			pass "$trace: $t total ${!e} queried back"
		else
			fail "$trace: $t total: wrote ${!e}, queried back ${!g:-nothing}"
		fi
	done
}

W=testdata
"$wf" -q -f pprof -o "$tmp/phases.pb.gz" $W/traces/phases.txt
"$wf" -q -f pprof -o "$tmp/build.pb.gz" $W/traces/build.txt.gz
"$wf" -q -f pprof --split=1s -o "$tmp/split.pb.gz" $W/traces/build.txt.gz
"$wf" -q --off-cpu -f pprof -o "$tmp/sleep.pb.gz" $W/offcpu/sleep.sched.txt.gz
"$wf" -q -f pprof --start="$(($(date +%s) - 7200))" -o "$tmp/old.pb.gz" $W/traces/phases.txt
splits=("$tmp"/split-*.pb.gz)

start default
for tr in phases build sleep; do
	if upload $tr "$tmp/$tr.pb.gz"; then pass "$tr: upload accepted"; else fail "$tr: upload rejected: $(upload_msg)"; fi
done
if upload split "${splits[@]}"; then
	pass "build --split=1s: one upload of ${#splits[@]} files accepted"
else
	fail "build --split=1s: upload rejected: $(upload_msg)"
fi

totals phases "$tmp/phases.pb.gz"
merged got phases wall || true
if awk -v s="${got_share_wall:-0}" 'BEGIN { exit !(s >= 49 && s <= 51) }'; then
	pass "phases: serial_phase ${got_share_wall} % of wall (cpu: $exp_share_cpu %)"
else
	fail "phases: serial_phase ${got_share_wall:-?} % of wall, want 50 ± 1"
fi
v=$(label_values parallelism phases)
[ "$v" = 1,2 ] && pass "phases: label parallelism values $v" || fail "phases: label parallelism values '$v', want 1,2"
get exp -label=parallelism=1 "$tmp/phases.pb.gz"
merged got phases wall ',parallelism="1"' || true
[ "${got_total_wall:-}" = "$exp_total_wall" ] &&
	pass "phases: {parallelism=\"1\"} wall $exp_total_wall" ||
	fail "phases: {parallelism=\"1\"} wall: wrote $exp_total_wall, queried back ${got_total_wall:-nothing}"

totals build "$tmp/build.pb.gz"
echo "INFO build.pb.gz: $exp_samples samples, $exp_raw_bytes bytes before gzip (default limits 16000, 4194304)"
totals split "${splits[@]}"

totals sleep "$tmp/sleep.pb.gz"
v=$(label_values state sleep)
[ "$v" = blocked,runnable ] && pass "sleep --off-cpu: label state values $v" || fail "sleep --off-cpu: label state values '$v', want blocked,runnable"
get exp -label=state=blocked "$tmp/sleep.pb.gz"
merged got sleep wall ',state="blocked"' || true
[ "${got_total_wall:-}" = "$exp_total_wall" ] &&
	pass "sleep --off-cpu: {state=\"blocked\"} wall $exp_total_wall" ||
	fail "sleep --off-cpu: {state=\"blocked\"} wall: wrote $exp_total_wall, queried back ${got_total_wall:-nothing}"

# A trace recorded 2 h ago (--start, or perf's "# captured on" header) is
# outside the default ingestion window (-validation.reject-older-than=1h).
if upload old "$tmp/old.pb.gz"; then
	fail "phases --start=2h ago: accepted; expected outside the ingestion window"
else
	pass "phases --start=2h ago: rejected as expected: $(upload_msg)"
fi

# Limits below build.pb.gz (8307 samples, 588 KB; a 57 s go build -a
# trace is ~33 k samples, 5.6 MB: over the defaults): the whole profile is
# rejected, its --split=1s windows are not.
for lim in -validation.max-profile-stacktrace-samples=4000 -validation.max-profile-size-bytes=262144; do
	start "${lim#-validation.}" "$lim"
	if upload build "$tmp/build.pb.gz"; then
		fail "build.pb.gz accepted; expected rejected"
	else
		pass "build.pb.gz rejected as expected: $(upload_msg)"
	fi
	if upload split "${splits[@]}"; then
		pass "build --split=1s: ${#splits[@]} files accepted"
		totals split "${splits[@]}"
	else
		fail "build --split=1s: rejected: $(upload_msg)"
	fi
done

if [ "$fails" -gt 0 ]; then
	echo "pyroscope-check: $fails failed (KEEP=1 keeps the server logs)"
	exit 1
fi
echo "pyroscope-check: all passed (Pyroscope $PYRO_VERSION)"

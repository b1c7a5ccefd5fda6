# wallfold: make demo (see the point), make test (all tests but the long
# seed sweep), make test-long (that sweep).
GO ?= go
DEMO ?= testdata/traces/phases.txt
PREFIX ?= /usr/local

.PHONY: all build install test test-long demo fuzz bench clean pyroscope-check speedscope-check pg-check

all: build

# CGO_ENABLED=0: a static binary. kong imports os/user, which with cgo
# links libc, and each run then starts through the dynamic loader: an
# empty input took 19.2 ms and 726 page faults that way, 16.6 ms and 667
# static (perf stat, 9 interleaved rounds of 10).
build:
	CGO_ENABLED=0 $(GO) build -o wallfold .

# make install [PREFIX=/usr/local]: the binary into $(PREFIX)/bin.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 wallfold $(DESTDIR)$(PREFIX)/bin/wallfold

# housecheck: the house rules (files, functions, structs); -short leaves out
# TestGeneratorSeeds's sweep (make test-long runs it).
test:
	@echo "make test: gofmt, vet, housecheck, then go test -short: about 1-1.5 minutes on 2 busy cores, quiet until each package ends"
	@f=$$("$$($(GO) env GOROOT)/bin/gofmt" -l .); test -z "$$f" || { echo "$$f"; echo "not gofmt-formatted: gofmt -w them"; exit 1; }
	$(GO) vet ./...
	$(GO) run ./scripts/housecheck .
	$(GO) test -short -count=1 ./...

# make test-long [SEEDS=8]: the generator tests with TestGeneratorSeeds's
# sweep, its limits asserted over SEEDS simulations and writer seeds per
# workload and variant, so that a limit met is not one seed's luck; -v
# prints the tables. Minutes: test leaves the sweep out.
SEEDS ?= 8
test-long:
	$(GO) test -count=1 -v -run '^TestGenerator' . -args -gen.seeds=$(SEEDS)

# The main job on a shipped trace: its functions by wall time beside CPU
# time (-f top). phases: serial_phase runs alone 1 s, parallel_work on 2
# threads for 1 s. The CPU profile says serial_phase is a third; the wall
# clock says it is half of the wait.
demo: build
	@./scripts/demo.sh $(DEMO)

# Go benchmarks (parse, state, whole pipeline; MB/s), then throughput and
# peak RSS on a large input: make bench [BENCH_INPUT=trace.txt] [BENCH_DATA=perf.data]
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	./scripts/bench.sh $(BENCH_INPUT) $(BENCH_DATA)

# Opt-in, not part of test: push pprof profiles of shipped traces to a
# real Grafana Pyroscope on 127.0.0.1 and query them back (built from the
# Go module proxy into ~/.cache/wallfold-pyroscope the first time).
pyroscope-check:
	./scripts/pyroscope-check.sh

# Opt-in: speedscope (npm) imports -f trace in a headless Chromium.
speedscope-check:
	./scripts/speedscope-check.sh testdata/traces/phases.txt docs/trace-speedscope.png

clean:
	rm -f wallfold

# Long fuzzing (make test runs the seed corpora only). FUZZTIME per target.
FUZZTIME ?= 3m
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./parse
	$(GO) test -run '^$$' -fuzz '^FuzzPipeline$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s .
	$(GO) test -run '^$$' -fuzz '^FuzzConservation$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s .

# Opt-in: Debian's PostgreSQL in a temp dir under pgbench, recorded with
# every switch-out's stack; the backends' wall per transaction against
# pgbench's latency, split into its parts, and what recording costs in tps
# (scripts/pg-check.sh: SCALE, CLIENTS, SECS, ROUNDS, KEEP=1).
pg-check:
	./scripts/pg-check.sh

package main

// Trace text for the tests: made up for a case, or a shipped trace
// changed, or read with plain regexps (independently of the parser under
// test).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rv builds a perf script text trace, system-wide in -F +pid style
// ("comm pid/tid [cpu] time: ..."); times in µs from 100 s.
type rv struct{ b strings.Builder }

// head writes a record's header: who, where, when.

func (r *rv) head(comm string, pid, tid, cpu int, us int64) {
	fmt.Fprintf(&r.b, "%s %6d/%-6d [%03d] %d.%06d: ", comm, pid, tid, cpu, 100+us/1e6, us%1e6)
}

// sample writes a cpu-clock sample of 1 ms, its stack fn called by main.
func (r *rv) sample(comm string, pid, tid, cpu int, us int64, fn string) {
	r.head(comm, pid, tid, cpu, us)
	fmt.Fprintf(&r.b, "   1000000 cpu-clock: \n\t            1205 %s+0x44 (/work/x)\n\t            1230 main+0x9 (/work/x)\n\n", fn)
}

// sw writes a CPU-wide switch record: out (to peer) or in (from peer).
func (r *rv) sw(comm string, pid, tid, cpu int, us int64, out bool, peer int) {
	r.head(comm, pid, tid, cpu, us)
	if out {
		fmt.Fprintf(&r.b, "PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid: %5d/%-5d\n", peer, peer)
	} else {
		fmt.Fprintf(&r.b, "PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid: %5d/%-5d\n", peer, peer)
	}
}

// line writes a side-band record, rec after the header.
func (r *rv) line(comm string, pid, tid, cpu int, us int64, rec string) {
	r.head(comm, pid, tid, cpu, us)
	r.b.WriteString(rec + "\n")
}

// file writes the trace to a file of its own and returns its path.
func (r *rv) file(t *testing.T) string {
	t.Helper()
	return writeTrace(t, "trace.txt", []byte(r.b.String()))
}

// exitTail is one single-threaded process (pid 5) of a CPU-wide trace,
// as every cc1, as and ld of testdata/offcpu/make.txt.gz: SWITCH IN at
// 1 ms, a sample every ms, EXIT at 10.2 ms, optionally one more sample
// after it (10.4 ms), and its last SWITCH_CPU_WIDE OUT at 10.7 ms, as
// perf writes it after the EXIT.
func exitTail(postExitSample bool) *rv {
	r := &rv{}
	r.sw("work", 5, 5, 0, 1000, false, 0)
	for i := int64(1); i <= 9; i++ {
		r.sample("work", 5, 5, 0, 1000+i*1000, "spin")
	}
	r.line("work", 5, 5, 0, 10200, "PERF_RECORD_EXIT(5:5):(1:1)")
	if postExitSample {
		r.sample("work", 5, 5, 0, 10400, "exit_mmap")
	}
	r.sw("work", 5, 5, 0, 10700, true, 0)
	return r
}

// rewrite writes a transformed copy of a trace and returns its path.
func rewrite(t *testing.T, name string, f func(lines []string) []string) string {
	t.Helper()
	b, err := os.ReadFile(trace(name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	return writeTrace(t, name, []byte(strings.Join(f(lines), "\n")))
}

// writeTrace writes text to a file called name in a directory of its own
// and returns its path.
func writeTrace(t testing.TB, name string, text []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// dropLines is an edit for rewrite: the lines that match re go.
func dropLines(re string) func([]string) []string {
	rx := regexp.MustCompile(re)
	return func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if !rx.MatchString(l) {
				out = append(out, l)
			}
		}
		return out
	}
}

// perfTimes returns the first and last timestamps of a trace, counted
// here: the records' "SECONDS.FRAC:" fields.
func perfTimes(t *testing.T, path string) (first, last int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\S.*? (\d+)\.(\d{6,9}):`)
	first = -1
	for _, m := range re.FindAllSubmatch(b, -1) {
		ns := parseNs(string(m[1]), string(m[2]))
		if ns == 0 {
			continue // perf's synthesized records
		}
		if first < 0 || ns < first {
			first = ns
		}
		last = max(last, ns)
	}
	return first, last
}

// parseNs is the time SECONDS.FRAC in ns (FRAC of up to 9 digits).
func parseNs(sec, frac string) int64 {
	var s, f int64
	for _, c := range sec {
		s = s*10 + int64(c-'0')
	}
	frac = (frac + "000000000")[:9]
	for _, c := range frac {
		f = f*10 + int64(c-'0')
	}
	return s*1e9 + f
}

// goodSample is one well-formed sample, made after one of phases.txt's
// (its stack shortened, its DSO path too).
const goodSample = "phases  5756   273.126215:    1001001 cpu-clock: \n" +
	"\t            1205 spin_for+0x44 (/work/phases)\n" +
	"\t            1230 serial_phase+0x9 (/work/phases)\n\n"

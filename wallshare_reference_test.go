package main

// An independent count of one frame's share of a per-task trace's wall
// clock, to judge a live recording against the truth of that recording
// (a busy machine changes the truth). Standard library only, plus the
// plain regexps of offcpu_reference_test.go: no state of the package
// under test.

import (
	"bufio"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/internal/testtrace"
)

// refWall is what refWallShare counted.
type refWall struct {
	Share    float64 // frame's share of Σ period/parallelism, in %
	CPUShare float64 // frame's share of Σ period, in % (the CPU profile)
	Wall     float64 // Σ period/parallelism (ns)
	Period   float64 // the longest period (ns): one sample at parallelism 1
	Samples  int     // cpu-clock samples
	MeanPar  float64 // Σ period / Σ period/parallelism
	Lost     int     // PERF_RECORD_LOST lines: the records do not tell all
}

// Grain is one sample at parallelism 1, in % of the wall.
func (r refWall) Grain() float64 { return 100 * r.Period / r.Wall }

// refWallShare reads perf script text of a per-task recording (switch
// and task events, no CPU column) in print order, which is time order.
// A thread is on a CPU from a SWITCH IN or one of its samples until its
// SWITCH OUT (preempt or not) or EXIT; a sample's parallelism is the
// number of threads on a CPU then, itself included, but for a thread
// whose records around that moment are more than 3 sampling periods
// apart while others' came: it was not running (the silence limit the
// README states; a VM's stolen CPU leaves a thread switched in and
// silent for 10 ms, seen in one recording of 6: stolen.txt.gz).
func refWallShare(tb testing.TB, text, frame string) refWall {
	tb.Helper()
	recs, lost := refRecords(tb, text, frame)
	signs := map[int][]float64{} // each thread's records' times (s)
	var period float64           // ns
	for _, rc := range recs {
		signs[rc.tid] = append(signs[rc.tid], rc.t)
		period = max(period, rc.period)
	}
	seen := map[int]int{} // each thread's records so far
	// silent: tid's records around now are more than 3 periods apart
	silent := func(tid int, now float64) bool {
		ts, n := signs[tid], seen[tid]
		if n == 0 || n >= len(ts) {
			return true // none before, or none after: not running here
		}
		return ts[n]-ts[n-1] > 3*period/1e9 && ts[n] > now
	}
	on, dead := map[int]bool{}, map[int]bool{}
	r := refWall{Lost: lost, Period: period}
	var wall, wallIn, cpu, cpuIn float64
	for _, rc := range recs {
		seen[rc.tid]++
		switch rc.kind {
		case 'i', 'o':
			if !dead[rc.tid] {
				on[rc.tid] = rc.kind == 'i'
			}
			continue
		case 'x':
			on[rc.tid], dead[rc.tid] = false, true
			continue
		}
		if dead[rc.tid] {
			continue
		}
		on[rc.tid] = true
		running := 1
		for tid, v := range on {
			if v && tid != rc.tid && !silent(tid, rc.t) {
				running++
			}
		}
		w := rc.period / float64(running)
		wall += w
		cpu += rc.period
		r.Samples++
		if rc.hit {
			wallIn += w
			cpuIn += rc.period
		}
	}
	if wall > 0 {
		r.Share, r.CPUShare, r.Wall, r.MeanPar = 100*wallIn/wall, 100*cpuIn/cpu, wall, cpu/wall
	}
	return r
}

// refRecord is a record refWallShare counts: a cpu-clock sample ('s',
// hit: its stack has the frame), a SWITCH IN ('i') or OUT ('o'), an EXIT
// ('x'), with its time in s.
type refRecord struct {
	kind      byte
	tid       int
	t, period float64
	hit       bool
}

// refRecords reads the records of text, and how many LOST lines it has.
func refRecords(tb testing.TB, text, frame string) (recs []refRecord, lost int) {
	tb.Helper()
	inSample := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			inSample = false
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			// a frame: "addr symbol+0xoff (dso)"
			if f := strings.Fields(line); inSample && len(f) >= 2 {
				if sym, _, _ := strings.Cut(f[1], "+0x"); sym == frame {
					recs[len(recs)-1].hit = true
				}
			}
			continue
		}
		inSample = false
		m := refHeaderRE.FindStringSubmatch(line)
		if m == nil || strings.Trim(m[5]+m[6], "0") == "" {
			continue // not a record, or perf's synthesized ones at 0
		}
		tid := refAtoi(m[2])
		if m[3] != "" {
			tid = refAtoi(m[3])
		}
		at := float64(refAtoi(m[5])) + float64(refAtoi(m[6]))/1e6
		rest := m[7]
		switch {
		case strings.HasPrefix(rest, "PERF_RECORD_SWITCH"):
			s := refSwitchRE.FindStringSubmatch(rest)
			if s == nil {
				tb.Fatalf("bad switch record %q", line)
			}
			kind := byte('o')
			if s[2] == "IN" {
				kind = 'i'
			}
			recs = append(recs, refRecord{kind: kind, tid: tid, t: at})
		case strings.HasPrefix(rest, "PERF_RECORD_EXIT"):
			recs = append(recs, refRecord{kind: 'x', tid: tid, t: at})
		case strings.HasPrefix(rest, "PERF_RECORD_LOST"):
			lost++
		case strings.HasPrefix(rest, "PERF_RECORD_"):
		default:
			s := refSampleRE.FindStringSubmatch(rest)
			if s == nil || !strings.HasPrefix(s[2], "cpu-clock") {
				continue
			}
			recs = append(recs, refRecord{kind: 's', tid: tid, t: at, period: float64(refAtoi(s[1]))})
			inSample = true
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return recs, lost
}

// The reference on the shipped traces with known answers
// (testdata/traces/README.md). Only traces with task events: without
// EXIT records it cannot tell when a thread ends.
func TestRefWallShare(t *testing.T) {
	for _, tt := range []struct {
		trace, frame string
		wall, cpu    float64 // designed shares, in %
	}{
		{"phases.txt", "serial_phase", 50, 100.0 / 3},
		{"phases.pid.txt", "serial_phase", 50, 100.0 / 3},
		{"phases2.txt", "serial_phase", 37.5, 23.1},
		{"phases3.txt", "serial_phase", 80, 66.7},
		{"sleepy.txt", "serial_phase", 66.7, 50},
		{"gophases.txt", "main.serialPhase", 50, 100.0 / 3},
		{"procs.txt", "spin_a", 50, 37}, // CPU: the shell's samples dilute it
		{"procs2.txt", "spin_a", 33.3, 20},
	} {
		needFile(t, trace(tt.trace))
		b, err := os.ReadFile(trace(tt.trace))
		if err != nil {
			t.Fatal(err)
		}
		r := refWallShare(t, string(b), tt.frame)
		t.Logf("%-15s %-17s wall %.2f %% (designed %.1f), cpu %.2f %% (%.1f), %d samples, mean parallelism %.3f",
			tt.trace, tt.frame, r.Share, tt.wall, r.CPUShare, tt.cpu, r.Samples, r.MeanPar)
		// 0.5 points: the recordings' own noise (start-up, the workers
		// not starting at once); measured within 0.45 of the design
		if math.Abs(r.Share-tt.wall) > 0.5 || math.Abs(r.CPUShare-tt.cpu) > 0.5 {
			t.Errorf("%s: %s wall %.2f %%, cpu %.2f %%; designed %.1f, %.1f ± 0.5", tt.trace, tt.frame, r.Share, r.CPUShare, tt.wall, tt.cpu)
		}
	}
}

// stolen.txt.gz is a TestRecord recording (phases 0.3 0.6 2 0) in which
// one worker, switched in, has no sample for 10 ms while the other's
// samples go on (the VM took its CPU): wallfold and the reference both
// take it as not running then (3 periods of silence while others'
// records came), so their walls agree to the sample, and equal the span.
func TestRefWallShareStolenCPU(t *testing.T) {
	ref := refWallShare(t, string(testtrace.Read(t, trace("stolen.txt.gz"))), "serial_phase")
	out, _, code := wallfold(t, "-q", trace("stolen.txt.gz"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	prof := parseFolded(t, out)
	t.Logf("reference wall %.4f s, serial_phase %.2f %%; wallfold %.4f s, %.2f %%", ref.Wall/1e9, ref.Share, prof.total/1e9, prof.share("", "serial_phase"))
	if math.Abs(prof.total-ref.Wall) > ref.Period || math.Abs(prof.share("", "serial_phase")-ref.Share) > ref.Grain() {
		t.Errorf("wallfold %.0f ns, %.2f %%; the reference %.0f ns, %.2f %%: more than a sample apart", prof.total, prof.share("", "serial_phase"), ref.Wall, ref.Share)
	}
	// Counted as running through its silence, the worker would halve the
	// other's 10 samples: 5 ms less than wallfold's.
	if ref.Wall < 1.2e9 {
		t.Errorf("reference wall %.4f s: the silent worker counted as running", ref.Wall/1e9)
	}
}

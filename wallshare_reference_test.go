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
// number of threads on a CPU then, itself included.
func refWallShare(tb testing.TB, text, frame string) refWall {
	tb.Helper()
	on, dead := map[int]bool{}, map[int]bool{}
	running := 0
	set := func(tid int, v bool) {
		if dead[tid] || on[tid] == v {
			return
		}
		on[tid] = v
		if v {
			running++
		} else {
			running--
		}
	}
	var r refWall
	var wall, wallIn, cpu, cpuIn float64
	var w, period float64 // the sample being read: its weight, its period
	hit, inSample := false, false
	end := func() {
		if inSample && hit {
			wallIn += w
			cpuIn += period
		}
		inSample, hit = false, false
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			end()
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			// a frame: "addr symbol+0xoff (dso)"
			if f := strings.Fields(line); inSample && len(f) >= 2 {
				if sym, _, _ := strings.Cut(f[1], "+0x"); sym == frame {
					hit = true
				}
			}
			continue
		}
		end()
		m := refHeaderRE.FindStringSubmatch(line)
		if m == nil || strings.Trim(m[5]+m[6], "0") == "" {
			continue // not a record, or perf's synthesized ones at 0
		}
		tid := refAtoi(m[2])
		if m[3] != "" {
			tid = refAtoi(m[3])
		}
		rest := m[7]
		switch {
		case strings.HasPrefix(rest, "PERF_RECORD_SWITCH"):
			s := refSwitchRE.FindStringSubmatch(rest)
			if s == nil {
				tb.Fatalf("bad switch record %q", line)
			}
			set(tid, s[2] == "IN")
		case strings.HasPrefix(rest, "PERF_RECORD_EXIT"):
			set(tid, false)
			dead[tid] = true
		case strings.HasPrefix(rest, "PERF_RECORD_LOST"):
			r.Lost++
		case strings.HasPrefix(rest, "PERF_RECORD_"):
		default:
			s := refSampleRE.FindStringSubmatch(rest)
			if s == nil || !strings.HasPrefix(s[2], "cpu-clock") || dead[tid] {
				continue
			}
			set(tid, true)
			period = float64(refAtoi(s[1]))
			r.Period = max(r.Period, period)
			w = period / float64(running)
			wall += w
			cpu += period
			r.Samples++
			inSample = true
		}
	}
	end()
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if wall > 0 {
		r.Share, r.CPUShare, r.Wall, r.MeanPar = 100*wallIn/wall, 100*cpuIn/cpu, wall, cpu/wall
	}
	return r
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

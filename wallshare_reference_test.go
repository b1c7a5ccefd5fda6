package main

// An independent count of one frame's share of a per-task trace's wall
// clock, to judge a live recording against the truth of that recording
// (a busy machine changes the truth). Standard library only, plus the
// plain regexps of offcpu_reference_test.go: no state of the package
// under test.

import (
	"bufio"
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

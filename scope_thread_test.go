package main

// --scope=thread: every thread is a group of its own, its span its own
// life in the trace; --merge=comm tells groups with one command as one.
// On a made-up per-task trace whose every thread's time is known.

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// taskRun is a stretch a thread runs (ms from the trace's start), and how
// it ends: "out" (blocked), "preempt" (runnable) or "exit".
type taskRun struct {
	from, to float64
	end      string
}

// taskLife is a thread as the test designs it: forked at fork ms by its
// process's main thread (0: it ran before the trace), then its runs.
type taskLife struct {
	comm     string
	pid, tid int
	fork     float64
	runs     []taskRun
}

// want is what the design says of a thread, in ms: its span from its
// FORK (or first IN) to its EXIT (or last OUT), on CPU its runs, runnable
// its waits after a FORK or an OUT preempt, blocked the rest.
func (l taskLife) want() (span, on, runnable, blocked float64) {
	first, last := l.runs[0].from, l.runs[len(l.runs)-1].to
	if l.fork > 0 {
		first = l.fork
		runnable += l.runs[0].from - l.fork
	}
	for i, r := range l.runs {
		on += r.to - r.from
		if i+1 < len(l.runs) {
			if gap := l.runs[i+1].from - r.to; r.end == "preempt" {
				runnable += gap
			} else {
				blocked += gap
			}
		}
	}
	return last - first, on, runnable, blocked
}

// threadPool is three postgres processes (a postmaster that forks two
// backends, which wait for a CPU, get preempted, block, exit) and a
// worker process of four threads, one of them running before the trace,
// one never sampled (its runs are shorter than a sampling period).
func threadPool() []taskLife {
	return []taskLife{
		{"postgres", 100, 100, 0, []taskRun{{1, 4, "out"}, {30, 32, "out"}}},
		{"postgres", 200, 200, 2, []taskRun{{5, 9, "out"}, {15, 20, "preempt"}, {22, 25, "exit"}}},
		{"postgres", 300, 300, 3, []taskRun{{6, 8, "out"}, {12, 18, "preempt"}, {19, 21, "out"}, {26, 27, "exit"}}},
		{"worker", 500, 500, 0, []taskRun{{1, 6, "out"}, {28, 30, "exit"}}},
		{"worker", 500, 501, 2, []taskRun{{4, 14, "preempt"}, {16, 24, "out"}, {29, 31, "exit"}}},
		{"worker", 500, 502, 0, []taskRun{{7, 11, "preempt"}, {13, 17, "out"}}},
		{"worker", 500, 503, 5, []taskRun{{6, 6.5, "out"}, {19.5, 20, "exit"}}}, // never sampled
	}
}

// perTaskText writes lives as perf script -F +pid prints a per-task
// recording: FORK (under the parent's header), SWITCH IN, a 1 ms
// cpu-clock sample at each ms of a run (so samples cover it exactly),
// SWITCH OUT [preempt] or EXIT; times from 100 s.
func perTaskText(lives []taskLife) string {
	type rec struct {
		at   float64
		seq  int
		text string
	}
	var recs []rec
	add := func(l taskLife, tid int, at float64, s string) {
		us := int64(math.Round(at * 1000))
		recs = append(recs, rec{at, len(recs), fmt.Sprintf("%s %6d/%-6d %d.%06d: %s", l.comm, l.pid, tid, 100+us/1e6, us%1e6, s)})
	}
	for _, l := range lives {
		if l.fork > 0 {
			add(l, l.pid, l.fork, fmt.Sprintf("PERF_RECORD_FORK(%d:%d):(%d:%d)", l.pid, l.tid, l.pid, l.pid))
		}
		for _, r := range l.runs {
			add(l, l.tid, r.from, "PERF_RECORD_SWITCH IN")
			for at := r.from + 1; at <= r.to; at++ {
				add(l, l.tid, at, fmt.Sprintf("   1000000 cpu-clock: \n\t            1205 work_%d+0x44 (/x)\n\t            1230 main+0x9 (/x)\n", l.tid))
			}
			switch r.end {
			case "exit":
				add(l, l.tid, r.to, fmt.Sprintf("PERF_RECORD_EXIT(%d:%d):(%d:%d)", l.pid, l.tid, l.pid, l.pid))
			case "preempt":
				add(l, l.tid, r.to, "PERF_RECORD_SWITCH OUT preempt")
			default:
				add(l, l.tid, r.to, "PERF_RECORD_SWITCH OUT")
			}
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].at < recs[j].at })
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(r.text + "\n")
	}
	return b.String()
}

// Each thread's total in the --off-cpu profile (its samples, [runnable]
// and [blocked], under its root comm-PID/TID) is its own span, to the ns.
func TestScopeThreadTotalsAreEachThreadsSpan(t *testing.T) {
	lives := threadPool()
	path := writeTrace(t, "pool.txt", []byte(perTaskText(lives)))
	f := foldedOf(t, "--scope=thread", "--off-cpu", "--tid", path)
	total := map[string]float64{}
	for st, n := range f.lines {
		root, _, _ := strings.Cut(st, ";")
		total[root] += float64(n)
	}
	for _, l := range lives {
		span, on, runnable, blocked := l.want()
		root := fmt.Sprintf("%s-%d/%d", l.comm, l.pid, l.tid)
		got := total[root] / 1e6
		var b, r float64
		for st, n := range f.lines {
			if strings.HasPrefix(st, root+";") {
				switch {
				case strings.HasSuffix(st, ";[blocked]"):
					b += float64(n) / 1e6
				case strings.HasSuffix(st, ";[runnable]"):
					r += float64(n) / 1e6
				}
			}
		}
		t.Logf("%s: total %.3f ms (span %.0f = on %.0f + runnable %.0f + blocked %.0f); [runnable] %.3f, [blocked] %.3f", root, got, span, on, runnable, blocked, r, b)
		if math.Abs(got-span) > 1e-6 || math.Abs(r-runnable) > 1e-6 || math.Abs(b-blocked) > 1e-6 {
			t.Errorf("%s: total %.6f ms, [runnable] %.6f, [blocked] %.6f; want its span %.0f, %.0f, %.0f", root, got, r, b, span, runnable, blocked)
		}
		delete(total, root)
	}
	if len(total) > 0 {
		t.Errorf("roots of no thread: %v", total)
	}
}

// summaryEntry is a summary group's name and its split, ms as printed (s
// with 3 decimals).
type summaryEntry struct {
	name                           string
	span, on, runnable, blocked    float64
	perSpan, perOn, perRun, perBlk float64 // a merged group's per group
}

var (
	groupSpanRE = regexp.MustCompile(`^  span(?: \(sum of \d+\))?: ([0-9.]+) s = on CPU ([0-9.]+) s \([0-9.]+%\) \+ runnable ([0-9.]+) s \([0-9.]+%\) \+ blocked ([0-9.]+) s`)
	perGroupRE  = regexp.MustCompile(`^  per group \(sum / \d+\): span ([0-9.]+) s = on CPU ([0-9.]+) s \+ runnable ([0-9.]+) s \+ blocked ([0-9.]+) s`)
)

// summaryEntries reads each group of a summary: its name (the line
// before a blank one or the first), its span line and per-group line.
func summaryEntries(t *testing.T, out string) map[string]summaryEntry {
	t.Helper()
	gs := map[string]summaryEntry{}
	var cur *summaryEntry
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "..."):
			if cur != nil {
				gs[cur.name] = *cur
			}
			cur = nil
		case cur == nil:
			cur = &summaryEntry{name: l}
		case groupSpanRE.MatchString(l):
			m := groupSpanRE.FindStringSubmatch(l)
			cur.span, cur.on, cur.runnable, cur.blocked = 1e3*num(m[1]), 1e3*num(m[2]), 1e3*num(m[3]), 1e3*num(m[4])
		case perGroupRE.MatchString(l):
			m := perGroupRE.FindStringSubmatch(l)
			cur.perSpan, cur.perOn, cur.perRun, cur.perBlk = 1e3*num(m[1]), 1e3*num(m[2]), 1e3*num(m[3]), 1e3*num(m[4])
		}
	}
	if cur != nil {
		gs[cur.name] = *cur
	}
	return gs
}

// --merge=comm: the merged group's line is the sum of the separate
// groups' lines, and both are what the design says; per group is the
// sum over their count. In thread scope (7 threads: postgres 3, worker
// 4, one never sampled) and process scope (postgres 3 processes, worker
// 1).
func TestMergeCommSumsTheGroups(t *testing.T) {
	lives := threadPool()
	path := writeTrace(t, "pool.txt", []byte(perTaskText(lives)))
	for _, c := range []struct {
		scope, groupsAre string
		merged           map[string]int // comm -> groups merged
	}{
		{"thread", "threads", map[string]int{"postgres": 3, "worker": 4}},
		{"process", "processes", map[string]int{"postgres": 3}},
	} {
		t.Run(c.scope, func(t *testing.T) {
			separate := summaryEntries(t, mustRun(t, "-q", "-f", "summary", "--scope="+c.scope, "--off-cpu", "--top=20", path))
			merged := summaryEntries(t, mustRun(t, "-q", "-f", "summary", "--scope="+c.scope, "--off-cpu", "--merge=comm", "--top=20", path))
			for comm, n := range c.merged {
				var sum summaryEntry
				count := 0
				for name, g := range separate {
					if strings.Contains(name, " "+comm+" (") {
						count++
						sum.span += g.span
						sum.on += g.on
						sum.runnable += g.runnable
						sum.blocked += g.blocked
					}
				}
				// The design: the postgres processes are single-threaded,
				// so in both scopes the merged groups are these lives.
				var design summaryEntry
				for _, l := range lives {
					if l.comm == comm {
						span, on, runnable, blocked := l.want()
						design.span += span
						design.on += on
						design.runnable += runnable
						design.blocked += blocked
					}
				}
				name := fmt.Sprintf("%s: %d %s merged (--merge=comm)", comm, n, c.groupsAre)
				m, ok := merged[name]
				if !ok {
					t.Fatalf("no group %q in the merged summary: %v", name, merged)
				}
				t.Logf("%s: %d separate groups sum span %.0f = %.0f + %.0f + %.0f ms; merged %+v; design %+v", comm, count, sum.span, sum.on, sum.runnable, sum.blocked, m, design)
				if count != n {
					t.Errorf("%s: %d separate groups, want %d", comm, count, n)
				}
				if m.span != sum.span || m.on != sum.on || m.runnable != sum.runnable || m.blocked != sum.blocked {
					t.Errorf("%s merged: %+v, want the separate groups' sum %+v", comm, m, sum)
				}
				if m.span != design.span || m.on != design.on || m.runnable != design.runnable || m.blocked != design.blocked {
					t.Errorf("%s merged: %+v, want the design's %+v", comm, m, design)
				}
				if d := math.Abs(m.perSpan - m.span/float64(n)); d > 0.5 || math.Abs(m.perOn-m.on/float64(n)) > 0.5 {
					t.Errorf("%s per group: span %.0f on %.0f ms, want the sum / %d (%.1f, %.1f)", comm, m.perSpan, m.perOn, n, m.span/float64(n), m.on/float64(n))
				}
			}
		})
	}
}

// --merge=comm joins what --pid/--tid roots apart: one or the other.
func TestMergeCommRefusesPIDRoots(t *testing.T) {
	path := writeTrace(t, "pool.txt", []byte(perTaskText(threadPool())))
	for _, flag := range []string{"--pid", "--tid"} {
		_, stderr, code := wallfold(t, "--merge=comm", flag, path)
		if code != 2 || !strings.Contains(stderr, "--merge=comm") {
			t.Errorf("--merge=comm %s: exit %d, %q; want exit 2 naming both", flag, code, stderr)
		}
	}
}

// --tree would override an explicit --scope=thread or process without a
// word: the pair is refused, naming both.
func TestTreeRefusesExplicitScope(t *testing.T) {
	for _, scope := range []string{"thread", "process"} {
		_, stderr, code := wallfold(t, "--tree=make", "--scope="+scope, offTrace("make.txt.gz"))
		if code != 2 || !strings.Contains(stderr, "--tree") || !strings.Contains(stderr, "--scope="+scope) {
			t.Errorf("--scope=%s: exit %d: %s", scope, code, stderr)
		}
	}
	if _, stderr, code := wallfold(t, "--tree=make", "--scope=auto", "-o", filepath.Join(t.TempDir(), "x"), offTrace("make.txt.gz")); code != 0 {
		t.Errorf("--scope=auto: exit %d: %s", code, stderr)
	}
}

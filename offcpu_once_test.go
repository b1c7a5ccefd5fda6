package main

// Off-CPU time told once: every output's [runnable] and [blocked] totals,
// group by group, are the summary's runnable and blocked time.

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// groupLine names a summary group: "process cc1 (pid 7034)", "process
// tree of make (pid 7031, --tree)", "workload (all traced threads)".
var groupLine = regexp.MustCompile(`^(?:process .*\(pid ([0-9]+)[,)]|workload )`)

// summaryGroups is each group's (runnable, blocked) seconds from a summary
// by its pid (-1 for the workload).
func summaryGroups(t *testing.T, out string) map[int][2]float64 {
	t.Helper()
	groups := map[int][2]float64{}
	key := 0
	for _, l := range strings.Split(out, "\n") {
		if m := groupLine.FindStringSubmatch(l); m != nil {
			key = -1
			if m[1] != "" {
				key, _ = strconv.Atoi(m[1])
			}
			continue
		}
		if m := splitLine.FindStringSubmatch(l); m != nil {
			groups[key] = [2]float64{num(m[4]), num(m[6])}
		}
	}
	if len(groups) == 0 {
		t.Fatalf("no group split in the summary:\n%s", out)
	}
	return groups
}

func TestOffCPUToldOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"busy.txt.gz", nil},        // workers preempted while main is in pthread_join
		{"configure.txt.gz", nil},   // forks waiting for a first run, sh in wait4
		{"sleep.sched.txt.gz", nil}, // one thread blocked, with block stacks
		{"make.txt.gz", []string{"--tree=make"}},
		{"make.txt.gz", []string{"--scope=process"}}, // per process, system-wide
	} {
		t.Run(c.name+strings.Join(c.args, ""), func(t *testing.T) {
			path := offTrace(c.name)
			sum := summaryGroups(t, mustRun(t, append([]string{"-q", "-f", "summary", "--top=100000", path}, c.args...)...))

			p := writeProfile(t, append([]string{"--off-cpu", "--labels=state,pid", path}, c.args...)...)
			wall := sampleIndex(t, p, "wall")
			perGroup := len(sum) > 1
			prof := map[int][2]float64{}
			var profTotal [2]float64
			for _, s := range p.Sample {
				st := 0
				switch strings.Join(s.Label["state"], "") {
				case "runnable":
				case "blocked":
					st = 1
				default:
					continue
				}
				key := -1
				if perGroup && len(s.Label["pid"]) > 0 {
					key, _ = strconv.Atoi(s.Label["pid"][0])
				}
				v := prof[key]
				v[st] += float64(s.Value[wall]) / 1e9
				prof[key] = v
				profTotal[st] += float64(s.Value[wall]) / 1e9
			}
			if !perGroup {
				for k := range sum {
					prof = map[int][2]float64{k: profTotal}
				}
			}
			// The summary prints ms; the pprof values are ns.
			for k, want := range sum {
				got := prof[k]
				if math.Abs(got[0]-want[0]) > 0.0006 || math.Abs(got[1]-want[1]) > 0.0006 {
					t.Errorf("group %d: pprof [runnable] %.4f s [blocked] %.4f s, the summary says runnable %.3f s blocked %.3f s", k, got[0], got[1], want[0], want[1])
				}
			}

			// folded and -f top tell the same totals as pprof.
			b, r := offLeaves(foldedOf(t, append([]string{"--off-cpu", path}, c.args...)...))
			if math.Abs(r-profTotal[0]) > 1e-6*float64(len(p.Sample)) || math.Abs(b-profTotal[1]) > 1e-6*float64(len(p.Sample)) {
				t.Errorf("folded [runnable] %.6f s [blocked] %.6f s, pprof %.6f s %.6f s", r, b, profTotal[0], profTotal[1])
			}
			top := mustRun(t, append([]string{"-q", "-f", "top", "--top=100000", "--off-cpu", path}, c.args...)...)
			for _, l := range strings.Split(top, "\n") {
				m := topRow.FindStringSubmatch(l)
				if m == nil || (m[9] != "[runnable]" && m[9] != "[blocked]") {
					continue
				}
				got, _ := strconv.ParseFloat(m[1], 64)
				want := r
				if m[9] == "[blocked]" {
					want = b
				}
				if math.Abs(got-want) > 0.0006 {
					t.Errorf("-f top %s %.3f s, folded %.4f s", m[9], got, want)
				}
			}
		})
	}
}

package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var topRow = regexp.MustCompile(`^\s*([0-9.]+) s\s+([0-9.]+)%\s+([0-9.]+) s\s+([0-9.]+)%\s+([0-9.]+) s\s+([0-9.]+)%\s+([0-9.]+) s\s+([0-9.]+)%  (.+)$`)

// -f top gives the shares the folded output gives, for wall and for CPU.
func TestTopMatchesFolded(t *testing.T) {
	for _, name := range []string{"phases.txt", "build.txt.gz", "syswide.txt"} {
		t.Run(name, func(t *testing.T) {
			path := trace(name)
			out := mustRun(t, "-q", "-f", "top", "--top=100000", path)
			wallTotal, wallSelf := inclusive(parseFolded(t, mustRun(t, "-q", path)))
			cpuTotal, cpuSelf := inclusive(parseFolded(t, mustRun(t, "-q", "--weight=cpu", path)))
			rows := 0
			prev := math.Inf(1)
			for _, l := range strings.Split(out, "\n") {
				m := topRow.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				rows++
				f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
				fn := m[9]
				for _, c := range []struct {
					what      string
					got, want float64
				}{
					{"total wall", f(2), wallTotal[fn]}, {"self wall", f(4), wallSelf[fn]},
					{"total CPU", f(6), cpuTotal[fn]}, {"self CPU", f(8), cpuSelf[fn]},
				} {
					// folded rounds each line to a unit, top sums before rounding
					if math.Abs(c.got-c.want) > 0.01 {
						t.Errorf("%s: %s %.2f%%, folded %.2f%%", fn, c.what, c.got, c.want)
					}
				}
				if f(1) > prev+1e-9 {
					t.Errorf("%s: not sorted by total wall", fn)
				}
				prev = f(1)
			}
			if rows == 0 || rows != len(wallTotal) && rows != len(cpuTotal) {
				t.Errorf("%d rows, folded has %d functions (%d in the CPU profile)", rows, len(wallTotal), len(cpuTotal))
			}
		})
	}
	out := mustRun(t, "-q", "-f", "top", trace("build.txt.gz"))
	if n := len(topRow.FindAllString(out, -1)); strings.Count(out, "\n") != 25+3 || !strings.Contains(out, "more functions: --top=N shows N") {
		t.Errorf("default rows: %d lines (%d rows):\n%s", strings.Count(out, "\n"), n, out)
	}
}

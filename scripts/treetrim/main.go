// Command treetrim cuts a system-wide `perf script -F +pid` trace down to
// what one process tree's numbers need, so that a long recording fits in
// testdata: the records of the tree's tasks (its root and every process
// FORK records say descends from it), the CPU-wide switch records whose
// next/prev task is one of them (the other side of each of their
// switches), the records of tasks perf no longer names (pid -1), and no
// frames but the first FRAMES of each kept sample.
// Every other line is dropped. It prints how many records it kept.
//
//	go run ./scripts/treetrim -root=PID [-frames=N] < full.txt > trimmed.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

var (
	// COMM PID/TID [CPU] TIME: REST (with -F +pid)
	header = regexp.MustCompile(`^\S.*?\s+(-?\d+)/(-?\d+)\s+(?:\[\d+\]\s+)?\d+\.\d+:\s*(.*)$`)
	fork   = regexp.MustCompile(`^PERF_RECORD_(?:FORK|EXIT)\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)`)
	peer   = regexp.MustCompile(`^PERF_RECORD_SWITCH_CPU_WIDE.*(?:next|prev) pid/tid:\s*(-?\d+)/`)
)

func main() {
	root := flag.Int("root", 0, "the tree's root process")
	frames := flag.Int("frames", 0, "frames kept under each sample")
	flag.Parse()
	if *root <= 0 {
		fmt.Fprintln(os.Stderr, "treetrim: -root=PID is required")
		os.Exit(2)
	}
	in := map[int]bool{*root: true}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	keep, kept, framesLeft := false, 0, 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			if keep && (line == "" || framesLeft > 0) {
				fmt.Fprintln(out, line)
				if line != "" {
					framesLeft--
				}
			}
			continue
		}
		m := header.FindStringSubmatch(line)
		if m == nil {
			keep = false
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		rest := m[3]
		if f := fork.FindStringSubmatch(rest); f != nil {
			child, _ := strconv.Atoi(f[1])
			parent, _ := strconv.Atoi(f[3])
			if in[parent] && child > 0 {
				in[child] = true
			}
			pid = child
		}
		// pid -1: a task perf no longer names (an exited thread's last
		// switch-out): kept, since whose it was shows only beside it.
		keep = in[pid] || pid < 0
		if p := peer.FindStringSubmatch(rest); p != nil && !keep {
			other, _ := strconv.Atoi(p[1])
			keep = in[other]
		}
		if keep {
			kept++
			framesLeft = *frames
			fmt.Fprintln(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "treetrim:", err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "treetrim:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "treetrim: %d records of the tree of %d and their switches' other sides\n", kept, *root)
}

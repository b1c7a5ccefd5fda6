package emit_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wallfold/wallfold/emit"
	"github.com/wallfold/wallfold/parse"
)

// chain interns the stack names[0];...;names[n-1] (root first) by name,
// as the writers' callers build roots and leaves: InternName, Append.
func chain(s *emit.Stacks, names ...string) uint32 {
	id := s.Intern(s.InternName([]byte(names[0])), nil, false)
	for _, n := range names[1:] {
		id = s.Append(id, s.InternName([]byte(n)))
	}
	return id
}

func folded(t *testing.T, s *emit.Stacks, tot *emit.Totals, w emit.Weight) string {
	t.Helper()
	var b bytes.Buffer
	if err := emit.WriteFolded(&b, s, tot, w); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFoldedKnownLines: the lines are "root;...;leaf N", sorted bytewise
// as stackcollapse-perf.pl and inferno sort the joined lines (not frame
// by frame: "main-helper" after "main" but before "main;io"), wall
// summed then rounded once per line (half away from zero), lines whose
// wall rounds to 0 left out, CPU the plain sum of periods.
func TestFoldedKnownLines(t *testing.T) {
	s := emit.NewStacks(emit.NameOptions{})
	var tot emit.Totals
	var periods uint64
	add := func(period uint64, wall float64, names ...string) {
		tot.Add(chain(s, names...), period, wall)
		periods += period
	}
	add(10, 2.5, "app", "main", "work")
	add(6, 1.0, "app", "main", "work") // 3.5 in all: 4
	for range 3 {
		add(4, 0.3, "app", "main") // 0.9: 1, though each sample rounds to 0
	}
	add(7, 0.4, "app", "main", "io") // wall 0: no wall line
	add(1, 1, "app", "main-helper")
	add(2, 2, "App", "x")
	add(5, 5.5, "app", "main", "work", "work")
	add(3, 1.49, "app", "Zed")
	chain(s, "app", "unused") // interned, never added: no line

	wantWall := "App;x 2\n" +
		"app;Zed 1\n" +
		"app;main 1\n" +
		"app;main-helper 1\n" +
		"app;main;work 4\n" +
		"app;main;work;work 6\n"
	wantCPU := "App;x 2\n" +
		"app;Zed 3\n" +
		"app;main 12\n" +
		"app;main-helper 1\n" +
		"app;main;io 7\n" +
		"app;main;work 16\n" +
		"app;main;work;work 5\n"
	if got := folded(t, s, &tot, emit.Wall); got != wantWall {
		t.Errorf("wall:\n%s\nwant:\n%s", got, wantWall)
	}
	got := folded(t, s, &tot, emit.CPU)
	if got != wantCPU {
		t.Errorf("cpu:\n%s\nwant:\n%s", got, wantCPU)
	}
	// Conservation: every period added is on some CPU line.
	var sum uint64
	for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
		var n uint64
		fmt.Sscan(l[strings.LastIndexByte(l, ' ')+1:], &n)
		sum += n
	}
	if sum != periods {
		t.Errorf("CPU lines sum to %d, %d added", sum, periods)
	}
}

// TestFoldedInternFrames: Intern takes perf's frames leaf first and
// roots them at the name given; the same frames give the same stack;
// Prepend, Reroot and Append put a name before, instead of the root, and
// after.
func TestFoldedInternFrames(t *testing.T) {
	s := emit.NewStacks(emit.NameOptions{})
	frames := []parse.Frame{ // leaf first, as perf prints them
		{Addr: []byte("401010"), Sym: []byte("work"), DSO: []byte("/bin/app"), ID: 1},
		{Addr: []byte("401000"), Sym: []byte("main"), DSO: []byte("/bin/app"), ID: 2},
	}
	root := s.InternName([]byte("app"))
	if again := s.InternName([]byte("app")); again != root {
		t.Errorf("InternName: %d then %d for one name", root, again)
	}
	a := s.Intern(root, parse.NewStack(frames), false)
	if b := s.Intern(root, parse.NewStack(frames), false); b != a {
		t.Errorf("Intern: stack %d then %d for the same frames", a, b)
	}
	// The same frames without IDs take the keyed path: the same stack.
	plain := append([]parse.Frame(nil), frames...)
	plain[0].ID, plain[1].ID = 0, 0
	if b := s.Intern(root, parse.NewStack(plain), false); b != a {
		t.Errorf("Intern without IDs: stack %d, with them %d", b, a)
	}
	var tot emit.Totals
	tot.Add(a, 3, 0)
	tot.Add(s.Prepend(s.InternName([]byte("[parallelism 2]")), a), 1, 0)
	tot.Add(s.Reroot(a, s.InternName([]byte("app-10/11"))), 2, 0)
	tot.Add(s.Append(a, s.InternName([]byte("[blocked]"))), 4, 0)
	want := "[parallelism 2];app;main;work 1\n" +
		"app-10/11;main;work 2\n" +
		"app;main;work 3\n" +
		"app;main;work;[blocked] 4\n"
	if got := folded(t, s, &tot, emit.CPU); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Wall 0 everywhere: no wall line at all.
	if got := folded(t, s, &tot, emit.Wall); got != "" {
		t.Errorf("wall lines of zero weight:\n%s", got)
	}
}

// TestFoldedManyLines: more lines than WriteFolded sorts on one
// goroutine, added in a random order, come out in name order, each with
// its own weight.
func TestFoldedManyLines(t *testing.T) {
	const n = 6000
	s := emit.NewStacks(emit.NameOptions{})
	var tot emit.Totals
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(n) {
		tot.Add(chain(s, "main", fmt.Sprintf("w%05d", i)), uint64(i+1), float64(2*i+2))
	}
	var want, wantWall strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "main;w%05d %d\n", i, i+1)
		fmt.Fprintf(&wantWall, "main;w%05d %d\n", i, 2*i+2)
	}
	if got := folded(t, s, &tot, emit.CPU); got != want.String() {
		t.Errorf("cpu: %d bytes, want %d; first difference at line %d", len(got), want.Len(), firstDiffLine(got, want.String()))
	}
	if got := folded(t, s, &tot, emit.Wall); got != wantWall.String() {
		t.Errorf("wall: first difference at line %d", firstDiffLine(got, wantWall.String()))
	}
}

// TestFoldedSharedPrefixes: random stacks over a few names, so that
// lines share prefixes of every length, one line is another's prefix,
// and the output is over 64 KiB (written in parts): each line is its
// names joined with ';', as strings.Join makes them, sorted as strings.
func TestFoldedSharedPrefixes(t *testing.T) {
	s := emit.NewStacks(emit.NameOptions{})
	var tot emit.Totals
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "ab", "b", "main", "runtime.goexit", "x.(*T).f"}
	count := map[string]int{}
	for n := 0; n < 8000; n++ {
		stack := []string{"comm"}
		for d := rng.IntN(12); d > 0; d-- {
			stack = append(stack, names[rng.IntN(len(names))])
		}
		tot.Add(chain(s, stack...), 1, 1)
		count[strings.Join(stack, ";")]++
	}
	var want strings.Builder
	for _, line := range slices.Sorted(maps.Keys(count)) {
		fmt.Fprintf(&want, "%s %d\n", line, count[line])
	}
	if want.Len() < 1<<16 {
		t.Fatalf("%d bytes: not more than a buffer", want.Len())
	}
	if got := folded(t, s, &tot, emit.Wall); got != want.String() {
		t.Errorf("first difference at line %d", firstDiffLine(got, want.String()))
	}
}

func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// TestFoldedWriteError: the writer's error comes back.
func TestFoldedWriteError(t *testing.T) {
	s := emit.NewStacks(emit.NameOptions{})
	var tot emit.Totals
	tot.Add(chain(s, "a", "b"), 1, 1)
	boom := errors.New("disk full")
	if err := emit.WriteFolded(failWriter{boom}, s, &tot, emit.Wall); !errors.Is(err, boom) {
		t.Errorf("WriteFolded = %v, want %v", err, boom)
	}
}

package emit

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wallfold/wallfold/state"
)

// WakerNames names the wakers of wakeup records (a thread's command, or
// "interrupt"): the handles that state carries (state.Weighted.Waker,
// state.Result.Wakers), from 1; 0 is no waker.
type WakerNames struct {
	names []string
	ids   map[string]int
}

// InterruptWaker is the waker of wakeups done in interrupt or softirq
// context (a timer, a device, another CPU's IPI), whatever thread ran.
const InterruptWaker = "interrupt"

// NewWakerNames returns an empty table.
func NewWakerNames() *WakerNames { return &WakerNames{names: []string{""}, ids: map[string]int{}} }

// Intern returns the handle of a waker's name.
func (w *WakerNames) Intern(name []byte) int {
	if id, ok := w.ids[string(name)]; ok {
		return id
	}
	id := len(w.names)
	w.names = append(w.names, string(name))
	w.ids[string(name)] = id
	return id
}

// Name is the name of handle id ("" for none or unknown).
func (w *WakerNames) Name(id int) string {
	if w == nil || id <= 0 || id >= len(w.names) {
		return ""
	}
	return w.names[id]
}

// wakersShown is how many wakers a group's summary names.
const wakersShown = 4

// wakersOf returns group key's wakers (all are sorted by group).
func wakersOf(all []state.WakerTime, key int) []state.WakerTime {
	var out []state.WakerTime
	for _, w := range all {
		if w.Group == key {
			out = append(out, w)
		}
	}
	return out
}

// wakers writes who ended a group's blocked time: the blocked shares
// their wakeups ended, the most first (the same name may come from more
// than one handle only if interned twice: it does not).
func (s *summaryPrinter) wakers(g *SummaryGroup) {
	if len(g.Wakers) == 0 {
		return
	}
	var parts []string
	var rest int64
	for i, w := range g.Wakers {
		if i >= wakersShown {
			rest += w.Blocked
			continue
		}
		name := s.o.Wakers.Name(w.Waker)
		if name == "" {
			name = "?"
		}
		parts = append(parts, fmt.Sprintf("%s %.3f s (%d)", name, float64(w.Blocked)/1e9, w.Wakeups))
	}
	if n := len(g.Wakers) - wakersShown; n > 0 {
		parts = append(parts, fmt.Sprintf("%d more %.3f s", n, float64(rest)/1e9))
	}
	fmt.Fprintf(s.w, "  blocked time ended by (waker, seconds, wakeups): %s\n", strings.Join(parts, ", "))
}

// addWakers adds a group's wakers to a merged group's (--merge=comm):
// sums by waker, the most first.
func addWakers(to, from []state.WakerTime) []state.WakerTime {
	for _, w := range from {
		i := slices.IndexFunc(to, func(x state.WakerTime) bool { return x.Waker == w.Waker })
		if i < 0 {
			w.Group = 0 // the merged group's
			to = append(to, w)
			continue
		}
		to[i].Blocked += w.Blocked
		to[i].Wakeups += w.Wakeups
	}
	sort.SliceStable(to, func(i, j int) bool {
		if to[i].Blocked != to[j].Blocked {
			return to[i].Blocked > to[j].Blocked
		}
		return to[i].Waker < to[j].Waker
	})
	return to
}

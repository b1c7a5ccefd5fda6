package diff

import (
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// noComm is the root of a profile's stacks whose samples carry no comm
// label (made with --labels none).
const noComm = "[no comm]"

// FromProfile is the side of a wallfold pprof profile: its wall and CPU
// sample types (wall and cpu, or EVENT_wall and EVENT), each sample's
// stack rooted at its comm label as the folded output roots it, inlined
// frames as frames of their own.
func FromProfile(name string, pr *profile.Profile) (*Side, error) {
	wall, cpu := -1, -1
	for i, st := range pr.SampleType {
		if st.Type == "wall" || strings.HasSuffix(st.Type, "_wall") {
			wall = i
		}
	}
	if wall >= 0 {
		want := strings.TrimSuffix(pr.SampleType[wall].Type, "_wall")
		if want == "wall" {
			want = "cpu"
		}
		for i, st := range pr.SampleType {
			if st.Type == want {
				cpu = i
			}
		}
	}
	if wall < 0 || cpu < 0 {
		return nil, fmt.Errorf("%s: a pprof profile without wall and CPU sample types (it has %s): not wallfold's; give two wallfold profiles (wallfold -f pprof, wallfold record -o FILE.pb.gz) or two traces (perf script text)",
			name, typeNames(pr))
	}
	timeBased := pr.SampleType[wall].Unit == "nanoseconds"
	s := NewSide(name, pr.SampleType[cpu].Type, timeBased)
	var b strings.Builder
	for _, smp := range pr.Sample {
		if smp.Label[BaseLabel] != nil {
			return nil, fmt.Errorf("%s: a difference (samples labelled %s, as wallfold diff -f pprof and go tool pprof -diff_base make them), not a profile of one run: give the two profiles it was made of", name, BaseLabel)
		}
		b.Reset()
		if comm := smp.Label["comm"]; len(comm) > 0 {
			b.WriteString(comm[0])
		} else {
			b.WriteString(noComm)
		}
		for i := len(smp.Location) - 1; i >= 0; i-- {
			lines := smp.Location[i].Line
			for j := len(lines) - 1; j >= 0; j-- {
				b.WriteByte(';')
				if lines[j].Function != nil {
					b.WriteString(lines[j].Function.Name)
				}
			}
		}
		s.Add(b.String(), Weights{float64(smp.Value[wall]), float64(smp.Value[cpu])})
	}
	return s, nil
}

func typeNames(pr *profile.Profile) string {
	if len(pr.SampleType) == 0 {
		return "no sample types"
	}
	names := make([]string, len(pr.SampleType))
	for i, st := range pr.SampleType {
		names[i] = st.Type + "/" + st.Unit
	}
	return "sample types " + strings.Join(names, ", ")
}

// LooksLikeProfile tells a protocol buffer (a pprof profile, already
// un-gzipped) from text by its first bytes: a profile has control bytes
// (field tags, lengths) that perf script's text never prints.
func LooksLikeProfile(head []byte) bool {
	for _, c := range head {
		if c < '\t' || c > '\r' && c < ' ' || c == 0x7f {
			return true
		}
	}
	return false
}

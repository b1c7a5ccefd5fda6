// Command pproftotals prints what scripts/pyroscope-check.sh compares:
// the profiles' window (Unix seconds, rounded outwards), sample count,
// uncompressed size and the total of each sample type, summed over the
// files, as shell assignments. With -share=FUNC, also each type's share
// (percent) in samples whose stack has FUNC; with -label=KEY=VALUE, only
// samples with that label value count.
//
//	go run ./scripts/pproftotals [-share=FUNC] [-label=KEY=VALUE] FILE.pb.gz...
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

func main() {
	share := flag.String("share", "", "function whose share of each sample type to print")
	label := flag.String("label", "", "count only samples with this label value (KEY=VALUE)")
	flag.Parse()
	key, value, _ := strings.Cut(*label, "=")
	var (
		from, to     int64 = math.MaxInt64, 0
		samples, raw int
		types        []string
		total, in    = map[string]int64{}, map[string]int64{}
	)
	for _, path := range flag.Args() {
		data, err := os.ReadFile(path)
		check(err)
		n, err := rawSize(data)
		check(err)
		raw += n
		p, err := profile.ParseData(data)
		check(err)
		from = min(from, p.TimeNanos)
		to = max(to, p.TimeNanos+p.DurationNanos)
		samples += len(p.Sample)
		for _, s := range p.Sample {
			if key != "" && !slices.Contains(s.Label[key], value) {
				continue
			}
			has := *share != "" && slices.ContainsFunc(s.Location, func(l *profile.Location) bool {
				return slices.ContainsFunc(l.Line, func(ln profile.Line) bool { return ln.Function.Name == *share })
			})
			for i, v := range s.Value {
				t := p.SampleType[i].Type
				if !slices.Contains(types, t) {
					types = append(types, t)
				}
				total[t] += v
				if has {
					in[t] += v
				}
			}
		}
	}
	fmt.Printf("from=%d\nto=%d\nsamples=%d\nraw_bytes=%d\n", from/1e9, (to+1e9-1)/1e9, samples, raw)
	for _, t := range types {
		fmt.Printf("total_%s=%d\n", t, total[t])
		if *share != "" && total[t] != 0 {
			fmt.Printf("share_%s=%.2f\n", t, 100*float64(in[t])/float64(total[t]))
		}
	}
}

// rawSize is the size of a profile before gzip (what Pyroscope limits).
func rawSize(data []byte) (int, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return len(data), nil // not gzipped
	}
	n, err := io.Copy(io.Discard, zr)
	return int(n), err
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "pproftotals:", err)
		os.Exit(1)
	}
}

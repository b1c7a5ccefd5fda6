package gentrace

import "math/rand/v2"

// Workload names a ready-made Config by CPU count and seed.
type Workload struct {
	Name string
	Make func(cpus int, seed uint64) Config
}

// Workloads are the ready-made ones, each a different stress on a model.
var Workloads = []Workload{
	{"lock", LockContention},
	{"pool", IdlePool},
	{"build", ShortProcs},
	{"migrate", Migrations},
}

// LockContention: lockd's main thread runs serial_setup alone for 0.3 s,
// 32 workers then contend for a lock (0.3 ms on, 0.7 ms off: parallelism
// ≈ 9.6) until 1.5 s, and the main thread runs serial_merge alone to 1.65 s.
func LockContention(cpus int, seed uint64) Config {
	c := NewConfig("lock", cpus, 1650*Ms, seed)
	c.Parent[1000] = 1
	c.Add("lockd", 1000, 1000, 0, c.Span,
		Phase{Fn: "serial_setup", Until: 300 * Ms, Run: CPUBound},
		Phase{Fn: "join", Until: 1500 * Ms, Run: Dist{10_000, 0}, Block: Dist{1200 * Ms, 0}},
		Phase{Fn: "serial_merge", Run: CPUBound})
	for i := 1; i <= 32; i++ {
		c.Add("lockd", 1000, 1000+i, 300*Ms, 1500*Ms,
			Phase{Fn: "contend_lock", Run: Dist{3 * Ms / 10, 0.5}, Block: Dist{7 * Ms / 10, 0.5}})
	}
	return c
}

// IdlePool: one thread of pool busy all along (it yields for 0.05 ms
// every 150-450 ms, so that a switch record can name its pid) beside 128
// workers that run 0.05 ms every ~20 ms.
func IdlePool(cpus int, seed uint64) Config {
	c := NewConfig("pool", cpus, 1500*Ms, seed)
	c.Parent[2000] = 1
	c.Add("pool", 2000, 2000, 0, c.Span, Phase{Fn: "busy_loop", Run: Dist{300 * Ms, 0.5}, Block: Dist{Ms / 20, 0}})
	for i := 1; i <= 128; i++ {
		c.Add("pool", 2000, 2000+i, 0, c.Span,
			Phase{Fn: "handle_request", Run: Dist{Ms / 20, 0.2}, Block: Dist{20 * Ms, 0.5}})
	}
	return c
}

// ShortProcs: a build. make forks processes of 1-3 threads that live
// 5-50 ms (mostly on CPU), about 0.9 of the CPUs' worth at a time, so the
// machine is sometimes full (waits, preemptions).
func ShortProcs(cpus int, seed uint64) Config {
	c := NewConfig("build", cpus, 1500*Ms, seed)
	r := rand.New(rand.NewPCG(seed, 1))
	c.Parent[3000] = 1
	c.Add("make", 3000, 3000, 0, c.Span,
		Phase{Fn: "make_schedule", Run: Dist{Ms / 10, 0.5}, Block: Dist{5 * Ms, 0.5}})
	rate := 0.9 * float64(cpus) / (0.0275 * 2 * 0.87) // processes per second
	pid := 3001
	for t := int64(0); ; pid += 4 {
		t += int64(r.ExpFloat64() / rate * 1e9)
		if t > c.Span-55*Ms {
			break
		}
		life := 5*Ms + r.Int64N(45*Ms)
		comm := []string{"cc1", "as", "ld"}[r.IntN(3)]
		c.Parent[pid] = 3000
		for k := 0; k < 1+r.IntN(3); k++ {
			start, end := t, t+life
			if k > 0 { // threads start after their leader and end before it
				start, end = t+Ms/5, t+life-Ms/5
			}
			c.Add(comm, pid, pid+k, start, end,
				Phase{Fn: comm + "_parse", Until: t + life/3, Run: Dist{2 * Ms, 0.5}, Block: Dist{3 * Ms / 10, 0.5}},
				Phase{Fn: comm + "_emit", Run: Dist{2 * Ms, 0.5}, Block: Dist{3 * Ms / 10, 0.5}})
		}
	}
	return c
}

// Migrations: three enc processes of 3/8 of the CPUs' count of threads
// each, woken on a random free CPU, so they move between CPUs at almost
// every wake. Until 0.75 s two of them run motion_search: 0.1-1.9 ms
// bursts, blocking 2-38 µs (a lock handed over), with CPUs free, so a
// thread often leaves one CPU and runs on another within the ±10 µs of a
// clock skew. Then the third starts and all run entropy_code (0.2-3.8 ms
// on, 0.04-0.76 ms off) on a full machine: waits and preemptions. Three
// threads of the first start with a long CPU-bound encode_frame (0.16-0.72
// s) that nothing preempts, so without pids and task events a switch
// record names their pid only that late.
func Migrations(cpus int, seed uint64) Config {
	c := NewConfig("migrate", cpus, 1500*Ms, seed)
	c.Migrate, c.Slice = true, 3*Ms/2
	r := rand.New(rand.NewPCG(seed, 2))
	for p := 0; p < 3; p++ {
		pid, start := 4000+p*1000, int64(0)
		if p == 2 {
			start = 750 * Ms
		}
		c.Parent[pid] = 1
		for i := 0; i < cpus*3/8; i++ {
			var ph []Phase
			if p == 0 && i < 3 {
				ph = append(ph, Phase{Fn: "encode_frame", Until: 160*Ms + r.Int64N(560*Ms), Run: CPUBound})
			}
			ph = append(ph,
				Phase{Fn: "motion_search", Until: 750 * Ms, Run: Dist{Ms, 0.9}, Block: Dist{20_000, 0.9}},
				Phase{Fn: "entropy_code", Run: Dist{2 * Ms, 0.9}, Block: Dist{4 * Ms / 10, 0.9}})
			c.Add("enc", pid, pid+i, start, c.Span, ph...)
		}
	}
	return c
}

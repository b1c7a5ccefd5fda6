package parse

import (
	"testing"
)

func TestReaderSideband(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want rec
	}{
		{"SWITCH OUT preempt", "phases  5756   273.125570: PERF_RECORD_SWITCH OUT preempt\n",
			sw(side(KindSwitch, 1, "phases", -1, 5756, -1, 273125570000), true, true)},
		{"SWITCH IN with trailing spaces", "phases  5756   273.125607: PERF_RECORD_SWITCH IN         \n",
			sw(side(KindSwitch, 1, "phases", -1, 5756, -1, 273125607000), false, false)},
		{"SWITCH OUT (not preempt) with trailing spaces", "sh  5862   280.432576: PERF_RECORD_SWITCH OUT        \n",
			sw(side(KindSwitch, 1, "sh", -1, 5862, -1, 280432576000), true, false)},
		{"SWITCH IN pid/tid", "sh  5864/5864    280.432868: PERF_RECORD_SWITCH IN         \n",
			sw(side(KindSwitch, 1, "sh", 5864, 5864, -1, 280432868000), false, false)},
		{"SWITCH right-aligned comm", "          phases  5990   287.397613: PERF_RECORD_SWITCH OUT preempt\n",
			sw(side(KindSwitch, 1, "phases", -1, 5990, -1, 287397613000), true, true)},
		{"SWITCH_CPU_WIDE OUT preempt next, idle task", "swapper     0 [000]   294.332790: PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:  6027/6029 \n",
			peer(sw(side(KindSwitchCPUWide, 1, "swapper", -1, 0, 0, 294332790000), true, true), 6027, 6029)},
		{"SWITCH_CPU_WIDE IN prev", "perf  6029 [000]   294.332875: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n",
			peer(sw(side(KindSwitchCPUWide, 1, "perf", -1, 6029, 0, 294332875000), false, false), 0, 0)},
		{"SWITCH_CPU_WIDE OUT next, pid/tid", "perf  6027/6029  [000]   294.333094: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			peer(sw(side(KindSwitchCPUWide, 1, "perf", 6027, 6029, 0, 294333094000), true, false), 0, 0)},
		{"SWITCH_CPU_WIDE IN prev pid/tid nonzero, pid/tid", "phases  6028/6030  [001]   294.500000: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:  6028/6031 \n",
			peer(sw(side(KindSwitchCPUWide, 1, "phases", 6028, 6030, 1, 294500000000), false, false), 6028, 6031)},
		{"SWITCH_CPU_WIDE OUT of an unknown thread, tid -1 (syswide.txt:15765)", ":-1    -1 [001]   295.873950: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			peer(sw(side(KindSwitchCPUWide, 1, ":-1", -1, -1, 1, 295873950000), true, false), 0, 0)},
		{"SWITCH_CPU_WIDE OUT of an unknown thread, pid/-1 (syswide.pid.txt:15765)", ":-1  6028/-1    [001]   295.873950: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n",
			peer(sw(side(KindSwitchCPUWide, 1, ":-1", 6028, -1, 1, 295873950000), true, false), 0, 0)},
		{"SWITCH_CPU_WIDE IN prev tid -1 (syswide.txt:15800)", "swapper     0 [000]   295.877764: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:  6028/-1   \n",
			peer(sw(side(KindSwitchCPUWide, 1, "swapper", -1, 0, 0, 295877764000), false, false), 6028, -1)},
		{"FORK", "sh  5862/5862    280.432562: PERF_RECORD_FORK(5864:5864):(5862:5862)\n",
			parent(subject(side(KindFork, 1, "sh", 5862, 5862, -1, 280432562000), 5864, 5864), 5862, 5862)},
		{"FORK of a kernel thread with cpu at time 0", "kthreadd     0/0     [000]     0.000000: PERF_RECORD_FORK(3:3):(2:2)\n",
			parent(subject(side(KindFork, 1, "kthreadd", 0, 0, 0, 0), 3, 3), 2, 2)},
		{"EXIT of a thread, right-aligned", "          phases  5990/6010    288.896897: PERF_RECORD_EXIT(5990:6010):(5989:5989)\n",
			parent(subject(side(KindExit, 1, "phases", 5990, 6010, -1, 288896897000), 5990, 6010), 5989, 5989)},
		{"EXIT tid only", "phases  5758   274.627031: PERF_RECORD_EXIT(5756:5758):(5755:5755)\n",
			parent(subject(side(KindExit, 1, "phases", -1, 5758, -1, 274627031000), 5756, 5758), 5755, 5755)},
		{"COMM", "perf-exec     0     0.000000: PERF_RECORD_COMM: perf-exec:5756/5756\n",
			func() rec {
				r := subject(side(KindComm, 1, "perf-exec", -1, 0, -1, 0), 5756, 5756)
				r.NewComm = "perf-exec"
				return r
			}()},
		{"COMM exec", "spin  5864/5864    280.433009: PERF_RECORD_COMM exec: spin:5864/5864\n",
			func() rec {
				r := subject(side(KindComm, 1, "spin", 5864, 5864, -1, 280433009000), 5864, 5864)
				r.NewComm = "spin"
				return r
			}()},
		{"COMM with colon and slash in the new name", "kworker/0:0-mm_     0/0     [000]     0.000000: PERF_RECORD_COMM: kworker/0:0-mm_:9/9\n",
			func() rec {
				r := subject(side(KindComm, 1, "kworker/0:0-mm_", 0, 0, 0, 0), 9, 9)
				r.NewComm = "kworker/0:0-mm_"
				return r
			}()},
		{"LOST", "perf  6029 [001]   294.400000: PERF_RECORD_LOST lost 12\n",
			func() rec {
				r := side(KindLost, 1, "perf", -1, 6029, 1, 294400000000)
				r.Lost = 12
				return r
			}()},
		{"MMAP is KindOther", "perf  6029 [000]     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000000) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n",
			side(KindOther, 1, "perf", -1, 6029, 0, 0)},
		{"MMAP2 is KindOther", "sh  5862/5862    280.430500: PERF_RECORD_MMAP2 5862/5862: [0x55d1c0a00000(0x1c000) @ 0 08:01 1234 0]: r-xp /usr/bin/dash\n",
			side(KindOther, 1, "sh", 5862, 5862, -1, 280430500000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := readAll(t, tc.in)
			if res.skipped != 0 {
				t.Errorf("Skipped() = %d (lines %v), want 0", res.skipped, res.errLine)
			}
			checkRecs(t, res.recs, []rec{tc.want})
		})
	}
}

package parse

import (
	"strings"
	"testing"
)

// Excerpts of real recordings (perf record -g -e cpu-clock/freq=999/ -e
// sched:sched_wakeup -e sched:sched_wakeup_new -c 1 --switch-events, a
// program whose two threads share a mutex and sleep, then fork), scripted
// by perf 6.1.187 and 7.2.13 with --show-switch-events --show-task-events.
const (
	// 7.x, -a: a thread wakes another at a futex (process context).
	wakeupFutex7 = `sleeper    7006 [000] 15297.371098:     sched:sched_wakeup: comm=sleeper pid=7007 prio=120 target_cpu=000
	ffffffff813b4585 ttwu_do_activate+0x175 ([kernel.kallsyms])
	ffffffff813b4a49 try_to_wake_up+0x279 ([kernel.kallsyms])
	ffffffff813b4ea3 wake_up_q+0x33 ([kernel.kallsyms])
	ffffffff8144ec39 futex_wake+0x199 ([kernel.kallsyms])
	ffffffff8144afa3 do_futex+0x183 ([kernel.kallsyms])
	ffffffff8144b1ad __x64_sys_futex+0x12d ([kernel.kallsyms])
	ffffffff8224d141 do_syscall_64+0x71 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])
	    7fb87b1de193 __GI___lll_lock_wake+0x13 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	               0 [unknown] ([unknown])

`
	// 7.x, -a: a timer interrupt, while a thread of the same program ran,
	// wakes its sibling from a sleep.
	wakeupTimer7 = `sleeper    7007 [000] 15297.375083:     sched:sched_wakeup: comm=sleeper pid=7006 prio=120 target_cpu=000
	ffffffff813b4585 ttwu_do_activate+0x175 ([kernel.kallsyms])
	ffffffff813b4a49 try_to_wake_up+0x279 ([kernel.kallsyms])
	ffffffff8142d18e hrtimer_wakeup+0x1e ([kernel.kallsyms])
	ffffffff8142d8ae __hrtimer_run_queues+0x12e ([kernel.kallsyms])
	ffffffff8142e628 hrtimer_interrupt+0xf8 ([kernel.kallsyms])
	ffffffff81330084 __sysvec_apic_timer_interrupt+0x54 ([kernel.kallsyms])
	ffffffff822521dc sysvec_apic_timer_interrupt+0x2c ([kernel.kallsyms])
	ffffffff81000e06 asm_sysvec_apic_timer_interrupt+0x16 ([kernel.kallsyms])
	    55a6f7e6d1d9 worker+0x30 (/tmp/wk/sleeper)
	       100001b5f [unknown] ([unknown])

`
	// 7.x, -a: another CPU's wakeup delivered by IPI to an idle CPU.
	wakeupIPI7 = `swapper       0 [000] 15297.355190:     sched:sched_wakeup: comm=postgres pid=6966 prio=120 target_cpu=000
	ffffffff813b4585 ttwu_do_activate+0x175 ([kernel.kallsyms])
	ffffffff813b471b sched_ttwu_pending+0xdb ([kernel.kallsyms])
	ffffffff814510ab __flush_smp_call_function_queue+0x15b ([kernel.kallsyms])
	ffffffff8132d098 __sysvec_call_function_single+0x18 ([kernel.kallsyms])
	ffffffff82252180 sysvec_call_function_single+0x60 ([kernel.kallsyms])
	ffffffff81000e86 asm_sysvec_call_function_single+0x16 ([kernel.kallsyms])
	ffffffff8225295b pv_native_safe_halt+0xb ([kernel.kallsyms])
	ffffffff82254475 default_idle+0x5 ([kernel.kallsyms])

`
	// 6.1, per task: a new thread made runnable by its creator.
	wakeupNew61 = `sleeper  6709 [000] 15290.478393: sched:sched_wakeup_new: comm=sleeper pid=6711 prio=120 target_cpu=000
	ffffffff813b43c0 wake_up_new_task+0x240 ([kernel.kallsyms])
	ffffffff8135f7b9 kernel_clone+0x109 ([kernel.kallsyms])
	ffffffff8135fcc9 __do_sys_clone3+0x139 ([kernel.kallsyms])
	ffffffff8224d141 do_syscall_64+0x71 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])
	          1098d9 clone3+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)

`
	// 6.1, -a, perf script -F +pid: tracepoints carry no callchain.
	wakeupPid61 = `            perf  6955/6955  [000] 15295.982288:     sched:sched_wakeup: comm=migration/0 pid=18 prio=0 target_cpu=000
`
)

func TestWakeupRecords(t *testing.T) {
	tests := []struct {
		name, in  string
		event     string
		tid       int   // the line's (the waker's)
		pid       int   // the line's, -1 when not printed
		at        int64 // ns
		woken     int
		wokenComm string
		frames    int
		interrupt bool
	}{
		{"7.x futex", wakeupFutex7, "sched:sched_wakeup", 7006, -1, 15297371098000, 7007, "sleeper", 10, false},
		{"7.x timer interrupt over a thread", wakeupTimer7, "sched:sched_wakeup", 7007, -1, 15297375083000, 7006, "sleeper", 10, true},
		{"7.x IPI on the idle task", wakeupIPI7, "sched:sched_wakeup", 0, -1, 15297355190000, 6966, "postgres", 8, true},
		{"6.1 wakeup_new", wakeupNew61, "sched:sched_wakeup_new", 6709, -1, 15290478393000, 6711, "sleeper", 6, false},
		{"6.1 -F +pid, no callchain", wakeupPid61, "sched:sched_wakeup", 6955, 6955, 15295982288000, 18, "migration/0", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in), "t")
			if !r.Scan() {
				t.Fatalf("no record: %v", r.Err())
			}
			rec := r.Record()
			if rec.Kind != KindSample || string(rec.Event) != tc.event || rec.TID != tc.tid || rec.PID != tc.pid || rec.Time != tc.at {
				t.Fatalf("record %v %q tid %d pid %d at %d", rec.Kind, rec.Event, rec.TID, rec.PID, rec.Time)
			}
			if !IsSchedWakeup(rec.Event) {
				t.Errorf("IsSchedWakeup(%q) = false", rec.Event)
			}
			tid, comm, ok := WakeupTarget(rec.Payload)
			if !ok || tid != tc.woken || string(comm) != tc.wokenComm {
				t.Errorf("WakeupTarget(%q) = %d %q %v, want %d %q", rec.Payload, tid, comm, ok, tc.woken, tc.wokenComm)
			}
			if len(rec.Stack.Frames()) != tc.frames {
				t.Errorf("%d frames, want %d", len(rec.Stack.Frames()), tc.frames)
			}
			if got := InInterrupt(rec.Stack.Frames()); got != tc.interrupt {
				t.Errorf("InInterrupt = %v, want %v", got, tc.interrupt)
			}
		})
	}
}

func TestWakeupTargetPayloads(t *testing.T) {
	tests := []struct {
		payload string
		tid     int
		comm    string
		ok      bool
	}{
		{"comm=Web Content pid=4242 prio=120 target_cpu=003", 4242, "Web Content", true},
		{"comm=a pid=b pid=77 prio=120 success=1 target_cpu=001", 77, "a pid=b", true}, // older kernels: success=
		{"comm=x pid= prio=120", 0, "", false},
		{"prev_comm=sh prev_pid=1 ==> next_comm=swapper/0 next_pid=0", 0, "", false},
		{"comm=x pid=12345678901 prio=1", 0, "", false},
		{"", 0, "", false},
	}
	for _, tc := range tests {
		tid, comm, ok := WakeupTarget([]byte(tc.payload))
		if ok != tc.ok || ok && (tid != tc.tid || string(comm) != tc.comm) {
			t.Errorf("WakeupTarget(%q) = %d %q %v, want %d %q %v", tc.payload, tid, comm, ok, tc.tid, tc.comm, tc.ok)
		}
	}
	for ev, want := range map[string]bool{"sched:sched_wakeup": true, "sched:sched_wakeup_new": true, "sched:sched_waking": false, "sched:sched_switch": false, "cpu-clock": false} {
		if IsSchedWakeup([]byte(ev)) != want {
			t.Errorf("IsSchedWakeup(%q) != %v", ev, want)
		}
	}
}

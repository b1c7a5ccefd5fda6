// yield_phases ROUNDS SERIAL PARALLEL: a serial phase beside a thread that
// spins in sched_yield, alternating with a parallel phase on both threads.
// Each round: parallel_work on main and the helper for PARALLEL s, then
// serial_phase on main for SERIAL s while the helper waits for the next
// round in a sched_yield loop (as OpenBLAS's thread server does). Main
// waits for the helper's end of a parallel phase the same way.
// Prints one JSON object (the truth): the phases' totals on the program's
// clock (CLOCK_MONOTONIC, as perf record -k mono stamps records), the
// loop's start and end, and main's CPU time in the serial phases (below
// the serial time when other work took the CPU: the recording is then
// contended).
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t id) {
	struct timespec t;
	clock_gettime(id, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }

static volatile unsigned long sink;
__attribute__((noinline)) static void spin_for(double sec) {
	double end = now() + sec;
	unsigned long x = 0;
	while (now() < end)
		for (int i = 0; i < 1000; i++) x += i * i;
	sink += x;
}
__attribute__((noinline)) void serial_phase(double s) { spin_for(s); }
__attribute__((noinline)) void parallel_work(double s) { spin_for(s); }

static atomic_int go, done, stop;
static double psec;

// wait_yielding spins until *flag equals want, giving the CPU away at each
// turn: the spin-wait under test.
__attribute__((noinline)) void wait_yielding(atomic_int *flag, int want) {
	while (atomic_load(flag) != want) sched_yield();
}

static void *helper(void *arg) {
	(void)arg;
	for (int round = 1;; round++) {
		wait_yielding(&go, round);
		if (atomic_load(&stop)) return 0;
		parallel_work(psec);
		atomic_store(&done, round);
	}
}

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	double ser = argc > 2 ? atof(argv[2]) : 0.25;
	psec = argc > 3 ? atof(argv[3]) : 0.15;
	pthread_t h;
	pthread_create(&h, 0, helper, 0);
	double serial = 0, parallel = 0, serial_cpu = 0;
	double start = now();
	for (int r = 1; r <= rounds; r++) {
		double t0 = now();
		atomic_store(&go, r);
		parallel_work(psec);
		wait_yielding(&done, r);
		double t1 = now(), c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		serial_phase(ser);
		double t2 = now(), c2 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		parallel += t1 - t0;
		serial += t2 - t1;
		serial_cpu += c2 - c1;
	}
	double end = now();
	atomic_store(&stop, 1);
	atomic_store(&go, rounds + 1);
	pthread_join(h, 0);
	printf("{\"workload\": \"yield_phases\", \"rounds\": %d, "
	       "\"loop_start\": %.6f, \"loop_end\": %.6f, \"loop_s\": %.6f, "
	       "\"parallel_s\": %.6f, \"serial_s\": %.6f, \"serial_cpu_s\": %.6f, "
	       "\"serial_share\": %.6f}\n",
	       rounds, start, end, end - start, parallel, serial, serial_cpu,
	       serial / (end - start));
	return 0;
}

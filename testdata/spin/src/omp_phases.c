// omp_phases ROUNDS SERIAL PARALLEL: OpenMP parallel regions alternating
// with a serial phase. Each round: a parallel region in which every thread
// runs parallel_work for PARALLEL s, then serial_phase on the initial thread
// for SERIAL s while libgomp's other threads wait at the team's barrier for
// the next region (spinning there with OMP_WAIT_POLICY=active; for
// GOMP_SPINCOUNT turns and then in a futex by default).
// Prints one JSON object (the truth): the phases' totals on the program's
// clock (CLOCK_MONOTONIC, as perf record -k mono stamps records), the
// loop's start and end, and the initial thread's CPU time in the serial
// phases (below the serial time when the recording was contended).
#include <omp.h>
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

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	double ser = argc > 2 ? atof(argv[2]) : 0.25;
	double par = argc > 3 ? atof(argv[3]) : 0.15;
	int threads = 0;
#pragma omp parallel
	{
#pragma omp single
		threads = omp_get_num_threads();
	}
	double serial = 0, parallel = 0, serial_cpu = 0;
	double start = now();
	for (int r = 0; r < rounds; r++) {
		double t0 = now();
#pragma omp parallel
		parallel_work(par);
		double t1 = now(), c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		serial_phase(ser);
		double t2 = now(), c2 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		parallel += t1 - t0;
		serial += t2 - t1;
		serial_cpu += c2 - c1;
	}
	double end = now();
	printf("{\"workload\": \"omp_phases\", \"threads\": %d, \"rounds\": %d, "
	       "\"loop_start\": %.6f, \"loop_end\": %.6f, \"loop_s\": %.6f, "
	       "\"parallel_s\": %.6f, \"serial_s\": %.6f, \"serial_cpu_s\": %.6f, "
	       "\"serial_share\": %.6f}\n",
	       threads, rounds, start, end, end - start, parallel, serial,
	       serial_cpu, serial / (end - start));
	return 0;
}

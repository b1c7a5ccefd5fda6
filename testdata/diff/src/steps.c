// A program of four steps that times them with its own clock: the truth
// a before/after diff is checked against (testdata/diff/README.md).
//
//   steps serial     before the change: load, fetch, transform, report
//   steps overlap    after: fetch runs on a thread of its own while the
//                    main thread transforms, and is joined before report
//
// load, transform and report compute; fetch waits (nanosleep, standing
// for a read or a remote call). It prints each step's wall time as
// measured by CLOCK_MONOTONIC around it, and the time the main thread
// waited for fetch: in serial, all of fetch; in overlap, the time from the
// end of transform to the join (fetch's share of the run's wall time):
//   step load 0.101234
//   ...
//   waited fetch 0.250123
//
// Build with -O0 -fno-omit-frame-pointer (scripts/record-diff.sh): gcc 12
// at -O1 gives the leaf work() no frame, and perf's frame-pointer walk
// then skips its caller (as it skips wait_for, below).
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile unsigned long sink;

// work does n rounds of arithmetic the compiler cannot drop.
__attribute__((noinline)) static void work(unsigned long n) {
	unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	sink += x;
}

#define LOAD_ROUNDS 100000000UL
#define TRANSFORM_ROUNDS 300000000UL
#define REPORT_ROUNDS 60000000UL
#define FETCH_SECONDS 0.25

__attribute__((noinline)) void load(void) { work(LOAD_ROUNDS); }

// wait_for sleeps: its own frame between fetch and glibc's nanosleep,
// which keeps no frame pointer, so that the walk from the system call
// skips this frame and not fetch.
__attribute__((noinline)) static void wait_for(double sec) {
	struct timespec ts = {(time_t)sec, (long)((sec - (time_t)sec) * 1e9)};
	nanosleep(&ts, 0);
}

static double fetch_time;

__attribute__((noinline)) void fetch(void) {
	double t0 = now();
	wait_for(FETCH_SECONDS);
	fetch_time = now() - t0;
}

__attribute__((noinline)) void transform(void) { work(TRANSFORM_ROUNDS); }

__attribute__((noinline)) void report(void) { work(REPORT_ROUNDS); }

static void *fetcher(void *arg) {
	(void)arg;
	fetch();
	return 0;
}

int main(int argc, char **argv) {
	int overlap = argc > 1 && strcmp(argv[1], "overlap") == 0;
	if (argc != 2 || (!overlap && strcmp(argv[1], "serial") != 0)) {
		fprintf(stderr, "usage: steps serial|overlap\n");
		return 2;
	}
	double t0 = now(), t1, t2, t3;
	load();
	t1 = now();
	if (overlap) {
		pthread_t t;
		pthread_create(&t, 0, fetcher, 0);
		transform();
		t2 = now();
		pthread_join(t, 0);
		t3 = now();
	} else {
		fetch();
		t2 = now();
		transform();
		t3 = now();
	}
	double waited = overlap ? t3 - t2 : t2 - t1;
	double transformed = overlap ? t2 - t1 : t3 - t2;
	double t4 = now();
	report();
	double t5 = now();
	printf("step load %.6f\nstep fetch %.6f\nstep transform %.6f\nstep report %.6f\nwaited fetch %.6f\ntotal %.6f\n",
	       t1 - t0, fetch_time, transformed, t5 - t4, waited, t5 - t0);
	return 0;
}

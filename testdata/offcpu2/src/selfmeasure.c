// selfmeasure: one thread that computes, sleeps and (beside a CPU hog on
// its CPU) waits for the CPU, and prints what the kernel counted of it as
// JSON: /proc/thread-self/schedstat's on-CPU and run-delay nanoseconds and
// CLOCK_MONOTONIC, read at the start and the end of its window.
//   selfmeasure [ROUNDS [COMPUTE_MS [SLEEP_MS [waker]]]]   (default 40 5 10)
// Each round computes COMPUTE_MS of its own CPU time, then sleeps
// SLEEP_MS: in nanosleep, or with `waker` in a read of a pipe that a
// child process (off CPU 0 where it can) writes SLEEP_MS after each
// request. A timer's wakeup is done by an interrupt in whatever task has
// the CPU, which a per-task recording may not follow; the waker is a
// recorded task. start/end are CLOCK_MONOTONIC seconds: the trace's clock when
// recorded with perf record -k mono.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

// schedstat reads the thread's time on CPU and its time runnable but
// waiting for a CPU (run_delay), in ns.
static void schedstat(long long *on_cpu, long long *run_delay)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%lld %lld", on_cpu, run_delay) != 2) {
		perror("/proc/thread-self/schedstat");
		exit(1);
	}
	fclose(f);
}

static volatile unsigned long sink;

// compute burns ms of the thread's own CPU time, however long that takes.
__attribute__((noinline)) static void compute(double ms)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + ms / 1e3;
	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			sink += i;
}

__attribute__((noinline)) static void nap(double ms)
{
	struct timespec ts = {0, (long)(ms * 1e6)};
	nanosleep(&ts, NULL);
}

static int request_fd = -1, reply_fd = -1;

// start_waker forks the child that answers each byte on one pipe with a
// byte on the other, ms later; it ends at the requests' end of file.
static void start_waker(double ms)
{
	int req[2], rep[2];
	if (pipe(req) || pipe(rep)) {
		perror("pipe");
		exit(1);
	}
	if (fork() == 0) {
		cpu_set_t cpus;
		CPU_ZERO(&cpus);
		for (int c = 1; c < CPU_SETSIZE; c++)
			CPU_SET(c, &cpus);
		sched_setaffinity(0, sizeof cpus, &cpus); // fails with one CPU: fine
		close(req[1]);
		close(rep[0]);
		char b;
		while (read(req[0], &b, 1) == 1) {
			nap(ms);
			if (write(rep[1], &b, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(req[0]);
	close(rep[1]);
	request_fd = req[1];
	reply_fd = rep[0];
}

// wait_for_waker sleeps until the waker answers.
__attribute__((noinline)) static void wait_for_waker(void)
{
	char b = 1;
	if (write(request_fd, &b, 1) != 1 || read(reply_fd, &b, 1) != 1) {
		perror("waker");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;
	double compute_ms = argc > 2 ? atof(argv[2]) : 5;
	double sleep_ms = argc > 3 ? atof(argv[3]) : 10;
	int waker = argc > 4 && strcmp(argv[4], "waker") == 0;
	long long on0, delay0, on1, delay1;

	if (waker)
		start_waker(sleep_ms);

	// warm up: the pages of the code and of stdio
	compute(5);
	double start = clock_s(CLOCK_MONOTONIC);
	schedstat(&on0, &delay0);
	for (int r = 0; r < rounds; r++) {
		compute(compute_ms);
		if (waker)
			wait_for_waker();
		else
			nap(sleep_ms);
	}
	compute(compute_ms);
	schedstat(&on1, &delay1);
	double end = clock_s(CLOCK_MONOTONIC);

	double span = end - start, on = (on1 - on0) / 1e9, runnable = (delay1 - delay0) / 1e9;
	printf("{\"tid\": %d, \"start\": %.6f, \"end\": %.6f, \"span\": %.6f, "
	       "\"on_cpu\": %.6f, \"runnable\": %.6f, \"blocked\": %.6f, "
	       "\"rounds\": %d, \"compute_ms\": %g, \"sleep_ms\": %g, \"waker\": %s}\n",
	       gettid(), start, end, span, on, runnable, span - on - runnable,
	       rounds, compute_ms, sleep_ms, waker ? "true" : "false");
	return 0;
}

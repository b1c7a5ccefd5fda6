// pool: a thread pool whose threads each print their own span. Main
// starts THREADS threads, one every 100 ms; each takes tasks from a shared
// queue until it is empty (a task: compute 4 ms, sleep 3 ms, or compute
// 2 ms holding the queue's lock), then notes its end and returns. Each
// thread notes CLOCK_MONOTONIC as its first and last act; main prints
// them all as JSON after the joins.
//   pool [THREADS [TASKS]]   (default 4 300)
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

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

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int next_task, tasks;

struct span {
	double start, end;
	int tid;
};

__attribute__((noinline)) static void *pool_thread(void *arg)
{
	struct span *s = arg;
	s->start = clock_s(CLOCK_MONOTONIC);
	s->tid = gettid();
	for (;;) {
		pthread_mutex_lock(&mu);
		int task = next_task < tasks ? next_task++ : -1;
		if (task >= 0 && task % 3 == 2)
			compute(2); // under the lock: the others queue for it
		pthread_mutex_unlock(&mu);
		if (task < 0)
			break;
		if (task % 3 == 0)
			compute(4);
		else if (task % 3 == 1)
			nap(3);
	}
	s->end = clock_s(CLOCK_MONOTONIC);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	tasks = argc > 2 ? atoi(argv[2]) : 300;
	pthread_t t[64];
	struct span s[64];
	if (n > 64)
		return 2;
	for (int i = 0; i < n; i++) {
		if (i > 0)
			nap(100);
		pthread_create(&t[i], NULL, pool_thread, &s[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("{\"threads\": [");
	for (int i = 0; i < n; i++)
		printf("%s\n  {\"tid\": %d, \"start\": %.6f, \"end\": %.6f}", i ? "," : "", s[i].tid, s[i].start, s[i].end);
	printf("\n]}\n");
	return 0;
}

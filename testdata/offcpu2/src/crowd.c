// crowd: the main thread computes, starts WORKERS threads that each
// compute CPU_MS of their own CPU time, joins them, and computes again;
// HELPERS idle threads sleep on a condition variable from start to end.
// Beside a CPU hog on the same CPU the workers are preempted while main
// waits in pthread_join: the group's off-CPU time is runnable time.
//   crowd [WORKERS [CPU_MS [HELPERS]]]   (default 2 300 0)
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

// compute burns ms of the calling thread's own CPU time.
__attribute__((noinline)) static void compute(double ms)
{
	double end = cpu_s() + ms / 1e3;
	while (cpu_s() < end)
		for (int i = 0; i < 20000; i++)
			sink += i;
}

static double worker_ms;

__attribute__((noinline)) static void *worker(void *arg)
{
	(void)arg;
	compute(worker_ms);
	return NULL;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;

// idle_helper sleeps until main says the work is done.
__attribute__((noinline)) static void *idle_helper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	int workers = argc > 1 ? atoi(argv[1]) : 2;
	worker_ms = argc > 2 ? atof(argv[2]) : 300;
	int helpers = argc > 3 ? atoi(argv[3]) : 0;
	pthread_t w[64], h[64];
	if (workers > 64 || helpers > 64)
		return 2;

	for (int i = 0; i < helpers; i++)
		pthread_create(&h[i], NULL, idle_helper, NULL);
	compute(50);
	for (int i = 0; i < workers; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	for (int i = 0; i < workers; i++)
		pthread_join(w[i], NULL);
	compute(50);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < helpers; i++)
		pthread_join(h[i], NULL);
	printf("{\"workers\": %d, \"worker_ms\": %g, \"helpers\": %d}\n", workers, worker_ms, helpers);
	return 0;
}

// hog: burns a CPU for the given seconds (default 10), so that a workload
// pinned beside it waits in the run queue.
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 10);
	volatile unsigned long n = 0;
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			n++;
	return 0;
}

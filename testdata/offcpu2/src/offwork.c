// offwork: a workload that blocks in three ways: it sleeps (nanosleep,
// 10 x 10 ms), writes a file with fdatasync after each block and reads it
// back with O_DIRECT (disk waits), and two threads take turns on a mutex
// that each holds across a short sleep (futex waits, 20 x 2 per thread).
//   offwork DIR   (the file is DIR/offwork.dat, removed at the end)
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BLOCK = 64 << 10, BLOCKS = 16 };

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

__attribute__((noinline)) static void compute(double ms)
{
	double end = cpu_s() + ms / 1e3;
	while (cpu_s() < end)
		for (int i = 0; i < 20000; i++)
			sink += i;
}

__attribute__((noinline)) static void sleeps(void)
{
	struct timespec ts = {0, 10 * 1000000L};
	for (int i = 0; i < 10; i++) {
		compute(1);
		nanosleep(&ts, NULL);
	}
}

// disk writes the file block by block, each flushed to the disk, then
// reads it back past the page cache.
__attribute__((noinline)) static void disk(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/offwork.dat", dir);
	void *buf;
	if (posix_memalign(&buf, 4096, BLOCK))
		exit(1);
	memset(buf, 'x', BLOCK);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < BLOCKS; i++) {
		if (write(fd, buf, BLOCK) != BLOCK)
			exit(1);
		fdatasync(fd);
	}
	close(fd);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0) // no O_DIRECT here: drop the file's cached pages
		fd = open(path, O_RDONLY);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (int i = 0; i < BLOCKS; i++)
		if (pread(fd, buf, BLOCK, (off_t)i * BLOCK) < 0)
			exit(1);
	close(fd);
	unlink(path);
	free(buf);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

// contend takes the mutex 20 times and holds it for 1 ms of computing and
// a 2 ms sleep (a lock held across a wait), so the other thread waits in
// the futex while the holder is off CPU too.
__attribute__((noinline)) static void *contend(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 2 * 1000000L};
	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&mu);
		compute(1);
		nanosleep(&ts, NULL);
		pthread_mutex_unlock(&mu);
		compute(0.2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: offwork DIR\n");
		return 2;
	}
	sleeps();
	disk(argv[1]);
	pthread_t t;
	pthread_create(&t, NULL, contend, NULL);
	contend(NULL);
	pthread_join(t, NULL);
	return 0;
}

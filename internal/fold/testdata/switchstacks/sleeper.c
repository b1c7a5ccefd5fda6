// sleeper N USEC: sleeps N times USEC microseconds, spinning a little between.
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000, us = argc > 2 ? atol(argv[2]) : 200;
  struct timespec ts = {0, us * 1000};
  volatile unsigned long x = 0;
  for (long i = 0; i < n; i++) { for (int j = 0; j < 20000; j++) x += j; nanosleep(&ts, 0); }
  return 0;
}

// perf 7 text workload: named threads that spin, write to /dev/null, and
// exit while the main thread still runs.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static volatile unsigned long sink;
__attribute__((noinline)) static void spin_for(double sec){double end=now()+sec;unsigned long x=0;while(now()<end){for(int i=0;i<1000;i++)x+=i*i;}sink+=x;}
static int fd;
__attribute__((noinline)) void write_for(double sec){char b[4096];memset(b,'x',sizeof b);double end=now()+sec;while(now()<end){if(write(fd,b,sizeof b)<0)abort();}}
__attribute__((noinline)) void recurse(int n,double sec){if(n>0){recurse(n-1,sec);sink++;}else spin_for(sec);}
static void* worker(void*a){long i=(long)a;char name[16];snprintf(name,sizeof name,"writer-%ld",i);pthread_setname_np(pthread_self(),name);
  spin_for(0.05); write_for(0.1); recurse(3,0.05); return 0;}
int main(int argc,char**argv){int nt=argc>1?atoi(argv[1]):2;int rounds=argc>2?atoi(argv[2]):3;fd=open("/dev/null",O_WRONLY);
  for(int r=0;r<rounds;r++){pthread_t t[64];for(long i=0;i<nt;i++)pthread_create(&t[i],0,worker,(void*)(r*nt+i));
    for(int i=0;i<nt;i++)pthread_join(t[i],0); spin_for(0.02);}
  write_for(0.05); return 0;}

// Attach workload: two threads spin in functions of their own, each
// named for its thread, for argv[1] seconds (default 5); the process
// writes its pid to argv[2] once both threads run.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static volatile unsigned long sink;
static double end;
static volatile int started;
__attribute__((noinline)) void thread_one_spin(void){unsigned long x=0;while(now()<end){for(int i=0;i<1000;i++)x+=i*i;}sink+=x;}
__attribute__((noinline)) void thread_two_spin(void){unsigned long x=0;while(now()<end){for(int i=0;i<1000;i++)x+=i*i;}sink+=x;}
static void*one(void*a){(void)a;__sync_fetch_and_add(&started,1);thread_one_spin();return 0;}
static void*two(void*a){(void)a;__sync_fetch_and_add(&started,1);thread_two_spin();return 0;}
int main(int argc,char**argv){
  end=now()+(argc>1?atof(argv[1]):5);
  pthread_t a,b; pthread_create(&a,0,one,0); pthread_create(&b,0,two,0);
  while(started<2){}
  if(argc>2){char tmp[4096];snprintf(tmp,sizeof tmp,"%s.tmp",argv[2]);FILE*f=fopen(tmp,"w");fprintf(f,"%d\n",(int)getpid());fclose(f);rename(tmp,argv[2]);}
  pthread_join(a,0); pthread_join(b,0); return 0;}

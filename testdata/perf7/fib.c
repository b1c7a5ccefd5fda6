#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n){ return n<2?n:fib(n-1)+fib(n-2); }
__attribute__((noinline)) long down(int n){ if(n==0) return fib(20); long r=down(n-1); return r+1; }
int main(int c,char**v){long s=0;for(int i=0;i<(c>1?atoi(v[1]):300);i++)s+=down(10);printf("%ld\n",s);return 0;}

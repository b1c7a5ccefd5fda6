#include <stdio.h>
unsigned m1_a(unsigned, unsigned); unsigned m1_b(unsigned, unsigned);
unsigned m2_a(unsigned, unsigned); unsigned m2_b(unsigned, unsigned);
unsigned m3_a(unsigned, unsigned); unsigned m3_b(unsigned, unsigned);
unsigned m4_a(unsigned, unsigned); unsigned m4_b(unsigned, unsigned);
unsigned m5_a(unsigned, unsigned); unsigned m5_b(unsigned, unsigned);
unsigned m6_a(unsigned, unsigned); unsigned m6_b(unsigned, unsigned);
int main(void) { unsigned r = 1;
  r = m1_a(r, 7) ^ m1_b(r, 9);
  r = m2_a(r, 7) ^ m2_b(r, 9);
  r = m3_a(r, 7) ^ m3_b(r, 9);
  r = m4_a(r, 7) ^ m4_b(r, 9);
  r = m5_a(r, 7) ^ m5_b(r, 9);
  r = m6_a(r, 7) ^ m6_b(r, 9);
  printf("%u\n", r); return 0; }

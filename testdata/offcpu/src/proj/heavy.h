/* Macro-expanded straight-line code: each BIG(name, k) is a function of
 * 256 mixing steps that keeps cc1 -O2 busy for ~0.25 s. */
#define S0(i) x = x * 1103515245u + (i) + (x >> 7); if (x & 0x10) y ^= x << 3; else y += x >> 5;
#define S1(i) S0(i) S0(i+1) S0(i+2) S0(i+3)
#define S2(i) S1(i) S1(i+4) S1(i+8) S1(i+12)
#define S3(i) S2(i) S2(i+16) S2(i+32) S2(i+48)
#define S4(i) S3(i) S3(i+64) S3(i+128) S3(i+192)
#define BIG(name, k) unsigned name(unsigned x, unsigned y) { S4(k) return x ^ y; }

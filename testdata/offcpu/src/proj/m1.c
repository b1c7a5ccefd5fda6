#include "heavy.h"
BIG(m1_a, 1000)
BIG(m1_b, 1500)

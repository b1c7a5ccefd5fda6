#include "heavy.h"
BIG(m2_a, 2000)
BIG(m2_b, 2500)

#include "heavy.h"
BIG(m6_a, 6000)
BIG(m6_b, 6500)

#include "heavy.h"
BIG(m3_a, 3000)
BIG(m3_b, 3500)

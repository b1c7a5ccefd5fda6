#include "heavy.h"
BIG(m5_a, 5000)
BIG(m5_b, 5500)

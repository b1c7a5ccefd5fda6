#include "heavy.h"
BIG(m4_a, 4000)
BIG(m4_b, 4500)

#include "lullsys.h"
#include <malloc.h>

int lull_trim_heap(void) {
    return malloc_trim(0);
}

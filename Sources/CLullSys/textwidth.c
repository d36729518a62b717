#define _XOPEN_SOURCE 700
#include "lullsys.h"
#include <wchar.h>

int lull_wcwidth(unsigned int scalar) {
    return wcwidth((wchar_t)scalar);
}

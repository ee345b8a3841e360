#ifndef LAZYIMG_CPNG_SHIM_H
#define LAZYIMG_CPNG_SHIM_H
/* libpng 1.6, for tests only: the second decoder PNG output is checked against. */
#include <png.h>
#endif

#ifndef LAZYIMG_CSPNG_SHIM_H
#define LAZYIMG_CSPNG_SHIM_H
#include <spng.h>
#endif

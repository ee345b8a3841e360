#ifndef LAZYIMG_CGIF_SHIM_H
#define LAZYIMG_CGIF_SHIM_H
#include <gif_lib.h>
#endif

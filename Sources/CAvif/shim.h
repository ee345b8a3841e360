#ifndef LAZYIMG_CAVIF_SHIM_H
#define LAZYIMG_CAVIF_SHIM_H
/* The decoder, and the encoder (with aom) for the tests that generate AVIF files. */
#include <avif/avif.h>
#endif

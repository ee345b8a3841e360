#ifndef LAZYIMG_CHEIF_SHIM_H
#define LAZYIMG_CHEIF_SHIM_H
/* For the tests: the encoder (x265) that makes HEIC files, and libheif's own
 * decode the library's pixels are checked against. */
#include <libheif/heif.h>
#endif

#ifndef LAZYIMG_CHEIF_SHIM_H
#define LAZYIMG_CHEIF_SHIM_H
/* The decoder (libde265 inside libheif), and the encoder (x265) for the tests
 * that generate HEIC files. */
#include <libheif/heif.h>
#endif

#ifndef LAZYIMG_CDE265_SHIM_H
#define LAZYIMG_CDE265_SHIM_H
/* The HEVC decoder HEIC images are decoded with. */
#include <libde265/de265.h>
#endif

#ifndef LAZYIMG_CWEBP_SHIM_H
#define LAZYIMG_CWEBP_SHIM_H
/* decode.h for still images; demux.h for the first frame of an animation.
 * Their static inline helpers (WebPGetFeatures, WebPInitDecoderConfig,
 * WebPAnimDecoderNew, ...) import into Swift as they are. */
#include <webp/decode.h>
#include <webp/demux.h>
/* The encoder, for the tests that generate WebP files. */
#include <webp/encode.h>
#endif

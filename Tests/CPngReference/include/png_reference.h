#ifndef LAZYIMG_PNG_REFERENCE_H
#define LAZYIMG_PNG_REFERENCE_H
/* A reference PNG decode with libpng, for tests. Written in C because libpng reports
 * errors by longjmp, which Swift cannot catch. */
#include <stddef.h>
#include <stdint.h>

/* Decodes `size` bytes of PNG to straight RGBA8, rows back to back, the way
 * libspng's SPNG_FMT_RGBA8 with SPNG_DECODE_TRNS does: palette, low bit depths and
 * tRNS expanded, gray copied to RGB, 16-bit samples cut to their high byte, alpha
 * 255 where the file has none, Adam7 undone, and no gamma, sBIT or bKGD applied.
 * Returns width * height * 4 bytes (+1 allocation — release with free()) and sets
 * *width and *height, or returns NULL for anything libpng refuses. */
uint8_t *lazyimg_png_reference_decode(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height);

#endif

/*
 * blurhash_encode.h: a BlurHash encoder for the feed server, so each feed item
 * carries a "blurhash" as a Mastodon media attachment does.
 */
#ifndef BLURHASH_ENCODE_H
#define BLURHASH_ENCODE_H

/* The longest hash with its NUL: 9 x 9 components. */
#define BLURHASH_MAX 167

/* Encodes `rgb` (width x height, 3 bytes a pixel, sRGB, rows packed) with nx x ny
 * components (1..9 each) into `out` (BLURHASH_MAX bytes). Costs width * height *
 * nx * ny cosines: give it a thumbnail. Returns 0, or -1 for bad arguments. */
int blurhash_encode(const unsigned char *rgb, unsigned width, unsigned height, unsigned nx, unsigned ny,
                    char out[BLURHASH_MAX]);

#endif

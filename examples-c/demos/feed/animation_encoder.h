/*
 * animation_encoder.h: writes animated GIF and WebP files into memory, frame by
 * frame, for the feed server's animated items and the animation benchmark.
 *
 * Each frame is given as the whole canvas (straight RGBA, 4 * width bytes a row)
 * and the rectangle that changed since the frame before; the file stores only
 * that rectangle, drawn over what was there (GIF disposal "none", WebP without
 * blending), as optimising encoders do. The first frame's rectangle should be
 * the whole canvas.
 *
 * GIF frames use one global palette: a 6x6x6 colour cube and 40 greys, each
 * pixel its nearest entry. WebP frames are lossy (quality 80, the fastest
 * method), offsets rounded down to even as the format stores them.
 */
#ifndef ANIMATION_ENCODER_H
#define ANIMATION_ENCODER_H

#include <stddef.h>

enum animation_format { ANIMATION_GIF, ANIMATION_WEBP };

struct animation_rect {
    unsigned left, top, width, height;
};

struct animation_encoder;

/* A file of width x height that plays `loops` times (0 = forever). NULL when out
 * of memory or the encoder refuses. */
struct animation_encoder *animation_encoder_new(enum animation_format format, unsigned width, unsigned height,
                                                unsigned loops);
/* Adds a frame shown for `duration_ms` (GIF keeps centiseconds). 0 on failure. */
int animation_encoder_add(struct animation_encoder *e, const unsigned char *canvas, struct animation_rect changed,
                          unsigned duration_ms);
/* Ends the file and frees the encoder: the bytes (malloc'd; free them) and their
 * count in *size, or NULL on failure. */
unsigned char *animation_encoder_finish(struct animation_encoder *e, size_t *size);

#endif

/*
 * decay_fit.h: how far a decelerating list still travels, as lazyimg reads it
 * from the speeds the host reports (the header's lazyimg_set_scroll_state):
 * an exponential decay and a constant braking, each fitted by least squares
 * over the last DECAY_SAMPLES speeds. The loader uses one of them, the
 * exponential one unless the other fits decisively better, and learns the
 * speed lists stop at; this gives the span of both, for scroll_windows.c to
 * bound the landing rows the loader may estimate when the host gives no target.
 */
#ifndef DECAY_FIT_H
#define DECAY_FIT_H

#include <stddef.h>

#define DECAY_SAMPLES 16

struct decay_fit {
    double seconds[DECAY_SAMPLES], speed[DECAY_SAMPLES]; /* the last samples, oldest first */
    size_t count;
};

/* A speed (rows per second, without sign) told at `at_ms`; 0 and below are no sample. */
void decay_fit_add(struct decay_fit *d, double at_ms, double speed);
void decay_fit_reset(struct decay_fit *d);

/* The rows left to travel by the shorter and the longer of the two fits (a
 * model that shows no decay gives none). 0 while fewer than three samples, all
 * at one instant, or not slowing down. */
int decay_fit_rows_left(const struct decay_fit *d, double *least, double *most);

#endif

/*
 * decay_fit.c: the rows a decelerating list still travels, by both fits (decay_fit.h).
 */
#include "decay_fit.h"

#include <math.h>
#include <string.h>

#define MINIMUM_DECAY 1e-3 /* slopes nearer zero are a steady speed */

void decay_fit_add(struct decay_fit *d, double at_ms, double speed)
{
    if (!(speed > 0) || !isfinite(speed))
        return;
    if (d->count == DECAY_SAMPLES) {
        memmove(d->seconds, d->seconds + 1, (DECAY_SAMPLES - 1) * sizeof d->seconds[0]);
        memmove(d->speed, d->speed + 1, (DECAY_SAMPLES - 1) * sizeof d->speed[0]);
        d->count--;
    }
    d->seconds[d->count] = at_ms / 1000;
    d->speed[d->count++] = speed;
}

void decay_fit_reset(struct decay_fit *d)
{
    d->count = 0;
}

/* The least-squares slope of y against time, and y on that line at the last sample. */
static int fit_line(const struct decay_fit *d, int logarithm, double *slope, double *last)
{
    double mean_x = 0, mean_y = 0, sxy = 0, sxx = 0;
    for (size_t i = 0; i < d->count; i++) {
        mean_x += d->seconds[i];
        mean_y += logarithm ? log(d->speed[i]) : d->speed[i];
    }
    mean_x /= (double)d->count;
    mean_y /= (double)d->count;
    for (size_t i = 0; i < d->count; i++) {
        double dx = d->seconds[i] - mean_x, dy = (logarithm ? log(d->speed[i]) : d->speed[i]) - mean_y;
        sxy += dx * dy;
        sxx += dx * dx;
    }
    if (sxx <= 0)
        return 0;
    *slope = sxy / sxx;
    *last = mean_y + *slope * (d->seconds[d->count - 1] - mean_x);
    return *slope < -MINIMUM_DECAY;
}

int decay_fit_rows_left(const struct decay_fit *d, double *least, double *most)
{
    double slope, at_last, rows[2];
    int fits = 0;
    if (d->count < 3)
        return 0;
    if (fit_line(d, 1, &slope, &at_last)) /* v(t) = v e^(-kt): v / k rows left */
        rows[fits++] = exp(at_last) / -slope;
    if (fit_line(d, 0, &slope, &at_last) && at_last > 0) /* v(t) = v - at: v^2 / 2a */
        rows[fits++] = at_last * at_last / (2 * -slope);
    if (fits == 0)
        return 0;
    *least = fits == 2 && rows[1] < rows[0] ? rows[1] : rows[0];
    *most = fits == 2 && rows[1] > rows[0] ? rows[1] : rows[0];
    return 1;
}

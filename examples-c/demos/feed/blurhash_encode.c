/*
 * blurhash_encode.c: BlurHash as its algorithm description (woltapp/blurhash,
 * Algorithm.md) defines it: the average colour exactly, in sRGB, then the cosine
 * components in linear light, each scaled by the largest and quantised to 19
 * levels on a square-root scale, in base 83.
 */
#include "blurhash_encode.h"

#include <math.h>
#include <stddef.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char digits83[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";

static double linear_from_srgb(unsigned char value)
{
    double v = value / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static int srgb_from_linear(double value)
{
    double v = value < 0 ? 0 : value > 1 ? 1 : value;
    return (int)((v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5);
}

/* `value` as `length` base 83 digits, most significant first. */
static char *put83(char *out, int value, int length)
{
    for (int i = length - 1; i >= 0; i--, value /= 83)
        out[i] = digits83[value % 83];
    return out + length;
}

/* An AC component over the largest, on 0..18 around 9 by its signed square root. */
static int quantise(double value, double maximum)
{
    double root = copysign(sqrt(fabs(value / maximum)), value);
    int q = (int)floor(root * 9 + 9.5);
    return q < 0 ? 0 : q > 18 ? 18 : q;
}

int blurhash_encode(const unsigned char *rgb, unsigned width, unsigned height, unsigned nx, unsigned ny,
                    char out[BLURHASH_MAX])
{
    double factors[81][3] = {{0}};
    if (rgb == NULL || width == 0 || height == 0 || nx < 1 || nx > 9 || ny < 1 || ny > 9)
        return -1;
    for (unsigned j = 0; j < ny; j++)
        for (unsigned i = 0; i < nx; i++) {
            double *f = factors[j * nx + i];
            double scale = (i == 0 && j == 0 ? 1.0 : 2.0) / ((double)width * height);
            for (unsigned y = 0; y < height; y++)
                for (unsigned x = 0; x < width; x++) {
                    double basis = cos(M_PI * i * x / width) * cos(M_PI * j * y / height);
                    const unsigned char *p = rgb + ((size_t)y * width + x) * 3;
                    for (int c = 0; c < 3; c++)
                        f[c] += basis * linear_from_srgb(p[c]);
                }
            for (int c = 0; c < 3; c++)
                f[c] *= scale;
        }
    double largest = 0;
    for (unsigned k = 1; k < nx * ny; k++)
        for (int c = 0; c < 3; c++)
            largest = fmax(largest, fabs(factors[k][c]));
    int quantised_max = 0;
    if (nx * ny > 1) {
        quantised_max = (int)floor(largest * 166 - 0.5);
        quantised_max = quantised_max < 0 ? 0 : quantised_max > 82 ? 82 : quantised_max;
    }
    double maximum = (quantised_max + 1) / 166.0;
    char *at = put83(out, (int)(nx - 1 + (ny - 1) * 9), 1);
    at = put83(at, quantised_max, 1);
    at = put83(at, srgb_from_linear(factors[0][0]) << 16 | srgb_from_linear(factors[0][1]) << 8 |
                       srgb_from_linear(factors[0][2]), 4);
    for (unsigned k = 1; k < nx * ny; k++)
        at = put83(at, quantise(factors[k][0], maximum) * 19 * 19 + quantise(factors[k][1], maximum) * 19 +
                           quantise(factors[k][2], maximum), 2);
    *at = '\0';
    return 0;
}

#include "png_reference.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

/* Where the in-memory read callback is in the file. */
struct source {
    const uint8_t *data;
    size_t size;
    size_t offset;
};

static void read_bytes(png_structp png, png_bytep out, size_t count) {
    struct source *source = png_get_io_ptr(png);
    if (count > source->size - source->offset) {
        png_error(png, "read past the end of the data");
    }
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

/* Quiet: the caller only needs to know that it failed. */
static void on_error(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

uint8_t *lazyimg_png_reference_decode(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    struct source source = {data, size, 0};
    /* Both written after setjmp and read after a longjmp, hence volatile. */
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        return NULL;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        free(pixels);
        png_destroy_read_struct(&png, &info, NULL);
        return NULL;
    }
    png_set_read_fn(png, &source, read_bytes);
    png_read_info(png, info);

    /* Palette to RGB, gray below 8 bits to 8, tRNS to an alpha channel. */
    png_set_expand(png);
    /* libspng 0.7.3 reduces 16-bit samples to 8 by keeping the high byte, as
     * png_set_strip_16 does; png_set_scale_16 rounds (v * 255 / 65535) instead and
     * differs from libspng on every 16-bit file of PngSuite (25 of them). */
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    /* Only added where the expanded image still has no alpha channel. */
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4) {
        png_error(png, "the transforms did not give RGBA8");
    }
    pixels = malloc((size_t)w * h * 4);
    rows = malloc(sizeof(png_bytep) * h);
    if (pixels == NULL || rows == NULL) {
        png_error(png, "out of memory");
    }
    for (uint32_t y = 0; y < h; y++) {
        rows[y] = pixels + (size_t)y * w * 4;
    }
    png_read_image(png, rows);
    /* On to IEND, so a bad CRC after the image data fails here too. */
    png_read_end(png, NULL);

    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    *width = w;
    *height = h;
    return pixels;
}

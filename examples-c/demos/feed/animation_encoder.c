/*
 * animation_encoder.c: animated GIF with giflib's encoder (EGifOpen on a memory
 * sink), animated WebP as RIFF chunks around frames libwebp encodes one by one
 * (VP8X, ANIM, then an ANMF chunk per frame).
 */
#include "animation_encoder.h"

#include <gif_lib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>

struct buffer {
    unsigned char *data;
    size_t size, capacity;
    int failed;
};

struct animation_encoder {
    enum animation_format format;
    unsigned width, height;
    struct buffer out;
    GifFileType *gif;
    unsigned char *line; /* a GIF frame row's palette indices */
};

static void append(struct buffer *b, const void *bytes, size_t count)
{
    if (b->failed)
        return;
    if (b->size + count > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->size + count)
            capacity *= 2;
        unsigned char *grown = realloc(b->data, capacity);
        if (grown == NULL) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, bytes, count);
    b->size += count;
}

static void append_le(struct buffer *b, unsigned value, int bytes)
{
    unsigned char le[4];
    for (int i = 0; i < bytes; i++)
        le[i] = (unsigned char)(value >> (8 * i));
    append(b, le, (size_t)bytes);
}

/* ---------------------------------------------------------------- GIF */

static int gif_write(GifFileType *gif, const GifByteType *bytes, int count)
{
    append(gif->UserData, bytes, (size_t)count);
    return count;
}

/* The palette: entries 0-215 the cube (6 levels a channel), 216-255 greys. */
static ColorMapObject *make_palette(void)
{
    GifColorType colours[256];
    for (int i = 0; i < 216; i++)
        colours[i] = (GifColorType){(GifByteType)(i / 36 * 51), (GifByteType)(i / 6 % 6 * 51), (GifByteType)(i % 6 * 51)};
    for (int i = 0; i < 40; i++)
        colours[216 + i] = (GifColorType){(GifByteType)(i * 255 / 39), (GifByteType)(i * 255 / 39), (GifByteType)(i * 255 / 39)};
    return GifMakeMapObject(256, colours);
}

static unsigned char nearest(const unsigned char *rgb)
{
    int r = (rgb[0] + 25) / 51, g = (rgb[1] + 25) / 51, b = (rgb[2] + 25) / 51;
    int cube = r * 36 + g * 6 + b, spread = abs(rgb[0] - rgb[1]) + abs(rgb[1] - rgb[2]);
    /* Near-grey pixels take the finer grey ramp. */
    if (spread < 12)
        return (unsigned char)(216 + (rgb[0] + rgb[1] + rgb[2]) * 39 / 765);
    return (unsigned char)cube;
}

static int gif_start(struct animation_encoder *e, unsigned loops)
{
    int error = 0;
    e->gif = EGifOpen(&e->out, gif_write, &error);
    e->line = malloc(e->width);
    ColorMapObject *palette = make_palette();
    int ok = e->gif != NULL && e->line != NULL && palette != NULL;
    if (ok) {
        EGifSetGifVersion(e->gif, true);
        unsigned char loop[3] = {1, (unsigned char)loops, (unsigned char)(loops >> 8)};
        ok = EGifPutScreenDesc(e->gif, (int)e->width, (int)e->height, 8, 0, palette) == GIF_OK &&
             EGifPutExtensionLeader(e->gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
             EGifPutExtensionBlock(e->gif, 11, "NETSCAPE2.0") == GIF_OK &&
             EGifPutExtensionBlock(e->gif, 3, loop) == GIF_OK && EGifPutExtensionTrailer(e->gif) == GIF_OK;
    }
    GifFreeMapObject(palette);
    return ok;
}

static int gif_add(struct animation_encoder *e, const unsigned char *canvas, struct animation_rect r,
                   unsigned duration_ms)
{
    unsigned delay = (duration_ms + 5) / 10;
    /* Disposal 1 (leave in place), no transparency. */
    unsigned char control[4] = {1 << 2, (unsigned char)delay, (unsigned char)(delay >> 8), 0};
    if (EGifPutExtension(e->gif, GRAPHICS_EXT_FUNC_CODE, 4, control) != GIF_OK ||
        EGifPutImageDesc(e->gif, (int)r.left, (int)r.top, (int)r.width, (int)r.height, false, NULL) != GIF_OK)
        return 0;
    for (unsigned y = 0; y < r.height; y++) {
        const unsigned char *row = canvas + ((size_t)(r.top + y) * e->width + r.left) * 4;
        for (unsigned x = 0; x < r.width; x++)
            e->line[x] = nearest(row + 4 * x);
        if (EGifPutLine(e->gif, e->line, (int)r.width) != GIF_OK)
            return 0;
    }
    return 1;
}

/* --------------------------------------------------------------- WebP */

/* The rectangle's pixels as a lossy WebP bitstream (the file's chunks after its
 * 12-byte RIFF header), appended to `out` inside an ANMF chunk. */
static int webp_add(struct animation_encoder *e, const unsigned char *canvas, struct animation_rect r,
                    unsigned duration_ms)
{
    /* Offsets are stored halved. */
    unsigned left = r.left & ~1u, top = r.top & ~1u;
    unsigned width = r.width + (r.left - left), height = r.height + (r.top - top);
    WebPConfig config;
    WebPPicture picture;
    WebPMemoryWriter writer;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture))
        return 0;
    config.quality = 80;
    config.method = 0;
    picture.width = (int)width;
    picture.height = (int)height;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPPictureImportRGBA(&picture, canvas + ((size_t)top * e->width + left) * 4, (int)e->width * 4) &&
             WebPEncode(&config, &picture) && writer.size > 12;
    if (ok) {
        size_t chunks = writer.size - 12;
        append(&e->out, "ANMF", 4);
        append_le(&e->out, (unsigned)(16 + chunks), 4);
        append_le(&e->out, left / 2, 3);
        append_le(&e->out, top / 2, 3);
        append_le(&e->out, width - 1, 3);
        append_le(&e->out, height - 1, 3);
        append_le(&e->out, duration_ms, 3);
        unsigned char flags = 0x02; /* no blending, no disposal */
        append(&e->out, &flags, 1);
        append(&e->out, writer.mem + 12, chunks);
        if (chunks & 1)
            append(&e->out, "", 1);
    }
    WebPMemoryWriterClear(&writer);
    WebPPictureFree(&picture);
    return ok;
}

static void webp_start(struct animation_encoder *e, unsigned loops)
{
    append(&e->out, "RIFF\0\0\0\0WEBPVP8X", 16);
    append_le(&e->out, 10, 4);
    unsigned char flags[4] = {0x02, 0, 0, 0}; /* animation */
    append(&e->out, flags, 4);
    append_le(&e->out, e->width - 1, 3);
    append_le(&e->out, e->height - 1, 3);
    append(&e->out, "ANIM", 4);
    append_le(&e->out, 6, 4);
    append_le(&e->out, 0, 4); /* background: transparent */
    append_le(&e->out, loops, 2);
}

/* ------------------------------------------------------------ the API */

struct animation_encoder *animation_encoder_new(enum animation_format format, unsigned width, unsigned height,
                                                unsigned loops)
{
    struct animation_encoder *e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->format = format;
    e->width = width;
    e->height = height;
    int ok = 1;
    if (format == ANIMATION_GIF)
        ok = gif_start(e, loops);
    else
        webp_start(e, loops);
    if (!ok || e->out.failed) {
        size_t ignored;
        free(animation_encoder_finish(e, &ignored));
        return NULL;
    }
    return e;
}

int animation_encoder_add(struct animation_encoder *e, const unsigned char *canvas, struct animation_rect changed,
                          unsigned duration_ms)
{
    int ok = e->format == ANIMATION_GIF ? gif_add(e, canvas, changed, duration_ms)
                                        : webp_add(e, canvas, changed, duration_ms);
    return ok && !e->out.failed;
}

unsigned char *animation_encoder_finish(struct animation_encoder *e, size_t *size)
{
    int ok = !e->out.failed;
    if (e->gif != NULL)
        ok = EGifCloseFile(e->gif, NULL) == GIF_OK && ok;
    if (e->format == ANIMATION_WEBP && ok && e->out.size >= 8) {
        unsigned riff = (unsigned)(e->out.size - 8);
        for (int i = 0; i < 4; i++)
            e->out.data[4 + i] = (unsigned char)(riff >> (8 * i));
    }
    ok = ok && !e->out.failed;
    unsigned char *bytes = ok ? e->out.data : NULL;
    if (!ok)
        free(e->out.data);
    *size = ok ? e->out.size : 0;
    free(e->line);
    free(e);
    return bytes;
}

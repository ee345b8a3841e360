/*
 * bench_animation.c: a screen of 12 animations (500 frames of 480x270, 40 ms
 * each) playing for 10 s into a 128 px box at 60 Hz, GIF and WebP. Prints, for
 * lazyimg and three baselines run side by side, each in a process of its own:
 * peak resident memory (VmHWM), CPU time per second of playback (every thread)
 * and before it, the time until every cell shows its first frame, how long the
 * host's frame loop was busy in a 60 Hz tick (mean, 99th percentile, worst: on a
 * shared machine the tail also holds the times the host thread was preempted),
 * and how many of the cells' ticks showed the frame due. Then the CPU lazyimg
 * spends once the cells left the screen. Ratios are against lazyimg.
 *
 *   lazyimg      animation_buffer_bytes 1 MiB, memory_cache_bytes 64 MiB (the
 *                budget), file:// URLs; the loop calls lazyimg_frame_at per cell.
 *   up front     what a naive player does: every frame composed at full size
 *                before playing (giflib's DGifSlurp and a compositor; libwebp's
 *                WebPAnimDecoder) and kept; drawing them costs it nothing here.
 *   up front, box  the same, each frame shrunk to the box at once and only that
 *                kept: the naive player at its best.
 *   streaming    one full-size canvas per animation, the next frame decoded on
 *                the host's thread when it is due (giflib record by record;
 *                WebPAnimDecoder) and shrunk to the box: least memory, but the
 *                decode runs in the frame loop.
 * lazyimg also runs with a 16 MiB budget, and lazyimg and streaming with two
 * processes spinning beside them (a busy machine).
 *
 * The frames: a textured background and a ball moving over it; after the first,
 * each frame stores the rectangle that changed, as optimising encoders write
 * them (animation_encoder.c). The twelve files differ in the ball's path.
 * A benchmark, not a test: it prints numbers and never fails on them.
 */
#define _POSIX_C_SOURCE 200809L

#include <gif_lib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <webp/demux.h>

#include "animation_encoder.h"
#include "lazyimg.h"

#define FILES 12
#define FRAMES 500
#define WIDTH 480
#define HEIGHT 270
#define FRAME_MS 40
#define BOX_W 128
#define BOX_H 72
#define PLAY_MS 10000
#define TICK_MS (1000.0 / 60)
#define BUDGET (64u << 20)
#define BUFFER (1u << 20)
#define RADIUS 34

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_seconds(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
           usage.ru_stime.tv_usec / 1e6;
}

/* VmHWM or VmRSS of this process, in KiB. */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    size_t n = strlen(field);
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, field, n) == 0)
            kib = strtol(line + n + 1, NULL, 10);
    if (f != NULL)
        fclose(f);
    return kib;
}

/* ------------------------------------------------------------ the files */

static void ball_at(unsigned file, unsigned frame, int *x, int *y)
{
    double t = 2 * 3.14159265358979 * frame / FRAMES, phase = file * 0.7;
    *x = (int)(WIDTH / 2 + (WIDTH / 2 - RADIUS - 4) * sin(3 * t + phase));
    *y = (int)(HEIGHT / 2 + (HEIGHT / 2 - RADIUS - 4) * sin(5 * t + 2 * phase));
}

/* Frame `frame` of file `file` into canvas (RGBA); returns the rectangle that
 * changed since the frame before (the whole canvas for the first). */
static struct animation_rect draw_scene(unsigned file, unsigned frame, unsigned char *canvas)
{
    int bx, by, px, py;
    ball_at(file, frame, &bx, &by);
    ball_at(file, frame ? frame - 1 : 0, &px, &py);
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            unsigned char *p = canvas + ((size_t)y * WIDTH + x) * 4;
            int dx = x - bx, dy = y - by;
            if (dx * dx + dy * dy < RADIUS * RADIUS) {
                p[0] = (unsigned char)(200 + 40 * (file % 2)), p[1] = (unsigned char)(60 + 15 * file), p[2] = 40;
            } else {
                p[0] = (unsigned char)(x * 255 / WIDTH);
                p[1] = (unsigned char)(100 + 60 * sin(x / 17.0) * cos(y / 13.0));
                p[2] = (unsigned char)(y * 255 / HEIGHT);
            }
            p[3] = 255;
        }
    if (frame == 0)
        return (struct animation_rect){0, 0, WIDTH, HEIGHT};
    int left = (bx < px ? bx : px) - RADIUS, top = (by < py ? by : py) - RADIUS;
    int right = (bx > px ? bx : px) + RADIUS, bottom = (by > py ? by : py) + RADIUS;
    left = left < 0 ? 0 : left, top = top < 0 ? 0 : top;
    right = right > WIDTH ? WIDTH : right, bottom = bottom > HEIGHT ? HEIGHT : bottom;
    return (struct animation_rect){(unsigned)left, (unsigned)top, (unsigned)(right - left), (unsigned)(bottom - top)};
}

static int write_file(const char *path, enum animation_format format, unsigned file, size_t *size)
{
    unsigned char *canvas = malloc((size_t)WIDTH * HEIGHT * 4);
    struct animation_encoder *e = animation_encoder_new(format, WIDTH, HEIGHT, 0);
    int ok = canvas != NULL && e != NULL;
    for (unsigned i = 0; ok && i < FRAMES; i++)
        ok = animation_encoder_add(e, canvas, draw_scene(file, i, canvas), FRAME_MS);
    unsigned char *bytes = e != NULL ? animation_encoder_finish(e, size) : NULL;
    FILE *f = bytes != NULL && ok ? fopen(path, "wb") : NULL;
    ok = f != NULL && fwrite(bytes, 1, *size, f) == *size;
    if (f != NULL)
        ok = fclose(f) == 0 && ok;
    free(bytes);
    free(canvas);
    return ok;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *bytes = NULL;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        bytes = n > 0 ? malloc((size_t)n) : NULL;
        if (bytes != NULL && fread(bytes, 1, (size_t)n, f) != (size_t)n) {
            free(bytes);
            bytes = NULL;
        }
        *size = bytes ? (size_t)n : 0;
    }
    if (f != NULL)
        fclose(f);
    return bytes;
}

/* ------------------------------------------------- the baselines' parts */

/* Box filter: each output pixel the coverage-weighted mean of the source pixels
 * under it, separable, with the weights computed once (4 or 5 taps a side at
 * 3.75:1): the baselines' shrink at its fastest in plain C. */
struct taps {
    int first, count;
    float weight[6];
};
static struct taps column_taps[BOX_W], row_taps[BOX_H];

static void make_taps(struct taps *taps, int outputs, int inputs)
{
    double scale = (double)inputs / outputs;
    for (int o = 0; o < outputs; o++) {
        double begin = o * scale, end = begin + scale;
        taps[o].first = (int)begin;
        taps[o].count = 0;
        for (int i = (int)begin; i < (int)ceil(end) && i < inputs && taps[o].count < 6; i++)
            taps[o].weight[taps[o].count++] = (float)((fmin(i + 1, end) - fmax(i, begin)) / scale);
    }
}

static void shrink(const unsigned char *canvas, unsigned char *box)
{
    if (column_taps[0].count == 0) {
        make_taps(column_taps, BOX_W, WIDTH);
        make_taps(row_taps, BOX_H, HEIGHT);
    }
    float row[BOX_W * 4], sum[BOX_W * 4];
    for (int oy = 0; oy < BOX_H; oy++) {
        memset(sum, 0, sizeof sum);
        for (int t = 0; t < row_taps[oy].count; t++) {
            const unsigned char *source = canvas + (size_t)(row_taps[oy].first + t) * WIDTH * 4;
            for (int ox = 0; ox < BOX_W; ox++) {
                const struct taps *c = &column_taps[ox];
                float r = 0, g = 0, b = 0, a = 0;
                for (int k = 0; k < c->count; k++) {
                    const unsigned char *p = source + (size_t)(c->first + k) * 4;
                    r += c->weight[k] * p[0], g += c->weight[k] * p[1], b += c->weight[k] * p[2], a += c->weight[k] * p[3];
                }
                row[4 * ox] = r, row[4 * ox + 1] = g, row[4 * ox + 2] = b, row[4 * ox + 3] = a;
            }
            for (int i = 0; i < BOX_W * 4; i++)
                sum[i] += row_taps[oy].weight[t] * row[i];
        }
        for (int i = 0; i < BOX_W * 4; i++)
            box[(size_t)oy * BOX_W * 4 + i] = (unsigned char)(sum[i] + 0.5f);
    }
}

struct memory_reader {
    const unsigned char *bytes;
    size_t size, at;
};

static int read_memory(GifFileType *gif, GifByteType *out, int count)
{
    struct memory_reader *r = gif->UserData;
    size_t n = (size_t)count < r->size - r->at ? (size_t)count : r->size - r->at;
    memcpy(out, r->bytes + r->at, n);
    r->at += n;
    return (int)n;
}

/* Draws a GIF image's palette indices over the canvas: the GIF89a rules for
 * transparency; disposal is applied by the caller before the next image. */
static void gif_draw(unsigned char *canvas, const GifImageDesc *d, const GifByteType *indices,
                     const ColorMapObject *map, int transparent)
{
    for (int y = 0; y < d->Height && d->Top + y < HEIGHT; y++)
        for (int x = 0; x < d->Width && d->Left + x < WIDTH; x++) {
            int i = indices[(size_t)y * d->Width + x];
            if (i == transparent || i >= map->ColorCount)
                continue;
            unsigned char *p = canvas + ((size_t)(d->Top + y) * WIDTH + d->Left + x) * 4;
            p[0] = map->Colors[i].Red, p[1] = map->Colors[i].Green, p[2] = map->Colors[i].Blue, p[3] = 255;
        }
}

static void gif_dispose(unsigned char *canvas, const GifImageDesc *d, int mode, const unsigned char *before)
{
    if (mode == DISPOSE_PREVIOUS) {
        memcpy(canvas, before, (size_t)WIDTH * HEIGHT * 4);
    } else if (mode == DISPOSE_BACKGROUND) {
        for (int y = 0; y < d->Height && d->Top + y < HEIGHT; y++)
            for (int x = 0; x < d->Width && d->Left + x < WIDTH; x++)
                memset(canvas + ((size_t)(d->Top + y) * WIDTH + d->Left + x) * 4, 0, 4);
    }
}

/* A player of one file: where its decoder is, and its frames or its canvas. */
struct player {
    unsigned char *bytes;
    size_t size;
    unsigned char **frames; /* up front: every frame (full size or box) */
    unsigned shown;         /* streaming: the frame the canvas holds */
    unsigned char *canvas, *before, *box;
    /* streaming GIF: giflib on the bytes, the last image's disposal */
    GifFileType *gif;
    struct memory_reader reader;
    GifImageDesc last;
    int last_disposal;
    GifByteType *indices;
    /* streaming WebP */
    WebPAnimDecoder *webp;
    WebPData data;
};

static WebPAnimDecoder *webp_open(struct player *p)
{
    WebPAnimDecoderOptions options;
    WebPAnimDecoderOptionsInit(&options);
    options.color_mode = MODE_RGBA;
    p->data.bytes = p->bytes;
    p->data.size = p->size;
    return WebPAnimDecoderNew(&p->data, &options);
}

static int gif_open(struct player *p)
{
    int error;
    p->reader = (struct memory_reader){p->bytes, p->size, 0};
    if (p->gif != NULL)
        DGifCloseFile(p->gif, &error);
    p->gif = DGifOpen(&p->reader, read_memory, &error);
    memset(p->canvas, 0, (size_t)WIDTH * HEIGHT * 4);
    p->last_disposal = DISPOSAL_UNSPECIFIED;
    return p->gif != NULL;
}

/* Streaming GIF: the next image record by record, composed on the canvas; from
 * the start again after the trailer. */
static int gif_next(struct player *p)
{
    GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(p->gif, &type) != GIF_OK)
            return 0;
        if (type == TERMINATE_RECORD_TYPE) {
            if (!gif_open(p))
                return 0;
            continue;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block;
            if (DGifGetExtension(p->gif, &code, &block) != GIF_OK)
                return 0;
            if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL)
                DGifExtensionToGCB(block[0], block + 1, &gcb);
            while (block != NULL)
                if (DGifGetExtensionNext(p->gif, &block) != GIF_OK)
                    return 0;
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE || DGifGetImageDesc(p->gif) != GIF_OK)
            return 0;
        GifImageDesc d = p->gif->Image;
        gif_dispose(p->canvas, &p->last, p->last_disposal, p->before);
        if (gcb.DisposalMode == DISPOSE_PREVIOUS)
            memcpy(p->before, p->canvas, (size_t)WIDTH * HEIGHT * 4);
        for (int y = 0; y < d.Height; y++)
            if (DGifGetLine(p->gif, p->indices + (size_t)y * d.Width, d.Width) != GIF_OK)
                return 0;
        gif_draw(p->canvas, &d, p->indices, d.ColorMap ? d.ColorMap : p->gif->SColorMap, gcb.TransparentColor);
        p->last = d;
        p->last_disposal = gcb.DisposalMode;
        return 1;
    }
}

/* Up front: every frame of the file, full size or shrunk. */
static int decode_all(struct player *p, int webp, int to_box)
{
    size_t full = (size_t)WIDTH * HEIGHT * 4, kept = to_box ? (size_t)BOX_W * BOX_H * 4 : full;
    p->frames = calloc(FRAMES, sizeof *p->frames);
    unsigned char *canvas = malloc(full), *before = malloc(full);
    int ok = p->frames != NULL && canvas != NULL && before != NULL;
    GifFileType *gif = NULL;
    WebPAnimDecoder *decoder = NULL;
    if (ok && webp) {
        decoder = webp_open(p);
        ok = decoder != NULL;
    } else if (ok) {
        int error;
        p->reader = (struct memory_reader){p->bytes, p->size, 0};
        gif = DGifOpen(&p->reader, read_memory, &error);
        ok = gif != NULL && DGifSlurp(gif) == GIF_OK && gif->ImageCount == FRAMES;
        memset(canvas, 0, full);
    }
    for (unsigned i = 0; ok && i < FRAMES; i++) {
        const unsigned char *composed = canvas;
        if (webp) {
            uint8_t *frame;
            int timestamp;
            ok = WebPAnimDecoderGetNext(decoder, &frame, &timestamp);
            composed = frame;
        } else {
            GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR}, previous = gcb;
            DGifSavedExtensionToGCB(gif, (int)i, &gcb);
            if (i > 0) {
                DGifSavedExtensionToGCB(gif, (int)i - 1, &previous);
                gif_dispose(canvas, &gif->SavedImages[i - 1].ImageDesc, previous.DisposalMode, before);
            }
            if (gcb.DisposalMode == DISPOSE_PREVIOUS)
                memcpy(before, canvas, full);
            const SavedImage *image = &gif->SavedImages[i];
            gif_draw(canvas, &image->ImageDesc, image->RasterBits,
                     image->ImageDesc.ColorMap ? image->ImageDesc.ColorMap : gif->SColorMap, gcb.TransparentColor);
        }
        p->frames[i] = ok ? malloc(kept) : NULL;
        ok = ok && p->frames[i] != NULL;
        if (ok && to_box)
            shrink(composed, p->frames[i]);
        else if (ok)
            memcpy(p->frames[i], composed, full);
    }
    if (gif != NULL) {
        int error;
        DGifCloseFile(gif, &error);
    }
    WebPAnimDecoderDelete(decoder);
    free(canvas);
    free(before);
    return ok;
}

/* Streaming: brings the canvas to frame `due` (frames go forward and wrap), and
 * shrinks it when it changed. */
static int stream_to(struct player *p, int webp, unsigned due)
{
    int changed = 0;
    while (p->shown != due) {
        if (webp) {
            uint8_t *frame;
            int timestamp;
            if (!WebPAnimDecoderHasMoreFrames(p->webp))
                WebPAnimDecoderReset(p->webp);
            if (!WebPAnimDecoderGetNext(p->webp, &frame, &timestamp))
                return 0;
            p->canvas = frame;
        } else if (!gif_next(p)) {
            return 0;
        }
        p->shown = (p->shown + 1) % FRAMES;
        changed = 1;
    }
    if (changed)
        shrink(p->canvas, p->box);
    return 1;
}

/* ------------------------------------------------------------- the runs */

enum mode { LAZYIMG, LAZYIMG_TIGHT, LAZYIMG_BUSY, UP_FRONT, UP_FRONT_BOX, STREAMING, STREAMING_BUSY, MODES };
static const char *mode_names[MODES] = {"lazyimg", "lazyimg, 16 MiB budget", "lazyimg, 2 busy processes beside",
                                        "up front", "up front, box", "streaming", "streaming, 2 busy processes beside"};
#define BUSY_PROCESSES 2
#define TIGHT_BUDGET (16u << 20)

struct result {
    long peak_kib, start_kib;
    double startup_cpu, cpu_per_second, first_ms, mean_tick_ms, p99_tick_ms, worst_tick_ms, due_share,
        left_cpu_per_second;
};

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 60 Hz frame loop over `duration_ms`: `tick` shows every cell's frame for
 * `t` and returns how many showed the frame due; `after` (may be NULL) runs
 * outside the measured time. */
#define TICKS (PLAY_MS * 60 / 1000 + 1)
static void play(struct result *r, int (*tick)(void *context, double t), void (*after)(void *context),
                 void *context)
{
    static double busy[TICKS];
    double cpu = cpu_seconds(), start = now_ms();
    long shown = 0;
    int ticks = 0;
    for (; ticks * TICK_MS < PLAY_MS && ticks < TICKS; ticks++) {
        double deadline = start + ticks * TICK_MS, before;
        while ((before = now_ms()) < deadline) {
            struct timespec pause = {0, (long)((deadline - before) * 1e6)};
            nanosleep(&pause, NULL);
        }
        shown += tick(context, before - start);
        busy[ticks] = now_ms() - before;
        if (after != NULL)
            after(context);
    }
    r->cpu_per_second = (cpu_seconds() - cpu) / ((now_ms() - start) / 1000);
    double total = 0;
    for (int i = 0; i < ticks; i++)
        total += busy[i];
    r->mean_tick_ms = total / ticks;
    qsort(busy, (size_t)ticks, sizeof busy[0], compare_doubles);
    r->p99_tick_ms = busy[ticks * 99 / 100];
    r->worst_tick_ms = busy[ticks - 1];
    r->due_share = (double)shown / ((double)ticks * FILES);
}

struct lazyimg_run {
    lazyimg_loader *loader;
    uint64_t max_cache_bytes;
};

static int lazyimg_tick(void *context, double t)
{
    struct lazyimg_run *run = context;
    int shown = 0;
    for (size_t row = 0; row < FILES; row++) {
        lazyimg_image *frame = NULL;
        if (lazyimg_frame_at(run->loader, row, (uint64_t)t, &frame, NULL, NULL) == LAZYIMG_OK) {
            /* The host would upload it; reading a pixel stands in. */
            shown += lazyimg_image_pixels(frame)[3] == 255;
            lazyimg_image_release(frame);
        }
    }
    return shown;
}

static void lazyimg_sample(void *context)
{
    struct lazyimg_run *run = context;
    lazyimg_stats stats = {.struct_size = sizeof stats};
    lazyimg_get_stats(run->loader, &stats);
    if (stats.memory_cache_bytes > run->max_cache_bytes)
        run->max_cache_bytes = stats.memory_cache_bytes;
}

static int run_lazyimg(struct result *r, char paths[FILES][256], unsigned budget)
{
    lazyimg_config cfg;
    lazyimg_config_init(&cfg);
    cfg.target_width = BOX_W;
    cfg.target_height = BOX_W;
    cfg.memory_cache_bytes = budget;
    cfg.animation_buffer_bytes = BUFFER;
    cfg.allow_file_urls = 1;
    struct lazyimg_run run = {NULL, 0};
    if (lazyimg_loader_create(&cfg, &run.loader) != LAZYIMG_OK)
        return 0;
    r->start_kib = status_kib("VmRSS:");
    double start = now_ms();
    char urls[FILES][300];
    const char *rows[FILES];
    for (int i = 0; i < FILES; i++) {
        snprintf(urls[i], sizeof urls[i], "file://%s", paths[i]);
        rows[i] = urls[i];
    }
    lazyimg_set_items(run.loader, rows, FILES);
    lazyimg_set_visible_range(run.loader, 0, FILES);
    int waiting = 0;
    for (size_t row = 0; row < FILES; row++) {
        lazyimg_image *image = NULL;
        uint64_t ticket;
        waiting += lazyimg_request(run.loader, row, &image, &ticket) > 0;
        lazyimg_image_release(image);
    }
    while (waiting > 0 && lazyimg_wait(run.loader, 30000) == LAZYIMG_OK)
        waiting -= (int)lazyimg_dispatch(run.loader, 0);
    r->first_ms = now_ms() - start;
    r->startup_cpu = cpu_seconds();
    play(r, lazyimg_tick, lazyimg_sample, &run);
    /* The cells leave: the rows below have no images. What 2 s cost then. */
    lazyimg_set_visible_range(run.loader, FILES, FILES);
    double cpu = cpu_seconds(), left = now_ms();
    struct timespec pause = {2, 0};
    nanosleep(&pause, NULL);
    r->left_cpu_per_second = (cpu_seconds() - cpu) / ((now_ms() - left) / 1000);
    lazyimg_loader_destroy(run.loader);
    fprintf(stderr, "lazyimg, %u MiB budget: memory_cache_bytes at most %.1f MiB\n", budget >> 20,
            run.max_cache_bytes / 1048576.0);
    return waiting == 0;
}

struct baseline_run {
    struct player players[FILES];
    int webp, streaming;
};

static int baseline_tick(void *context, double t)
{
    struct baseline_run *run = context;
    unsigned due = (unsigned)(t / FRAME_MS) % FRAMES;
    int shown = 0;
    for (int i = 0; i < FILES; i++) {
        struct player *p = &run->players[i];
        if (run->streaming)
            shown += stream_to(p, run->webp, due) && p->box[3] == 255;
        else
            shown += p->frames[due][3] == 255;
    }
    return shown;
}

static int run_baseline(struct result *r, char paths[FILES][256], enum mode mode, int webp)
{
    struct baseline_run run = {.webp = webp, .streaming = mode == STREAMING};
    r->start_kib = status_kib("VmRSS:");
    double start = now_ms();
    int ok = 1;
    for (int i = 0; ok && i < FILES; i++) {
        struct player *p = &run.players[i];
        p->bytes = read_file(paths[i], &p->size);
        ok = p->bytes != NULL;
        if (ok && mode != STREAMING) {
            ok = decode_all(p, webp, mode == UP_FRONT_BOX);
        } else if (ok) {
            p->box = malloc((size_t)BOX_W * BOX_H * 4);
            if (webp) {
                p->webp = webp_open(p);
                uint8_t *frame;
                int timestamp;
                ok = p->box != NULL && p->webp != NULL && WebPAnimDecoderGetNext(p->webp, &frame, &timestamp);
                p->canvas = frame;
            } else {
                p->canvas = malloc((size_t)WIDTH * HEIGHT * 4);
                p->before = malloc((size_t)WIDTH * HEIGHT * 4);
                p->indices = malloc((size_t)WIDTH * HEIGHT);
                ok = p->box != NULL && p->canvas != NULL && p->before != NULL && p->indices != NULL && gif_open(p) &&
                     gif_next(p);
            }
            if (ok)
                shrink(p->canvas, p->box);
        }
    }
    r->first_ms = now_ms() - start;
    r->startup_cpu = cpu_seconds();
    if (ok)
        play(r, baseline_tick, NULL, &run);
    return ok;
}

/* In a child process: one run, its result on stdout as one line. The busy runs
 * have two processes spinning beside them, one per core here, at the host's own
 * priority: the decode threads, 10 nice steps lower, then get little CPU, and a
 * host that waited on them would miss its ticks. */
static int child(enum mode mode, int webp, char paths[FILES][256])
{
    struct result r = {0};
    pid_t busy[BUSY_PROCESSES] = {0};
    int busy_run = mode == LAZYIMG_BUSY || mode == STREAMING_BUSY;
    for (int i = 0; busy_run && i < BUSY_PROCESSES; i++)
        if ((busy[i] = fork()) == 0)
            for (volatile unsigned long spin = 0;; spin++)
                ;
    int ok = mode == LAZYIMG || mode == LAZYIMG_TIGHT || mode == LAZYIMG_BUSY
                 ? run_lazyimg(&r, paths, mode == LAZYIMG_TIGHT ? TIGHT_BUDGET : BUDGET)
                 : run_baseline(&r, paths, mode == STREAMING_BUSY ? STREAMING : mode, webp);
    for (int i = 0; busy_run && i < BUSY_PROCESSES; i++)
        if (busy[i] > 0) {
            kill(busy[i], SIGKILL);
            waitpid(busy[i], NULL, 0);
        }
    r.peak_kib = status_kib("VmHWM:");
    printf("%ld %ld %f %f %f %f %f %f %f %f\n", r.peak_kib, r.start_kib, r.startup_cpu, r.cpu_per_second, r.first_ms,
           r.mean_tick_ms, r.p99_tick_ms, r.worst_tick_ms, r.due_share, r.left_cpu_per_second);
    return ok ? 0 : 1;
}

static int run_child(const char *self, enum mode mode, int webp, const char *dir, struct result *r)
{
    char command[1200];
    snprintf(command, sizeof command, "'%s' --child %d %d '%s'", self, (int)mode, webp, dir);
    FILE *p = popen(command, "r");
    int got = p != NULL && fscanf(p, "%ld %ld %lf %lf %lf %lf %lf %lf %lf %lf", &r->peak_kib, &r->start_kib,
                                  &r->startup_cpu, &r->cpu_per_second, &r->first_ms, &r->mean_tick_ms,
                                  &r->p99_tick_ms, &r->worst_tick_ms, &r->due_share, &r->left_cpu_per_second) == 10;
    int status = p != NULL ? pclose(p) : -1;
    return got && status == 0;
}

static void paths_in(const char *dir, int webp, char paths[FILES][256])
{
    for (int i = 0; i < FILES; i++)
        snprintf(paths[i], 256, "%s/anim%02d.%s", dir, i, webp ? "webp" : "gif");
}

int main(int argc, char **argv)
{
    char paths[FILES][256];
    if (argc == 5 && strcmp(argv[1], "--child") == 0) {
        paths_in(argv[4], atoi(argv[3]), paths);
        return child((enum mode)atoi(argv[2]), atoi(argv[3]), paths);
    }
    char dir[] = "/tmp/lazyimg-bench-animation-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    char self[512];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    printf("12 animations of %d frames, %dx%d, %d ms a frame, playing %d s into a %d px box at 60 Hz\n\n", FRAMES,
           WIDTH, HEIGHT, FRAME_MS, PLAY_MS / 1000, BOX_W);
    int failed = 0;
    for (int webp = 0; webp <= 1; webp++) {
        size_t total = 0;
        paths_in(dir, webp, paths);
        for (int i = 0; i < FILES; i++) {
            size_t size = 0;
            if (!write_file(paths[i], webp ? ANIMATION_WEBP : ANIMATION_GIF, (unsigned)i, &size)) {
                fprintf(stderr, "could not write %s\n", paths[i]);
                return 1;
            }
            total += size;
        }
        printf("%s: files %.1f MiB in all\n\n", webp ? "WebP" : "GIF", total / 1048576.0);
        printf("| player | peak RSS MiB | x lazyimg | CPU s per s playing | x lazyimg | CPU s to start | "
               "first frames ms | host per tick: mean / p99 / max ms | cells showing the frame due |\n"
               "|---|---|---|---|---|---|---|---|---|\n");
        struct result results[MODES];
        for (int mode = 0; mode < MODES; mode++) {
            struct result *r = &results[mode];
            if (!run_child(self, (enum mode)mode, webp, dir, r)) {
                printf("| %s | failed |\n", mode_names[mode]);
                failed = 1;
                continue;
            }
            printf("| %s | %.1f | %.2f | %.3f | %.2f | %.2f | %.0f | %.3f / %.2f / %.2f | %.1f%% |\n", mode_names[mode],
                   r->peak_kib / 1024.0, (double)r->peak_kib / results[0].peak_kib, r->cpu_per_second,
                   r->cpu_per_second / results[0].cpu_per_second, r->startup_cpu, r->first_ms, r->mean_tick_ms,
                   r->p99_tick_ms, r->worst_tick_ms, 100 * r->due_share);
        }
        printf("\n");
        for (int mode = LAZYIMG; mode <= LAZYIMG_BUSY; mode++)
            printf("%s: peak RSS %.1f MiB = %.1f MiB at loader creation + %.1f MiB (budget %u MiB); "
                   "after the cells left: %.4f CPU s per s\n", mode_names[mode], results[mode].peak_kib / 1024.0,
                   results[mode].start_kib / 1024.0, (results[mode].peak_kib - results[mode].start_kib) / 1024.0,
                   (mode == LAZYIMG_TIGHT ? TIGHT_BUDGET : BUDGET) >> 20, results[mode].left_cpu_per_second);
        printf("\n");
        for (int i = 0; i < FILES; i++)
            remove(paths[i]);
    }
    rmdir(dir);
    return failed;
}

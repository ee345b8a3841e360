/*
 * minimal.c: a contact sheet, the smallest complete lazyimg program.
 *
 * Loads every URL given on the command line into a 64x64 cell (decoded and
 * downsampled off this thread), waits for the events on this thread, and
 * writes the cells as one RGBA PNG with libspng. Exits non-zero when an image
 * failed. Build it against an installed lazyimg:
 *   cc minimal.c -o minimal $(pkg-config --cflags --libs lazyimg spng)
 * usage: minimal OUT.png URL...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lazyimg.h>
#include <spng.h>

#define CELL 64

struct sheet {
    uint8_t *rgba;      /* cols x rows cells, 4 bytes a pixel */
    size_t cols, width; /* cells across, pixels across */
    size_t pending;     /* tickets still waiting for their event */
    int failed;
};

/* Copies an image into its row's cell, centred. */
static void paste(struct sheet *s, size_t row, const lazyimg_image *img)
{
    uint32_t w = lazyimg_image_width(img), h = lazyimg_image_height(img);
    size_t x0 = (row % s->cols) * CELL + (CELL - w) / 2;
    size_t y0 = (row / s->cols) * CELL + (CELL - h) / 2;
    for (uint32_t y = 0; y < h; y++)
        memcpy(s->rgba + ((y0 + y) * s->width + x0) * 4,
               lazyimg_image_pixels(img) + y * lazyimg_image_stride(img), (size_t)w * 4);
}

/* Runs on this thread, inside lazyimg_dispatch. */
static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct sheet *s = user_data;
    s->pending--;
    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        paste(s, ev->row, ev->image);
    } else {
        fprintf(stderr, "%s: %s (%s)\n", ev->url, lazyimg_strerror(ev->status), ev->message);
        s->failed = 1;
    }
}

static int write_png(const char *path, const struct sheet *s, size_t height)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ihdr = {(uint32_t)s->width, (uint32_t)height, 8, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0, 0, 0};
    int err = ctx == NULL || spng_set_png_file(ctx, f) || spng_set_ihdr(ctx, &ihdr) ||
              spng_encode_image(ctx, s->rgba, s->width * height * 4, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    spng_ctx_free(ctx);
    return (fclose(f) != 0 || err) ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT.png URL...\n", argv[0]);
        return 2;
    }
    size_t n = (size_t)argc - 2, cols = 1;
    while (cols * cols < n)
        cols++;
    size_t height = (n + cols - 1) / cols * CELL;
    struct sheet s = {calloc(cols * CELL * height, 4), cols, cols * CELL, 0, 0};

    lazyimg_config cfg;
    lazyimg_config_init(&cfg);
    cfg.on_event = on_event;
    cfg.user_data = &s;
    cfg.target_width = CELL;
    cfg.target_height = CELL;
    lazyimg_loader *loader;
    lazyimg_status st = lazyimg_loader_create(&cfg, &loader);
    if (s.rgba == NULL || st < 0) {
        fprintf(stderr, "lazyimg_loader_create: %s\n", lazyimg_strerror(st));
        return 1;
    }
    lazyimg_set_items(loader, (const char *const *)(argv + 2), n);
    for (size_t row = 0; row < n; row++) {
        lazyimg_image *img;
        uint64_t ticket;
        st = lazyimg_request(loader, row, &img, &ticket);
        if (st == LAZYIMG_OK) {
            paste(&s, row, img); /* already in memory: a +1 reference */
            lazyimg_image_release(img);
        } else if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED) {
            s.pending++; /* exactly one event follows */
        } else {
            fprintf(stderr, "%s: %s\n", argv[2 + row], lazyimg_strerror(st));
            s.failed = 1;
        }
    }
    /* A GUI would poll lazyimg_event_fd in its own loop instead. */
    while (s.pending > 0 && lazyimg_wait(loader, 30000) == LAZYIMG_OK)
        lazyimg_dispatch(loader, 0);
    if (s.pending > 0)
        s.failed = 1;
    lazyimg_loader_destroy(loader);

    if (write_png(argv[1], &s, height) != 0) {
        fprintf(stderr, "%s: cannot write the PNG\n", argv[1]);
        s.failed = 1;
    } else {
        printf("minimal: %zu images in a %zux%zu sheet: %s\n", n, s.width, height, argv[1]);
    }
    free(s.rgba);
    return s.failed;
}

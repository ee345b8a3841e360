/*
 * formats.c: the 0.2 output options, on one image of each format.
 *
 * Two loaders load the same five rows from the loopback server (a JPEG, a
 * PNG, a WebP, a GIF and an animated GIF):
 *   fill     LAZYIMG_FIT_FILL into a 48x48 box with
 *            LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED: every image is exactly 48x48,
 *            and no colour byte exceeds its pixel's alpha.
 *   encoded  LAZYIMG_OUTPUT_ENCODED: the file's bytes as served, with the
 *            codec sniffed from them; no pixels.
 * Events are dispatched on this thread after lazyimg_wait. The exit status is
 * non-zero when an expectation fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "image_server.h"
#include "lazyimg.h"

#define ROWS 5
#define BOX 48
#define WAIT_MS 30000

static const struct row {
    const char *path;
    lazyimg_codec codec;
    int animated;
} rows[ROWS] = {
    {"/img/10.jpg", LAZYIMG_CODEC_JPEG, 0},
    {"/img/11.png", LAZYIMG_CODEC_PNG, 0},
    {"/img/12.webp", LAZYIMG_CODEC_WEBP, 0},
    {"/img/13.gif", LAZYIMG_CODEC_GIF, 0},
    {"/anim/14.gif", LAZYIMG_CODEC_GIF, 1},
};

static unsigned failures;

static void expect(int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok)
        return;
    failures++;
    fputs("FAIL: ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static const char *codec_name(lazyimg_codec codec)
{
    switch (codec) {
    case LAZYIMG_CODEC_JPEG: return "JPEG";
    case LAZYIMG_CODEC_PNG: return "PNG";
    case LAZYIMG_CODEC_GIF: return "GIF";
    case LAZYIMG_CODEC_WEBP: return "WebP";
    default: return "unknown";
    }
}

/* What one loader brought back: a +1 reference per row, or NULL. */
struct results {
    lazyimg_image *images[ROWS];
    unsigned events;
};

static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct results *r = user_data;
    r->events++;
    if (ev->type == LAZYIMG_EVENT_IMAGE && ev->row < ROWS)
        r->images[ev->row] = lazyimg_image_retain(ev->image);
    else
        printf("  row %zu %s: %s: %s\n", ev->row, ev->url, lazyimg_strerror(ev->status),
               ev->message);
}

/* Creates a loader with `cfg`, requests every row and waits for the events;
 * the images stay in `r` after the loader is destroyed. */
static void load(lazyimg_config *cfg, char *const *urls, struct results *r)
{
    lazyimg_loader *loader = NULL;
    lazyimg_status st;
    unsigned expected = 0;
    size_t row;
    int waited;

    memset(r, 0, sizeof *r);
    cfg->on_event = on_event;
    cfg->user_data = r;
    st = lazyimg_loader_create(cfg, &loader);
    expect(st == LAZYIMG_OK, "lazyimg_loader_create: %s", lazyimg_strerror(st));
    if (st != LAZYIMG_OK)
        return;
    lazyimg_set_items(loader, (const char *const *)urls, ROWS);
    for (row = 0; row < ROWS; row++) {
        uint64_t ticket = 0;
        st = lazyimg_request(loader, row, &r->images[row], &ticket);
        expected += st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED;
        expect(st >= 0, "row %zu: lazyimg_request: %s", row, lazyimg_strerror(st));
    }
    for (waited = 0; r->events < expected && waited < WAIT_MS; waited += 100) {
        if (lazyimg_wait(loader, 100) == LAZYIMG_OK)
            lazyimg_dispatch(loader, 0);
    }
    expect(r->events == expected, "%u of %u events after %d ms", r->events, expected, WAIT_MS);
    lazyimg_loader_destroy(loader);
}

/* Pixels whose alpha is below 255, in percent; counts colour bytes above
 * their alpha in *bad. */
static unsigned translucent_percent(const lazyimg_image *image, unsigned *bad)
{
    const uint8_t *pixels = lazyimg_image_pixels(image);
    size_t stride = lazyimg_image_stride(image);
    uint32_t w = lazyimg_image_width(image), h = lazyimg_image_height(image), x, y;
    unsigned translucent = 0;
    *bad = 0;
    for (y = 0; y < h; y++) {
        for (x = 0; x < w; x++) {
            const uint8_t *p = pixels + y * stride + x * 4;
            translucent += p[3] < 255;
            *bad += (p[0] > p[3]) + (p[1] > p[3]) + (p[2] > p[3]);
        }
    }
    return w * h > 0 ? translucent * 100u / (w * h) : 0;
}

static void report_fill(const struct results *r)
{
    size_t row;
    for (row = 0; row < ROWS; row++) {
        const lazyimg_image *image = r->images[row];
        unsigned bad = 0, translucent;
        if (image == NULL) {
            expect(0, "fill: %s did not arrive", rows[row].path);
            continue;
        }
        translucent = translucent_percent(image, &bad);
        printf("  %-13s %ux%u from %ux%u, %s, %3u%% translucent%s\n", rows[row].path,
               lazyimg_image_width(image), lazyimg_image_height(image),
               lazyimg_image_source_width(image), lazyimg_image_source_height(image),
               lazyimg_image_pixel_format(image) == LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED
                   ? "BGRA8 premultiplied" : "RGBA8",
               translucent, lazyimg_image_is_animated(image) ? ", animated" : "");
        expect(lazyimg_image_width(image) == BOX && lazyimg_image_height(image) == BOX,
               "fill: %s is not exactly %dx%d", rows[row].path, BOX, BOX);
        expect(lazyimg_image_pixel_format(image) == LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED,
               "fill: %s is not BGRA8 premultiplied", rows[row].path);
        expect(bad == 0, "fill: %s has %u colour bytes above their alpha", rows[row].path, bad);
        expect((translucent > 0) == (rows[row].codec != LAZYIMG_CODEC_JPEG),
               "fill: %s is %u%% translucent", rows[row].path, translucent);
        expect(lazyimg_image_is_animated(image) == rows[row].animated,
               "fill: %s animated flag %d", rows[row].path, lazyimg_image_is_animated(image));
    }
}

static void report_encoded(const struct results *r)
{
    size_t row;
    for (row = 0; row < ROWS; row++) {
        const lazyimg_image *image = r->images[row];
        size_t size = 0;
        const uint8_t *data;
        if (image == NULL) {
            expect(0, "encoded: %s did not arrive", rows[row].path);
            continue;
        }
        data = lazyimg_image_encoded_data(image, &size);
        printf("  %-13s %-4s %6zu bytes%s\n", rows[row].path, codec_name(lazyimg_image_codec(image)),
               size, lazyimg_image_is_animated(image) ? ", animated" : "");
        expect(lazyimg_image_codec(image) == rows[row].codec, "encoded: %s codec %s",
               rows[row].path, codec_name(lazyimg_image_codec(image)));
        expect(data != NULL && size > 0, "encoded: %s has no bytes", rows[row].path);
        expect(lazyimg_image_pixels(image) == NULL && lazyimg_image_width(image) == 0,
               "encoded: %s has pixels", rows[row].path);
    }
}

int main(void)
{
    static char urls[ROWS][96];
    char *url_list[ROWS];
    image_server *server;
    lazyimg_config cfg;
    struct results fill, encoded;
    size_t row;

    alarm(120); /* a last resort: never hang */
    server = image_server_start();
    if (server == NULL)
        return 1;
    for (row = 0; row < ROWS; row++) {
        snprintf(urls[row], sizeof urls[row], "http://127.0.0.1:%d%s", image_server_port(server),
                 rows[row].path);
        url_list[row] = urls[row];
    }

    printf("fill %dx%d, BGRA8 premultiplied\n", BOX, BOX);
    lazyimg_config_init(&cfg);
    cfg.target_width = BOX;
    cfg.target_height = BOX;
    cfg.fit = LAZYIMG_FIT_FILL;
    cfg.pixel_format = LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED;
    load(&cfg, url_list, &fill);
    report_fill(&fill);

    printf("\nencoded output\n");
    lazyimg_config_init(&cfg);
    cfg.output = LAZYIMG_OUTPUT_ENCODED;
    load(&cfg, url_list, &encoded);
    report_encoded(&encoded);

    for (row = 0; row < ROWS; row++) {
        lazyimg_image_release(fill.images[row]);
        lazyimg_image_release(encoded.images[row]);
    }
    image_server_stop(server);
    if (failures)
        printf("\nFAILED: %u expectation(s) not met\n", failures);
    else
        printf("\nOK: every expectation met\n");
    return failures ? 1 : 0;
}

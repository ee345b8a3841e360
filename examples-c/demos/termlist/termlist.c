/*
 * termlist.c: an endless list of pictures in the terminal, driven by lazyimg
 * exactly as a GUI list drives it.
 *
 * Rows come from a paged JSON feed (its own loopback server, feed_server.c, or
 * --feed URL), fetched with lazyimg_fetch when the loader's NEED_PAGE event
 * says the list nears its end, parsed with cJSON and appended, each item's
 * "blurhash" given to lazyimg_set_placeholders (feed_pager.c). Each row shows a
 * thumbnail drawn with ANSI truecolor half-blocks, its title and sizes; the
 * cells ask lazyimg_request for their image, show the placeholder it may answer
 * with, and wait for one event per ticket.
 * Every motion reports its scroll state and velocity, and a glide or fling its
 * resting place (lazyimg_set_scroll_target). Events are dispatched from the
 * poll() loop on lazyimg_event_fd. Animated GIF and WebP rows play: each frame
 * the visible cells ask lazyimg_frame_at for the frame due since they appeared,
 * and keep showing the last one while the next is not decoded yet.
 *
 * Without a terminal (or with --script) it replays a scripted scroll, checks
 * what a list needs (while the list moves, downloads only for the rows the
 * scroll policy allows; a URL downloaded again only after its first transfer was
 * cancelled; one event per ticket; the pages arrived: feed_checks.c; an animated
 * cell advanced while visible and no frame was decoded while none was:
 * animation_watch.c; both shared with the GTK feed), writes a contact sheet of the screen with --sheet, and
 * exits non-zero when an expectation fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spng.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "animation_watch.h"
#include "feed_checks.h"
#include "feed_options.h"
#include "feed_pager.h"
#include "feed_server.h"
#include "lazyimg.h"

#define THUMB_W 24               /* the cell's image box, in pixels: */
#define THUMB_H 16               /* one column and half a line each */
#define ROW_LINES (THUMB_H / 2)  /* terminal lines per row */
#define TEXT_COL (THUMB_W + 2)
#define MAX_CELLS 64             /* reusable cells; more than any screen shows */
#define HEADLESS_COLS 100
#define HEADLESS_LINES 42        /* status line, 40 list lines (5 rows), help line */
#define FRAME_MS 16
#define DRAG_IDLE_MS 120         /* a drag ends when no step came for this long */
#define FLING_ROWS_PER_S 60.0
#define FLING_DECAY 0.94         /* velocity kept per 1/60 s */
#define GLIDE_KEEP 0.7           /* distance left to a glide's target kept per 1/60 s */
#define REST_ROWS_PER_S 2.0      /* a fling slower than this rests */
#define SHEET_SCALE 8            /* contact sheet: each thumbnail pixel as 8x8 */
#define SHEET_COLUMNS 3
#define SHEET_GAP 12
#define ANIMATION_BUFFER (256 << 10) /* decoded frames an animation keeps ahead */

/* A reusable cell: shows one row and waits for at most one ticket. */
struct cell {
    size_t row;           /* SIZE_MAX = none */
    uint64_t ticket;      /* 0 = none */
    lazyimg_image *image; /* +1 reference */
    lazyimg_image *placeholder; /* +1 reference: shown until the image comes */
    lazyimg_status error; /* LAZYIMG_OK = none */
    int deferred;         /* the request answered DEFERRED */
    int ask_again;        /* its ticket was cancelled while it still shows the row */
    /* An animated image: the frame shown (+1; NULL = the image itself), since when
     * the cell shows the row (the animation's clock), and how often it changed. */
    lazyimg_image *frame;
    double shown_since;
    uint32_t frame_index;
    unsigned advances;
};

enum motion { STILL, DRAG, GLIDE, FLING };

struct app {
    lazyimg_loader *loader;
    struct feed_server *server;
    int interactive;
    struct feed_pager pager; /* the rows */
    /* the view, in lines from the top of the list */
    int cols, lines, list_lines;
    double pos, velocity; /* velocity in lines per second */
    double target;        /* where a glide or fling rests */
    enum motion motion;
    double last_step_at;  /* ms: the last drag step */
    size_t first, visible; /* what set_visible_range was told */
    int has_range;
    struct cell cells[MAX_CELLS];
    struct feed_checks checks; /* and what the loader was told */
    struct animation_watch watch;
    lazyimg_stats ended;       /* the stats when the script ended, before destroy */
    double ended_at;
    unsigned targets_sent;
    int verbose;
};

static volatile sig_atomic_t interrupted, resized;

/* ------------------------------------------------------------- paging */

static unsigned paging_distance(const struct app *a)
{
    return (unsigned)(2 * (a->list_lines / ROW_LINES + 1)); /* two screens ahead */
}

/* -------------------------------------------------------------- cells */

static struct cell *cell_for_row(struct app *a, size_t row)
{
    struct cell *c = &a->cells[row % MAX_CELLS];
    return c->row == row ? c : NULL;
}

static void cell_clear(struct cell *c)
{
    lazyimg_image_release(c->image);
    lazyimg_image_release(c->frame);
    lazyimg_image_release(c->placeholder);
    c->image = c->frame = c->placeholder = NULL;
    c->frame_index = 0;
    c->advances = 0;
    c->ticket = 0;
    c->error = LAZYIMG_OK;
    c->deferred = c->ask_again = 0;
}

/* cellForRow: memory hit now, or a ticket whose one event follows, with the row's
 * placeholder to show meanwhile when the feed gave one. */
static void cell_request(struct app *a, struct cell *c)
{
    lazyimg_image *image = NULL;
    uint64_t ticket = 0;
    lazyimg_status st = feed_request(&a->checks, a->loader, c->row, &image, &ticket);
    c->ask_again = 0;
    if (st == LAZYIMG_OK) {
        c->image = image;
        c->shown_since = feed_now_ms();
    } else if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED || st == LAZYIMG_PLACEHOLDER) {
        c->ticket = ticket;
        c->deferred = st == LAZYIMG_DEFERRED;
        if (st == LAZYIMG_PLACEHOLDER) {
            lazyimg_image_release(c->placeholder);
            c->placeholder = image;
        }
    } else {
        c->error = st;
    }
}

static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct app *a = user_data;
    if (feed_pager_event(&a->pager, a->loader, &a->checks, ev))
        return;
    feed_checks_event(&a->checks, ev->ticket);
    struct cell *c = cell_for_row(a, ev->row);
    if (c == NULL || c->ticket != ev->ticket)
        return; /* the cell shows another row now: stale */
    c->ticket = 0;
    c->deferred = 0;
    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        feed_expect(&a->checks, !lazyimg_image_is_placeholder(ev->image), "row %zu: an IMAGE event with a placeholder",
                    ev->row);
        c->image = lazyimg_image_retain(ev->image);
        c->shown_since = feed_now_ms();
        lazyimg_image_release(c->placeholder);
        c->placeholder = NULL;
    }
    else if (ev->status == LAZYIMG_E_CANCELLED)
        c->ask_again = 1;
    else
        c->error = ev->status;
}

/* --------------------------------------------------------------- view */

/* The rows and one more at the end: "loading more..." while a page is on the way,
 * "end of the feed" after the last. It stays, so the list never shrinks under the
 * user when the feed ends. */
static double total_lines(const struct app *a)
{
    return (double)(a->pager.count + 1) * ROW_LINES;
}

static double max_pos(const struct app *a)
{
    double m = total_lines(a) - a->list_lines;
    return m > 0 ? m : 0;
}

/* A glide or fling knows where it rests: tell the loader, after the state and
 * velocity of the motion, since a turn voids the target. */
static void report_target(struct app *a, double rows_per_second)
{
    double rest = a->target < 0 ? 0 : a->target > max_pos(a) ? max_pos(a) : a->target;
    size_t first = (size_t)(rest / ROW_LINES);
    size_t last = (size_t)((rest + a->list_lines - 1) / ROW_LINES);
    feed_tell_scroll(&a->checks, a->loader, LAZYIMG_SCROLL_DECELERATING, rows_per_second);
    feed_tell_target(&a->checks, a->loader, first, last - first + 1);
    a->targets_sent++;
}

/* Tells the loader the visible rows when they changed, and fills the cells. */
static void update_view(struct app *a)
{
    size_t first = (size_t)(a->pos / ROW_LINES);
    size_t last = (size_t)((a->pos + a->list_lines - 1) / ROW_LINES);
    if (!a->has_range || first != a->first || last - first + 1 != a->visible) {
        a->first = first;
        a->visible = last - first + 1;
        a->has_range = 1;
        feed_tell_visible(&a->checks, a->loader, first, a->visible);
    }
    for (size_t row = first; row <= last && row < a->pager.count; row++) {
        struct cell *c = &a->cells[row % MAX_CELLS];
        if (c->row != row) {
            cell_clear(c);
            c->row = row;
            cell_request(a, c);
        } else if (c->ask_again) {
            cell_request(a, c);
        }
    }
}

/* The visible cells' animations: the frame due for each now, kept until the
 * next is decoded. Returns how many animated rows are on screen. */
static unsigned animate(struct app *a, double now)
{
    unsigned shown = 0, advances = 0;
    for (size_t row = a->first; row < a->first + a->visible && row < a->pager.count; row++) {
        struct cell *c = cell_for_row(a, row);
        if (c == NULL || c->image == NULL || lazyimg_image_frame_count(c->image) < 2)
            continue;
        shown++;
        lazyimg_image *frame = animation_next_frame(a->loader, row, now - c->shown_since, &c->frame_index);
        if (frame != NULL) {
            lazyimg_image_release(c->frame);
            c->frame = frame;
            c->advances++;
        }
        advances = c->advances > advances ? c->advances : advances;
    }
    if (!a->interactive)
        animation_watch_frame(&a->watch, &a->checks, a->loader, shown, advances);
    return shown;
}

/* One frame of motion, `dt` seconds long. */
static void step_motion(struct app *a, double dt, double now)
{
    double before = a->pos;
    switch (a->motion) {
    case STILL:
        break;
    case DRAG:
        if (now - a->last_step_at >= DRAG_IDLE_MS)
            a->motion = STILL;
        break;
    case GLIDE:
        a->pos += (a->target - a->pos) * (1 - pow(GLIDE_KEEP, dt * 60));
        if (fabs(a->target - a->pos) < 0.5)
            a->pos = a->target, a->motion = STILL;
        break;
    case FLING:
        a->pos += a->velocity * dt;
        a->velocity *= pow(FLING_DECAY, dt * 60);
        if (fabs(a->velocity) < REST_ROWS_PER_S * ROW_LINES || a->pos <= 0 || a->pos >= max_pos(a))
            a->motion = STILL;
        break;
    }
    if (a->pos > max_pos(a))
        a->pos = max_pos(a);
    if (a->pos < 0)
        a->pos = 0;
    if (a->motion == GLIDE || a->motion == FLING) {
        double rows_per_second = dt > 0 ? (a->pos - before) / dt / ROW_LINES : 0;
        feed_tell_scroll(&a->checks, a->loader, LAZYIMG_SCROLL_DECELERATING, rows_per_second);
    } else if (a->motion == STILL) {
        feed_tell_scroll(&a->checks, a->loader, LAZYIMG_SCROLL_IDLE, 0);
    }
}

enum key { KEY_NONE, KEY_DOWN, KEY_UP, KEY_PGDN, KEY_PGUP, KEY_HOME, KEY_END, KEY_FLING, KEY_FLING_UP,
           KEY_WHEEL_DOWN, KEY_WHEEL_UP, KEY_QUIT };

/* What a key does: drag steps, glides to a known place, or flings. */
static void press(struct app *a, enum key key, double now)
{
    double lines = 0, page = a->list_lines - ROW_LINES;
    /* A page key during a glide pages on from where the glide was going. */
    double from = a->motion == GLIDE ? a->target : a->pos;
    switch (key) {
    case KEY_DOWN: lines = ROW_LINES; break;
    case KEY_UP: lines = -ROW_LINES; break;
    case KEY_WHEEL_DOWN: lines = 3; break;
    case KEY_WHEEL_UP: lines = -3; break;
    case KEY_PGDN: case KEY_PGUP: case KEY_HOME: case KEY_END:
        a->motion = GLIDE;
        a->target = key == KEY_HOME ? 0 : key == KEY_END ? max_pos(a) : from + (key == KEY_PGDN ? page : -page);
        a->target = a->target < 0 ? 0 : a->target > max_pos(a) ? max_pos(a) : a->target;
        /* Its first frame's step, as step_motion moves it. */
        report_target(a, (a->target - a->pos) * (1 - GLIDE_KEEP) * 60 / ROW_LINES);
        return;
    case KEY_FLING: case KEY_FLING_UP:
        a->motion = FLING;
        a->velocity = (key == KEY_FLING ? 1 : -1) * FLING_ROWS_PER_S * ROW_LINES;
        /* Geometric decay per frame: it rests v/60 * k / (1 - k) lines further on. */
        a->target = a->pos + a->velocity / 60 * FLING_DECAY / (1 - FLING_DECAY);
        report_target(a, a->velocity / ROW_LINES);
        return;
    default:
        return;
    }
    /* A drag step: the speed is the step over the time since the last one. */
    double interval = now - a->last_step_at;
    if (interval < FRAME_MS)
        interval = FRAME_MS;
    if (interval > 500)
        interval = 500;
    a->pos += lines;
    if (a->pos > max_pos(a))
        a->pos = max_pos(a);
    if (a->pos < 0)
        a->pos = 0;
    a->motion = DRAG;
    a->last_step_at = now;
    feed_tell_scroll(&a->checks, a->loader, LAZYIMG_SCROLL_DRAGGING, lines / ROW_LINES / (interval / 1000));
}

/* --------------------------------------------------------- rendering */

struct out {
    char *data;
    size_t size, capacity;
};

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    char buffer[512];
    va_start(ap, fmt);
    int n = vsnprintf(buffer, sizeof buffer, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buffer)
        n = sizeof buffer - 1;
    if (o->size + (size_t)n + 1 > o->capacity) {
        size_t capacity = (o->size + (size_t)n + 1) * 2;
        char *grown = realloc(o->data, capacity);
        if (grown == NULL)
            return;
        o->data = grown;
        o->capacity = capacity;
    }
    memcpy(o->data + o->size, buffer, (size_t)n);
    o->size += (size_t)n;
}

/* Thumbnail pixel (x, y) of a cell as RGB over the dark background: its image, or
 * the feed's placeholder while it loads (else a grey checker), red when it failed. */
static void thumb_pixel(const struct cell *c, int x, int y, uint8_t rgb[3])
{
    static const uint8_t background[3] = {24, 24, 30};
    memcpy(rgb, background, 3);
    const lazyimg_image *shown = NULL;
    if (c != NULL)
        shown = c->frame != NULL ? c->frame : c->image != NULL ? c->image : c->placeholder;
    if (shown == NULL || (c->image == NULL && c->error != LAZYIMG_OK)) {
        int checker = ((x / 4) + (y / 4)) % 2;
        uint8_t v = (uint8_t)(c != NULL && c->error != LAZYIMG_OK ? 0 : checker ? 52 : 44);
        rgb[0] = c != NULL && c->error != LAZYIMG_OK ? 120 : v, rgb[1] = v, rgb[2] = (uint8_t)(v + 6 * (v > 0));
        return;
    }
    int w = (int)lazyimg_image_width(shown), h = (int)lazyimg_image_height(shown);
    int ix = x - (THUMB_W - w) / 2, iy = y - (THUMB_H - h) / 2;
    if (ix < 0 || iy < 0 || ix >= w || iy >= h)
        return;
    const uint8_t *p = lazyimg_image_pixels(shown) + (size_t)iy * lazyimg_image_stride(shown) + (size_t)ix * 4;
    for (int i = 0; i < 3; i++)
        rgb[i] = (uint8_t)((p[i] * p[3] + background[i] * (255 - p[3])) / 255);
}

static const char *scroll_name(lazyimg_scroll_state s)
{
    return s == LAZYIMG_SCROLL_DRAGGING ? "DRAGGING" : s == LAZYIMG_SCROLL_DECELERATING ? "DECELERATING" : "IDLE";
}

static void render_text(struct app *a, struct out *o, size_t row, int line)
{
    const struct feed_item *it = &a->pager.items[row];
    const struct cell *c = cell_for_row(a, row);
    put(o, "\x1b[0m  ");
    if (line == 1) {
        put(o, "\x1b[1m%-.*s\x1b[0m  \x1b[2mrow %zu\x1b[0m", a->cols - TEXT_COL - 16, it->title, row);
        if (c != NULL && c->image != NULL && lazyimg_image_frame_count(c->image) > 1)
            put(o, " \x1b[2mframe %u of %u\x1b[0m", c->frame_index + 1, lazyimg_image_frame_count(c->image));
    } else if (line == 2) {
        put(o, "%ux%u", it->width, it->height);
        if (c != NULL && c->image != NULL)
            put(o, " \x1b[2m-> %ux%u thumbnail\x1b[0m", lazyimg_image_width(c->image), lazyimg_image_height(c->image));
    } else if (line == 3 && c != NULL) {
        if (c->image != NULL)
            put(o, "\x1b[32mloaded\x1b[0m");
        else if (c->error != LAZYIMG_OK)
            put(o, "\x1b[31m%s\x1b[0m", lazyimg_strerror(c->error));
        else if (c->deferred)
            put(o, "\x1b[33mdeferred while the list moves\x1b[0m");
        else if (c->placeholder != NULL)
            put(o, "\x1b[36mloading... (its blurhash meanwhile)\x1b[0m");
        else
            put(o, "\x1b[36mloading...\x1b[0m");
    }
}

static void render(struct app *a)
{
    struct out o = {NULL, 0, 0};
    lazyimg_stats s = feed_stats(a->loader);
    put(&o, "\x1b[H\x1b[0m\x1b[7m %zu rows/%u pages | %s %+.1f rows/s | in flight %" PRIu64 " | memory hits %" PRIu64
            " | deferred %" PRIu64 " | downloads %" PRIu64 " | %.1f MB \x1b[K\x1b[0m\r\n",
        a->pager.count, a->pager.pages, scroll_name(a->checks.state), a->checks.velocity, s.in_flight, s.memory_hits,
        s.deferred, s.downloads_started, s.bytes_downloaded / 1e6);
    long top = (long)a->pos;
    for (int y = 0; y < a->list_lines; y++) {
        size_t row = (size_t)(top + y) / ROW_LINES;
        int line = (int)((top + y) % ROW_LINES);
        if (row < a->pager.count) {
            const struct cell *c = cell_for_row(a, row);
            for (int x = 0; x < THUMB_W; x++) {
                uint8_t up[3], down[3];
                thumb_pixel(c, x, 2 * line, up);
                thumb_pixel(c, x, 2 * line + 1, down);
                put(&o, "\x1b[38;2;%u;%u;%um\x1b[48;2;%u;%u;%um\xe2\x96\x80", up[0], up[1], up[2], down[0], down[1],
                    down[2]);
            }
            render_text(a, &o, row, line);
        } else if (row == a->pager.count && line == ROW_LINES / 2 && a->pager.ticket != 0) {
            put(&o, "\x1b[0m  \x1b[36mloading more...\x1b[0m");
        } else if (row == a->pager.count && line == ROW_LINES / 2 && a->pager.error[0] != '\0') {
            put(&o, "\x1b[0m  \x1b[31m%s (retrying)\x1b[0m", a->pager.error);
        } else if (row == a->pager.count && line == ROW_LINES / 2 && a->pager.next_page == NULL) {
            put(&o, "\x1b[0m  \x1b[2mend of the feed\x1b[0m");
        }
        put(&o, "\x1b[0m\x1b[K\r\n");
    }
    put(&o, "\x1b[2m j/k arrows wheel: drag   PgUp/PgDn Home/End: glide   f/F: fling   q: quit   scroll targets sent: %u\x1b[K\x1b[0m",
        a->targets_sent);
    if (o.data != NULL && write(STDOUT_FILENO, o.data, o.size) < 0)
        interrupted = 1;
    free(o.data);
}

/* --------------------------------------------------------------- sheet */

/* A PNG of the thumbnails on screen, SHEET_COLUMNS a row, each pixel as a block.
 * Returns how many thumbnails were not blank (an image with more than one colour),
 * or -1 when it could not be written. */
static int write_sheet(struct app *a, const char *path)
{
    size_t last = a->first + a->visible;
    if (last > a->pager.count)
        last = a->pager.count;
    int tiles = (int)(last - a->first), nonblank = 0;
    int rows = tiles ? (tiles + SHEET_COLUMNS - 1) / SHEET_COLUMNS : 1;
    unsigned tile_w = THUMB_W * SHEET_SCALE, tile_h = THUMB_H * SHEET_SCALE;
    unsigned width = SHEET_COLUMNS * (tile_w + SHEET_GAP) + SHEET_GAP;
    unsigned height = (unsigned)rows * (tile_h + SHEET_GAP) + SHEET_GAP;
    uint8_t *rgb = malloc((size_t)width * height * 3);
    if (rgb == NULL)
        return -1;
    memset(rgb, 12, (size_t)width * height * 3);
    for (int t = 0; t < tiles; t++) {
        const struct cell *c = cell_for_row(a, a->first + (size_t)t);
        unsigned ox = SHEET_GAP + (unsigned)(t % SHEET_COLUMNS) * (tile_w + SHEET_GAP);
        unsigned oy = SHEET_GAP + (unsigned)(t / SHEET_COLUMNS) * (tile_h + SHEET_GAP);
        uint8_t first[3], px[3];
        int varied = 0;
        thumb_pixel(c, 0, 0, first);
        for (int y = 0; y < THUMB_H; y++)
            for (int x = 0; x < THUMB_W; x++) {
                thumb_pixel(c, x, y, px);
                varied |= memcmp(px, first, 3) != 0;
                for (unsigned dy = 0; dy < SHEET_SCALE; dy++)
                    for (unsigned dx = 0; dx < SHEET_SCALE; dx++)
                        memcpy(rgb + (((size_t)oy + y * SHEET_SCALE + dy) * width + ox + x * SHEET_SCALE + dx) * 3, px, 3);
            }
        nonblank += c != NULL && c->image != NULL && varied;
    }
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ihdr;
    FILE *f = fopen(path, "wb");
    int rc = -1;
    memset(&ihdr, 0, sizeof ihdr);
    ihdr.width = width;
    ihdr.height = height;
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
    if (ctx != NULL && f != NULL && spng_set_png_file(ctx, f) == 0 && spng_set_ihdr(ctx, &ihdr) == 0)
        rc = spng_encode_image(ctx, rgb, (size_t)width * height * 3, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    spng_ctx_free(ctx);
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    free(rgb);
    return rc == 0 ? nonblank : -1;
}

/* ------------------------------------------------------------- terminal */

static struct termios saved_termios;

static void terminal_restore(void)
{
    static const char leave[] = "\x1b[?1006l\x1b[?1000l\x1b[?7h\x1b[?25h\x1b[0m\x1b[?1049l";
    if (write(STDOUT_FILENO, leave, sizeof leave - 1) < 0) {
        /* nothing left to tell */
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
}

static void on_signal(int sig)
{
    if (sig == SIGWINCH)
        resized = 1;
    else
        interrupted = 1;
}

static void terminal_size(struct app *a)
{
    struct winsize w;
    if (a->interactive && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_row > 4 && w.ws_col > TEXT_COL + 10) {
        a->lines = w.ws_row;
        a->cols = w.ws_col;
    } else {
        a->lines = HEADLESS_LINES;
        a->cols = HEADLESS_COLS;
    }
    a->list_lines = a->lines - 2;
}

static int terminal_enter(void)
{
    /* Alternate screen, no cursor, wheel reports (SGR), and no autowrap, so a long
     * line is cut at the edge instead of scrolling the screen. */
    static const char enter[] = "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1006h\x1b[?7l\x1b[2J";
    struct termios raw;
    struct sigaction sa;
    if (tcgetattr(STDIN_FILENO, &saved_termios) != 0)
        return -1;
    raw = saved_termios;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) != 0)
        return -1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGWINCH, &sa, NULL);
    atexit(terminal_restore);
    return write(STDOUT_FILENO, enter, sizeof enter - 1) < 0 ? -1 : 0;
}

/* Reads what the terminal sent: keys, escape sequences, SGR mouse wheel reports. */
static void read_keys(struct app *a, double now)
{
    char in[256];
    ssize_t n = read(STDIN_FILENO, in, sizeof in - 1);
    for (ssize_t i = 0; i < n; i++) {
        enum key key = KEY_NONE;
        char ch = in[i];
        if (ch == 'j') key = KEY_DOWN;
        else if (ch == 'k') key = KEY_UP;
        else if (ch == 'f') key = KEY_FLING;
        else if (ch == 'F') key = KEY_FLING_UP;
        else if (ch == ' ') key = KEY_PGDN;
        else if (ch == 'g') key = KEY_HOME;
        else if (ch == 'G') key = KEY_END;
        else if (ch == 'q') key = KEY_QUIT;
        else if (ch == 0x1b && i + 2 < n && (in[i + 1] == '[' || in[i + 1] == 'O')) {
            char *seq = in + i + 2;
            int button = 0;
            in[n] = '\0';
            if (*seq == '<' && sscanf(seq + 1, "%d", &button) == 1) {
                key = button == 64 ? KEY_WHEEL_UP : button == 65 ? KEY_WHEEL_DOWN : KEY_NONE;
                while (i < n && in[i] != 'M' && in[i] != 'm') i++;
            } else {
                switch (*seq) {
                case 'A': key = KEY_UP; break;
                case 'B': key = KEY_DOWN; break;
                case 'H': key = KEY_HOME; break;
                case 'F': key = KEY_END; break;
                case '5': key = KEY_PGUP; break;
                case '6': key = KEY_PGDN; break;
                case '1': key = KEY_HOME; break;
                case '4': key = KEY_END; break;
                default: break;
                }
                i += 2;
                while (i < n && (in[i] >= '0' && in[i] <= '9')) i++;
                if (i < n && in[i] != '~') i--;
            }
        }
        if (key == KEY_QUIT)
            interrupted = 1;
        else if (key != KEY_NONE)
            press(a, key, now);
    }
}

/* -------------------------------------------------------------- script */

static const char builtin_script[] =
    "wait\n"
    "idle 60         # a second at the top: rows 1 and 2 play their animations\n"
    "key down 4      # four rows down, no animated row on screen: their decoding stops\n"
    "wait\n"
    "idle 60\n"
    "key up 4\n"
    "wait\n"
    "key down 3      # drag down three rows, a step a frame: requests answer DEFERRED\n"
    "wait\n"
    "key wheeldown 4\n"
    "wait\n"
    "key pgdn        # glide a screen down to a known target\n"
    "wait\n"
    "key fling       # fling down: it decelerates and rests; no download while it moves\n"
    "wait\n"
    "key end         # glide to the end of the loaded rows: the next page is asked for\n"
    "wait\n"
    "key fling\n"
    "wait\n"
    "key pgup 2\n"
    "wait\n";

static const struct {
    const char *name;
    enum key key;
} key_names[] = {
    {"down", KEY_DOWN}, {"j", KEY_DOWN}, {"up", KEY_UP}, {"k", KEY_UP}, {"pgdn", KEY_PGDN}, {"pgup", KEY_PGUP},
    {"home", KEY_HOME}, {"end", KEY_END}, {"fling", KEY_FLING}, {"flingup", KEY_FLING_UP},
    {"wheeldown", KEY_WHEEL_DOWN}, {"wheelup", KEY_WHEEL_UP},
};

static char *load_script(const char *name)
{
    if (strcmp(name, "builtin") == 0)
        return strdup(builtin_script);
    FILE *f = fopen(name, "r");
    char *text = NULL;
    size_t size = 0;
    if (f == NULL)
        return NULL;
    FILE *mem = open_memstream(&text, &size);
    int ch;
    while (mem != NULL && (ch = fgetc(f)) != EOF)
        fputc(ch, mem);
    if (mem != NULL)
        fclose(mem);
    fclose(f);
    return text;
}

/* Settled: nothing moves, no page is on the way, every visible row has its image
 * or its error, and no transfer runs. */
static int settled(struct app *a)
{
    if (a->motion != STILL || a->pager.ticket != 0 || a->checks.state != LAZYIMG_SCROLL_IDLE)
        return 0;
    if (a->pager.count == 0 && a->pager.next_page != NULL)
        return 0; /* the first page has not even been asked for yet */
    for (size_t row = a->first; row < a->first + a->visible && row < a->pager.count; row++) {
        const struct cell *c = cell_for_row(a, row);
        if (c == NULL || (c->image == NULL && c->error == LAZYIMG_OK))
            return 0;
    }
    return feed_stats(a->loader).in_flight == 0;
}

/* -------------------------------------------------------------- running */

struct options {
    struct feed_options run; /* the server's and the script's */
    const char *feed, *sheet;
    unsigned timeout_ms;
    long frames; /* -1 = no limit */
};

/* One frame: wait up to `timeout_ms` for events (and keys), dispatch them, move,
 * update the view, play the animations and draw. Returns how many animated
 * rows are on screen. */
static unsigned frame(struct app *a, int timeout_ms, double dt)
{
    struct pollfd fds[2] = {{lazyimg_event_fd(a->loader), POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    int ready = poll(fds, a->interactive ? 2 : 1, timeout_ms);
    double now = feed_now_ms();
    if (ready > 0 && (fds[0].revents & POLLIN))
        lazyimg_dispatch(a->loader, 0);
    if (ready > 0 && a->interactive && (fds[1].revents & POLLIN))
        read_keys(a, now);
    if (resized) {
        resized = 0;
        terminal_size(a);
        a->pager.paging_distance = paging_distance(a);
    }
    feed_pager_poll(&a->pager, a->loader, now);
    step_motion(a, dt, now);
    update_view(a);
    unsigned animated = animate(a, feed_now_ms());
    if (a->interactive)
        render(a);
    return animated;
}

static int run_interactive(struct app *a, const struct options *opt)
{
    double last = feed_now_ms();
    long frames = 0;
    if (terminal_enter() != 0) {
        fprintf(stderr, "termlist: cannot use this terminal\n");
        return 1;
    }
    unsigned animated = 0;
    while (!interrupted && (opt->frames < 0 || frames++ < opt->frames)) {
        /* A motion that starts after a quiet spell starts from one frame's worth, not
         * from the time the loop slept. Animations on screen keep the frames coming. */
        double now = feed_now_ms(), dt = (now - last) / 1000;
        animated = frame(a, a->motion != STILL || animated > 0 ? FRAME_MS : 250, dt < 0.05 ? dt : 0.05);
        last = now;
    }
    return 0;
}

/* Replays a script: `wait` runs frames until settled, `key NAME [N]` presses a key
 * N times (one a frame), `idle N` runs N frames. Every frame is 1/60 s of motion,
 * however long it really took, so the scroll is the same on every machine. */
static int run_script(struct app *a, const struct options *opt)
{
    char *text = load_script(opt->run.script), *save = NULL;
    long frames = 0;
    if (text == NULL) {
        fprintf(stderr, "termlist: cannot read script %s\n", opt->run.script);
        return 1;
    }
    for (char *line = strtok_r(text, "\n", &save); line != NULL && !interrupted; line = strtok_r(NULL, "\n", &save)) {
        char word[32] = "", arg[32] = "";
        long n = 1;
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        int fields = sscanf(line, "%31s %31s %ld", word, arg, &n);
        if (fields <= 0)
            continue;
        if (strcmp(word, "wait") == 0) {
            double deadline = feed_now_ms() + opt->run.wait_ms;
            while (!settled(a) && feed_now_ms() < deadline && (opt->frames < 0 || frames < opt->frames)) {
                frame(a, FRAME_MS, 1.0 / 60);
                frames++;
            }
            feed_expect(&a->checks, settled(a) || (opt->frames >= 0 && frames >= opt->frames),
                   "not settled after %u ms (rows %zu..%zu)", opt->run.wait_ms, a->first, a->first + a->visible - 1);
        } else if (strcmp(word, "idle") == 0 && fields >= 2) {
            for (long i = 0; i < atol(arg) && (opt->frames < 0 || frames < opt->frames); i++, frames++)
                frame(a, FRAME_MS, 1.0 / 60);
        } else if (strcmp(word, "key") == 0 && fields >= 2) {
            enum key key = KEY_NONE;
            for (size_t k = 0; k < sizeof key_names / sizeof key_names[0]; k++)
                if (strcmp(arg, key_names[k].name) == 0)
                    key = key_names[k].key;
            feed_expect(&a->checks, key != KEY_NONE, "script: unknown key %s", arg);
            for (long i = 0; i < n && key != KEY_NONE && (opt->frames < 0 || frames < opt->frames); i++, frames++) {
                press(a, key, feed_now_ms());
                frame(a, FRAME_MS, 1.0 / 60);
            }
        } else {
            feed_expect(&a->checks, 0, "script: cannot read \"%s\"", line);
        }
        if (opt->frames >= 0 && frames >= opt->frames)
            break;
    }
    free(text);
    if (!opt->run.quiet)
        printf("script %s: %ld frames\n", opt->run.script, frames);
    return 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: termlist [--feed URL] [--latency-ms N] [--photos DIR] [--page-size N] [--pages N]\n"
            "                [--script FILE|builtin] [--frames N] [--sheet OUT.png] [--timeout-ms N] [--wait-ms N]\n"
            "                [--grace-ms N]\n"
            "Interactive when stdout is a terminal and no --script is given.\n");
}

static int parse_options(int argc, char **argv, struct options *opt)
{
    feed_options_init(&opt->run);
    opt->frames = -1;
    for (int i = 1; i < argc; i++) {
        int taken = feed_options_take(&opt->run, argc, argv, &i);
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (taken != 0) {
            if (taken < 0)
                return -1;
            continue;
        }
        if (value == NULL)
            return -1;
        i++;
        if (strcmp(arg, "--feed") == 0) opt->feed = value;
        else if (strcmp(arg, "--sheet") == 0) opt->sheet = value;
        else if (strcmp(arg, "--frames") == 0) opt->frames = strtol(value, NULL, 10);
        else if (strcmp(arg, "--timeout-ms") == 0) opt->timeout_ms = (unsigned)strtoul(value, NULL, 10);
        else return -1;
    }
    return 0;
}

/* What the scripted run shows and checks once it is done, before destroy. */
static void report(struct app *a, const struct options *opt, int nonblank)
{
    a->ended = feed_stats(a->loader); /* before destroy cancels the rest */
    a->ended_at = feed_now_ms();
    feed_checks_run(&a->checks, a->loader, &a->pager, a->server, opt->run.quiet);
    animation_watch_check(&a->watch, &a->checks, opt->run.quiet);
    if (!opt->run.quiet)
        printf("scroll targets sent: %u\n", a->targets_sent);
    if (opt->sheet != NULL) {
        size_t on_screen = a->first + a->visible > a->pager.count ? a->pager.count - a->first : a->visible;
        if (!opt->run.quiet)
            printf("sheet %s: %d of %zu thumbnail(s) on screen not blank\n", opt->sheet, nonblank, on_screen);
        feed_expect(&a->checks, nonblank > 0 && (size_t)nonblank == on_screen, "sheet: %d of %zu thumbnails not blank",
                    nonblank, on_screen);
    }
}

int main(int argc, char **argv)
{
    struct options opt;
    struct app a;
    lazyimg_config cfg;
    memset(&opt, 0, sizeof opt);
    memset(&a, 0, sizeof a);
    if (parse_options(argc, argv, &opt) != 0) {
        usage();
        return 2;
    }
    a.interactive = opt.run.script == NULL && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    if (opt.run.script == NULL && !a.interactive)
        opt.run.script = "builtin";
    for (size_t i = 0; i < MAX_CELLS; i++)
        a.cells[i].row = SIZE_MAX;
    if (opt.feed == NULL) {
        if ((a.server = feed_options_start_server(&opt.run)) == NULL)
            return 1;
    }

    lazyimg_config_init(&cfg);
    cfg.on_event = on_event;
    cfg.user_data = &a;
    cfg.target_width = THUMB_W;
    cfg.target_height = THUMB_H;
    cfg.timeout_ms = opt.timeout_ms; /* 0 = the default */
    cfg.animation_buffer_bytes = ANIMATION_BUFFER;
    lazyimg_status st = lazyimg_loader_create(&cfg, &a.loader);
    if (st < 0) {
        fprintf(stderr, "termlist: lazyimg_loader_create: %s\n", lazyimg_strerror(st));
        feed_server_stop(a.server);
        return 1;
    }
    terminal_size(&a);
    /* An empty list at its end: the first page comes through NEED_PAGE too. */
    update_view(&a);
    if (feed_pager_start(&a.pager, a.loader, opt.feed ? opt.feed : feed_server_first_page(a.server),
                         paging_distance(&a), &a.checks) != 0)
        feed_expect(&a.checks, 0, "out of memory");

    int rc = a.interactive ? run_interactive(&a, &opt) : run_script(&a, &opt);
    int nonblank = 0;
    if (!a.interactive && opt.sheet != NULL && (nonblank = write_sheet(&a, opt.sheet)) < 0)
        feed_expect(&a.checks, 0, "cannot write %s", opt.sheet);

    if (!a.interactive)
        report(&a, &opt, nonblank);
    st = lazyimg_loader_destroy(a.loader); /* delivers every outstanding ticket's event */
    feed_expect(&a.checks, st == LAZYIMG_OK, "lazyimg_loader_destroy: %s", lazyimg_strerror(st));
    if (!a.interactive) {
        feed_checks_answered(&a.checks);
        if (a.server != NULL) {
            feed_server_close(a.server); /* every transfer's outcome final */
            feed_checks_downloads(&a.checks, a.server, &a.pager, opt.run.grace_ms, &a.ended, a.ended_at,
                                  opt.run.quiet);
        }
    }
    for (size_t i = 0; i < MAX_CELLS; i++)
        cell_clear(&a.cells[i]);
    feed_pager_free(&a.pager);
    feed_server_stop(a.server);
    if (!a.interactive) {
        if (a.checks.failures)
            printf("FAILED: %u expectation(s) not met\n", a.checks.failures);
        else
            printf("OK: every expectation met (%zu tickets, one event each)\n", a.checks.ticket_count);
    }
    unsigned failures = a.checks.failures;
    feed_checks_free(&a.checks);
    return rc != 0 ? rc : failures ? 1 : 0;
}

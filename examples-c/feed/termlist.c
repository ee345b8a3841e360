/*
 * termlist.c: an endless list of pictures in the terminal, driven by lazyimg
 * exactly as a GUI list drives it.
 *
 * Rows come from a paged JSON feed (its own loopback server, feed_server.c, or
 * --feed URL), fetched with lazyimg_fetch when the loader's NEED_PAGE event
 * says the list nears its end, parsed with cJSON and appended, each item's
 * "blurhash" given to lazyimg_set_placeholders. Each row shows a thumbnail
 * drawn with ANSI truecolor half-blocks, its title and sizes; the cells ask
 * lazyimg_request for their image, show the placeholder it may answer with,
 * and wait for one event per ticket.
 * Every motion reports its scroll state and velocity, and a glide or fling its
 * resting place (lazyimg_set_scroll_target). Events are dispatched from the
 * poll() loop on lazyimg_event_fd.
 *
 * Without a terminal (or with --script) it replays a scripted scroll, checks
 * what a list needs (while the list moves, downloads only for the rows the
 * scroll policy allows; a URL downloaded again only after its first transfer was
 * cancelled; one event per ticket; the pages arrived), writes a contact sheet of
 * the screen with --sheet, and exits non-zero when an expectation fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
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

#include "feed_server.h"
#include "lazyimg.h"
#include "scroll_windows.h"

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
#define WAIT_MS 60000            /* longest a script's `wait` may take; --wait-ms */
#define PAGE_RETRY_MS 1000
#define SHEET_SCALE 8            /* contact sheet: each thumbnail pixel as 8x8 */
#define SHEET_COLUMNS 3
#define SHEET_GAP 12
#define GRACE_MS 200             /* a request may reach the server this long after the
                                    loader started it (most take a millisecond; the
                                    connection limit per host queues some behind this
                                    server's slow first answers); --grace-ms */
#define MAX_REPORTED 5           /* failed downloads described one by one */

struct item {
    char *title;
    char *image_path; /* the image URL's path, to match the server's log; NULL = none */
    unsigned width, height; /* as the feed says */
};

/* A reusable cell: shows one row and waits for at most one ticket. */
struct cell {
    size_t row;           /* SIZE_MAX = none */
    uint64_t ticket;      /* 0 = none */
    lazyimg_image *image; /* +1 reference */
    lazyimg_image *placeholder; /* +1 reference: shown until the image comes */
    lazyimg_status error; /* LAZYIMG_OK = none */
    int deferred;         /* the request answered DEFERRED */
    int ask_again;        /* its ticket was cancelled while it still shows the row */
};

/* Every ticket handed out, to check "exactly one event per ticket". Tickets grow. */
struct ticket_log {
    uint64_t ticket;
    int events;
};

enum motion { STILL, DRAG, GLIDE, FLING };

struct app {
    lazyimg_loader *loader;
    struct feed_server *server;
    int interactive;
    /* the list */
    struct item *items;
    size_t count, capacity;
    char *next_page;   /* URL of the next page; NULL = the feed ended */
    uint64_t page_ticket; /* 0 = no page on the way */
    unsigned pages, page_failures, need_page_events, page_fetches;
    double page_retry_at; /* ms; 0 = none */
    char page_error[96];
    /* the view, in lines from the top of the list */
    int cols, lines, list_lines;
    double pos, velocity; /* velocity in lines per second */
    double target;        /* where a glide or fling rests */
    enum motion motion;
    double last_step_at;  /* ms: the last drag step */
    lazyimg_scroll_state reported_state;
    double reported_velocity; /* rows per second */
    size_t first, visible; /* what set_visible_range was told */
    int has_range;
    struct cell cells[MAX_CELLS];
    /* checks */
    struct ticket_log *tickets;
    size_t ticket_count, ticket_capacity;
    struct scroll_windows windows; /* what the policy allowed to start, over time */
    uint64_t downloads_at_motion_start, downloads_while_moving, downloads_cancelled, decodes_skipped;
    unsigned moves, failures, targets_sent;
    unsigned hashes_given, placeholders_shown; /* feed items with a blurhash; PLACEHOLDER answers */
    int verbose;
};

static volatile sig_atomic_t interrupted, resized;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static void expect(struct app *a, int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok)
        return;
    a->failures++;
    fprintf(stderr, "expectation failed: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static struct lazyimg_stats stats_of(struct app *a)
{
    lazyimg_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    lazyimg_get_stats(a->loader, &s);
    return s;
}

/* ------------------------------------------------------------ tickets */

static void log_ticket(struct app *a, uint64_t ticket)
{
    if (a->ticket_count == a->ticket_capacity) {
        size_t capacity = a->ticket_capacity ? 2 * a->ticket_capacity : 256;
        struct ticket_log *grown = realloc(a->tickets, capacity * sizeof *grown);
        if (grown == NULL) {
            expect(a, 0, "out of memory");
            return;
        }
        a->tickets = grown;
        a->ticket_capacity = capacity;
    }
    expect(a, ticket != 0 && (a->ticket_count == 0 || a->tickets[a->ticket_count - 1].ticket < ticket),
           "ticket %" PRIu64 " is 0 or not new", ticket);
    a->tickets[a->ticket_count].ticket = ticket;
    a->tickets[a->ticket_count++].events = 0;
}

static struct ticket_log *find_ticket(struct app *a, uint64_t ticket)
{
    size_t lo = 0, hi = a->ticket_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->tickets[mid].ticket < ticket)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->ticket_count && a->tickets[lo].ticket == ticket ? &a->tickets[lo] : NULL;
}

/* ------------------------------------------------------------- paging */

static unsigned paging_distance(const struct app *a)
{
    return (unsigned)(2 * (a->list_lines / ROW_LINES + 1)); /* two screens ahead */
}

/* NEED_PAGE: fetch the next page unless one is on the way or the feed ended. */
static void fetch_next_page(struct app *a)
{
    if (a->page_ticket != 0 || a->next_page == NULL)
        return;
    uint64_t ticket;
    lazyimg_status st = lazyimg_fetch(a->loader, a->next_page, &ticket);
    if (st < 0) {
        snprintf(a->page_error, sizeof a->page_error, "feed: %s", lazyimg_strerror(st));
        a->page_retry_at = now_ms() + PAGE_RETRY_MS;
        return;
    }
    log_ticket(a, ticket);
    a->page_ticket = ticket;
    a->page_fetches++;
}

/* The path of an absolute URL, as a server logs it: from the first '/' after
 * the host, without the query. malloc'd; NULL when there is none. */
static char *url_path(const char *url)
{
    const char *scheme = strstr(url, "://");
    const char *path = scheme ? strchr(scheme + 3, '/') : NULL;
    return path ? strndup(path, strcspn(path, "?#")) : NULL;
}

/* A page arrived: append its items and tell the loader whether more follow. */
static void page_arrived(struct app *a, const uint8_t *data, size_t size)
{
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(root, "items");
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(root, "next");
    const cJSON *item;
    size_t n = (size_t)cJSON_GetArraySize(items), added = 0;
    const char **urls = malloc((n ? n : 1) * sizeof *urls);
    const char **hashes = malloc((n ? n : 1) * sizeof *hashes);
    if (root == NULL || !cJSON_IsArray(items) || urls == NULL || hashes == NULL) {
        snprintf(a->page_error, sizeof a->page_error, "feed: not a page (%zu bytes)", size);
        a->page_retry_at = now_ms() + PAGE_RETRY_MS;
        cJSON_Delete(root);
        free(urls);
        free(hashes);
        return;
    }
    if (a->count + n > a->capacity) {
        size_t capacity = (a->count + n) * 2;
        struct item *grown = realloc(a->items, capacity * sizeof *grown);
        if (grown == NULL)
            n = 0;
        else
            a->items = grown, a->capacity = capacity;
    }
    cJSON_ArrayForEach(item, items) {
        const cJSON *title = cJSON_GetObjectItemCaseSensitive(item, "title");
        const cJSON *image = cJSON_GetObjectItemCaseSensitive(item, "image");
        const cJSON *width = cJSON_GetObjectItemCaseSensitive(item, "width");
        const cJSON *height = cJSON_GetObjectItemCaseSensitive(item, "height");
        const cJSON *blurhash = cJSON_GetObjectItemCaseSensitive(item, "blurhash");
        if (added == n)
            break;
        struct item *it = &a->items[a->count + added];
        it->title = strdup(cJSON_IsString(title) ? title->valuestring : "(untitled)");
        it->image_path = cJSON_IsString(image) ? url_path(image->valuestring) : NULL;
        it->width = cJSON_IsNumber(width) && width->valuedouble > 0 ? (unsigned)width->valuedouble : 0;
        it->height = cJSON_IsNumber(height) && height->valuedouble > 0 ? (unsigned)height->valuedouble : 0;
        hashes[added] = cJSON_IsString(blurhash) ? blurhash->valuestring : NULL; /* copied, as the URLs */
        a->hashes_given += hashes[added] != NULL;
        urls[added++] = cJSON_IsString(image) ? image->valuestring : NULL; /* copied by the loader */
    }
    /* The last page: stop the NEED_PAGE events before the rows go in. Otherwise
     * appending re-arms paging by itself. */
    if (!cJSON_IsString(next))
        lazyimg_set_paging(a->loader, paging_distance(a), 0);
    double told_at = now_ms(); /* see report_scroll */
    lazyimg_status st = lazyimg_append_items(a->loader, urls, added);
    expect(a, st == LAZYIMG_OK, "lazyimg_append_items: %s", lazyimg_strerror(st));
    /* The feed's hashes for the rows just added: a bad one costs only its row. */
    size_t bad_row;
    const char *why;
    st = lazyimg_set_placeholders(a->loader, a->count, LAZYIMG_PLACEHOLDER_BLURHASH, hashes, added, &bad_row, &why);
    expect(a, st == LAZYIMG_OK, "lazyimg_set_placeholders: %s (row %zu: %s)", lazyimg_strerror(st), bad_row, why);
    a->count += added;
    scroll_windows_told_rows(&a->windows, told_at, a->count);
    a->pages++;
    free(a->next_page);
    a->next_page = cJSON_IsString(next) ? strdup(next->valuestring) : NULL;
    a->page_error[0] = '\0';
    free(urls);
    free(hashes);
    cJSON_Delete(root);
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
    lazyimg_image_release(c->placeholder);
    c->image = c->placeholder = NULL;
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
    lazyimg_status st = lazyimg_request(a->loader, c->row, &image, &ticket);
    c->ask_again = 0;
    if (st == LAZYIMG_OK) {
        expect(a, !lazyimg_image_is_placeholder(image), "row %zu: OK with a placeholder", c->row);
        c->image = image;
    } else if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED || st == LAZYIMG_PLACEHOLDER) {
        log_ticket(a, ticket);
        c->ticket = ticket;
        c->deferred = st == LAZYIMG_DEFERRED;
        if (st == LAZYIMG_PLACEHOLDER) {
            expect(a, lazyimg_image_is_placeholder(image), "row %zu: PLACEHOLDER with an image", c->row);
            lazyimg_image_release(c->placeholder);
            c->placeholder = image;
            a->placeholders_shown++;
        }
    } else {
        c->error = st;
    }
}

static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct app *a = user_data;
    if (ev->type == LAZYIMG_EVENT_NEED_PAGE) {
        expect(a, ev->ticket == 0 && ev->row == a->count, "NEED_PAGE: ticket %" PRIu64 ", row %zu of %zu",
               ev->ticket, ev->row, a->count);
        a->need_page_events++;
        fetch_next_page(a);
        return;
    }
    struct ticket_log *t = find_ticket(a, ev->ticket);
    expect(a, t != NULL, "event for unknown ticket %" PRIu64, ev->ticket);
    if (t != NULL) {
        t->events++;
        expect(a, t->events == 1, "ticket %" PRIu64 ": event number %d", ev->ticket, t->events);
    }
    if (ev->ticket == a->page_ticket) {
        a->page_ticket = 0;
        if (ev->type == LAZYIMG_EVENT_DATA) {
            page_arrived(a, ev->data, ev->data_size);
        } else if (ev->status != LAZYIMG_E_CANCELLED) { /* cancelled: by destroy, at the end */
            a->page_failures++;
            snprintf(a->page_error, sizeof a->page_error, "feed: %s", ev->message);
            a->page_retry_at = now_ms() + PAGE_RETRY_MS;
        }
        return;
    }
    struct cell *c = cell_for_row(a, ev->row);
    if (c == NULL || c->ticket != ev->ticket)
        return; /* the cell shows another row now: stale */
    c->ticket = 0;
    c->deferred = 0;
    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        expect(a, !lazyimg_image_is_placeholder(ev->image), "row %zu: an IMAGE event with a placeholder", ev->row);
        c->image = lazyimg_image_retain(ev->image);
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
    return (double)(a->count + 1) * ROW_LINES;
}

static double max_pos(const struct app *a)
{
    double m = total_lines(a) - a->list_lines;
    return m > 0 ? m : 0;
}

static void report_scroll(struct app *a, lazyimg_scroll_state state, double rows_per_second)
{
    if (state == a->reported_state && fabs(rows_per_second - a->reported_velocity) < 0.05)
        return;
    /* Which downloads started while moving is checked from the server's log
     * (check_downloads); this counts them. */
    if (a->reported_state == LAZYIMG_SCROLL_IDLE && state != LAZYIMG_SCROLL_IDLE) {
        a->downloads_at_motion_start = stats_of(a).downloads_started;
        a->moves++;
    } else if (a->reported_state != LAZYIMG_SCROLL_IDLE && state == LAZYIMG_SCROLL_IDLE) {
        a->downloads_while_moving += stats_of(a).downloads_started - a->downloads_at_motion_start;
    }
    /* The loader may start downloads before the call returns, so what it was told
     * counts from the moment the call began. */
    double told_at = now_ms();
    lazyimg_set_scroll_state(a->loader, state, rows_per_second);
    scroll_windows_told_scroll(&a->windows, told_at, state, rows_per_second);
    a->reported_state = state;
    a->reported_velocity = rows_per_second;
}

/* A glide or fling knows where it rests: tell the loader, after the state and
 * velocity of the motion, since a turn voids the target. */
static void report_target(struct app *a, double rows_per_second)
{
    double rest = a->target < 0 ? 0 : a->target > max_pos(a) ? max_pos(a) : a->target;
    size_t first = (size_t)(rest / ROW_LINES);
    size_t last = (size_t)((rest + a->list_lines - 1) / ROW_LINES);
    report_scroll(a, LAZYIMG_SCROLL_DECELERATING, rows_per_second);
    double told_at = now_ms(); /* see report_scroll */
    lazyimg_set_scroll_target(a->loader, first, last - first + 1);
    scroll_windows_told_target(&a->windows, told_at, first, last - first + 1);
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
        double told_at = now_ms(); /* see report_scroll */
        lazyimg_set_visible_range(a->loader, first, a->visible);
        scroll_windows_told_visible(&a->windows, told_at, first, a->visible);
    }
    for (size_t row = first; row <= last && row < a->count; row++) {
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
        report_scroll(a, LAZYIMG_SCROLL_DECELERATING, rows_per_second);
    } else if (a->motion == STILL) {
        report_scroll(a, LAZYIMG_SCROLL_IDLE, 0);
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
    report_scroll(a, LAZYIMG_SCROLL_DRAGGING, lines / ROW_LINES / (interval / 1000));
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
    const lazyimg_image *shown = c == NULL ? NULL : c->image != NULL ? c->image : c->placeholder;
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
    const struct item *it = &a->items[row];
    const struct cell *c = cell_for_row(a, row);
    put(o, "\x1b[0m  ");
    if (line == 1) {
        put(o, "\x1b[1m%-.*s\x1b[0m  \x1b[2mrow %zu\x1b[0m", a->cols - TEXT_COL - 16, it->title, row);
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
    lazyimg_stats s = stats_of(a);
    put(&o, "\x1b[H\x1b[0m\x1b[7m %zu rows/%u pages | %s %+.1f rows/s | in flight %" PRIu64 " | memory hits %" PRIu64
            " | deferred %" PRIu64 " | downloads %" PRIu64 " | %.1f MB \x1b[K\x1b[0m\r\n",
        a->count, a->pages, scroll_name(a->reported_state), a->reported_velocity, s.in_flight, s.memory_hits,
        s.deferred, s.downloads_started, s.bytes_downloaded / 1e6);
    long top = (long)a->pos;
    for (int y = 0; y < a->list_lines; y++) {
        size_t row = (size_t)(top + y) / ROW_LINES;
        int line = (int)((top + y) % ROW_LINES);
        if (row < a->count) {
            const struct cell *c = cell_for_row(a, row);
            for (int x = 0; x < THUMB_W; x++) {
                uint8_t up[3], down[3];
                thumb_pixel(c, x, 2 * line, up);
                thumb_pixel(c, x, 2 * line + 1, down);
                put(&o, "\x1b[38;2;%u;%u;%um\x1b[48;2;%u;%u;%um\xe2\x96\x80", up[0], up[1], up[2], down[0], down[1],
                    down[2]);
            }
            render_text(a, &o, row, line);
        } else if (row == a->count && line == ROW_LINES / 2 && a->page_ticket != 0) {
            put(&o, "\x1b[0m  \x1b[36mloading more...\x1b[0m");
        } else if (row == a->count && line == ROW_LINES / 2 && a->page_error[0] != '\0') {
            put(&o, "\x1b[0m  \x1b[31m%s (retrying)\x1b[0m", a->page_error);
        } else if (row == a->count && line == ROW_LINES / 2 && a->next_page == NULL) {
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
    if (last > a->count)
        last = a->count;
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
    if (a->motion != STILL || a->page_ticket != 0 || a->reported_state != LAZYIMG_SCROLL_IDLE)
        return 0;
    if (a->count == 0 && a->next_page != NULL)
        return 0; /* the first page has not even been asked for yet */
    for (size_t row = a->first; row < a->first + a->visible && row < a->count; row++) {
        const struct cell *c = cell_for_row(a, row);
        if (c == NULL || (c->image == NULL && c->error == LAZYIMG_OK))
            return 0;
    }
    return stats_of(a).in_flight == 0;
}

/* -------------------------------------------------------------- running */

struct options {
    const char *feed, *script, *sheet, *photos;
    unsigned latency_ms, page_size, pages, timeout_ms, wait_ms, grace_ms;
    long frames; /* -1 = no limit */
    int quiet;
};

/* One frame: wait up to `timeout_ms` for events (and keys), dispatch them, move,
 * update the view and draw. */
static void frame(struct app *a, int timeout_ms, double dt)
{
    struct pollfd fds[2] = {{lazyimg_event_fd(a->loader), POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    int ready = poll(fds, a->interactive ? 2 : 1, timeout_ms);
    double now = now_ms();
    if (ready > 0 && (fds[0].revents & POLLIN))
        lazyimg_dispatch(a->loader, 0);
    if (ready > 0 && a->interactive && (fds[1].revents & POLLIN))
        read_keys(a, now);
    if (resized) {
        resized = 0;
        terminal_size(a);
    }
    if (a->page_retry_at > 0 && now >= a->page_retry_at) {
        a->page_retry_at = 0;
        lazyimg_set_paging(a->loader, paging_distance(a), a->next_page != NULL); /* re-arm: asks again */
    }
    step_motion(a, dt, now);
    update_view(a);
    if (a->interactive)
        render(a);
}

static int run_interactive(struct app *a, const struct options *opt)
{
    double last = now_ms();
    long frames = 0;
    if (terminal_enter() != 0) {
        fprintf(stderr, "termlist: cannot use this terminal\n");
        return 1;
    }
    while (!interrupted && (opt->frames < 0 || frames++ < opt->frames)) {
        /* A motion that starts after a quiet spell starts from one frame's worth, not
         * from the time the loop slept. */
        double now = now_ms(), dt = (now - last) / 1000;
        frame(a, a->motion != STILL ? FRAME_MS : 250, dt < 0.05 ? dt : 0.05);
        last = now;
    }
    return 0;
}

/* Replays a script: `wait` runs frames until settled, `key NAME [N]` presses a key
 * N times (one a frame), `idle N` runs N frames. Every frame is 1/60 s of motion,
 * however long it really took, so the scroll is the same on every machine. */
static int run_script(struct app *a, const struct options *opt)
{
    char *text = load_script(opt->script), *save = NULL;
    long frames = 0;
    if (text == NULL) {
        fprintf(stderr, "termlist: cannot read script %s\n", opt->script);
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
            double deadline = now_ms() + opt->wait_ms;
            while (!settled(a) && now_ms() < deadline && (opt->frames < 0 || frames < opt->frames)) {
                frame(a, FRAME_MS, 1.0 / 60);
                frames++;
            }
            expect(a, settled(a) || (opt->frames >= 0 && frames >= opt->frames),
                   "not settled after %u ms (rows %zu..%zu)", opt->wait_ms, a->first, a->first + a->visible - 1);
        } else if (strcmp(word, "idle") == 0 && fields >= 2) {
            for (long i = 0; i < atol(arg) && (opt->frames < 0 || frames < opt->frames); i++, frames++)
                frame(a, FRAME_MS, 1.0 / 60);
        } else if (strcmp(word, "key") == 0 && fields >= 2) {
            enum key key = KEY_NONE;
            for (size_t k = 0; k < sizeof key_names / sizeof key_names[0]; k++)
                if (strcmp(arg, key_names[k].name) == 0)
                    key = key_names[k].key;
            expect(a, key != KEY_NONE, "script: unknown key %s", arg);
            for (long i = 0; i < n && key != KEY_NONE && (opt->frames < 0 || frames < opt->frames); i++, frames++) {
                press(a, key, now_ms());
                frame(a, FRAME_MS, 1.0 / 60);
            }
        } else {
            expect(a, 0, "script: cannot read \"%s\"", line);
        }
        if (opt->frames >= 0 && frames >= opt->frames)
            break;
    }
    free(text);
    if (!opt->quiet)
        printf("script %s: %ld frames\n", opt->script, frames);
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
    opt->photos = "../shared/corpus/photos";
    opt->frames = -1;
    opt->wait_ms = WAIT_MS;
    opt->grace_ms = GRACE_MS;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--quiet") == 0) {
            opt->quiet = 1;
            continue;
        }
        if (value == NULL)
            return -1;
        i++;
        if (strcmp(arg, "--feed") == 0) opt->feed = value;
        else if (strcmp(arg, "--script") == 0) opt->script = value;
        else if (strcmp(arg, "--sheet") == 0) opt->sheet = value;
        else if (strcmp(arg, "--photos") == 0) opt->photos = value;
        else if (strcmp(arg, "--latency-ms") == 0) opt->latency_ms = (unsigned)strtoul(value, NULL, 10);
        else if (strcmp(arg, "--page-size") == 0) opt->page_size = (unsigned)strtoul(value, NULL, 10);
        else if (strcmp(arg, "--pages") == 0) opt->pages = (unsigned)strtoul(value, NULL, 10);
        else if (strcmp(arg, "--frames") == 0) opt->frames = strtol(value, NULL, 10);
        else if (strcmp(arg, "--timeout-ms") == 0) opt->timeout_ms = (unsigned)strtoul(value, NULL, 10);
        else if (strcmp(arg, "--wait-ms") == 0) opt->wait_ms = (unsigned)strtoul(value, NULL, 10);
        else if (strcmp(arg, "--grace-ms") == 0) opt->grace_ms = (unsigned)strtoul(value, NULL, 10);
        else return -1;
    }
    return 0;
}

/* What the scripted run shows and checks once it is done. */
static void report(struct app *a, const struct options *opt, int nonblank)
{
    lazyimg_stats s = stats_of(a);
    a->downloads_cancelled = s.downloads_cancelled; /* before destroy cancels the rest */
    a->decodes_skipped = s.decodes_skipped;
    if (!opt->quiet) {
        printf("rows %zu from %u page(s) (%u NEED_PAGE event(s), %u fetch(es), %u failed)\n", a->count, a->pages,
               a->need_page_events, a->page_fetches, a->page_failures);
        printf("requests %" PRIu64 ", memory hits %" PRIu64 ", deferred %" PRIu64 ", downloads %" PRIu64
               " (coalesced %" PRIu64 ", cancelled %" PRIu64 ", failed %" PRIu64 "), %.2f MB, decoded %" PRIu64 "\n",
               s.requests, s.memory_hits, s.deferred, s.downloads_started, s.downloads_coalesced,
               s.downloads_cancelled, s.downloads_failed, s.bytes_downloaded / 1e6, s.images_decoded);
        printf("moves %u (%" PRIu64 " download(s) started while moving); scroll targets sent: %u\n", a->moves,
               a->downloads_while_moving, a->targets_sent);
        printf("placeholders: %u feed item(s) with a blurhash, %u request(s) answered with one\n", a->hashes_given,
               a->placeholders_shown);
    }
    expect(a, a->hashes_given == 0 || a->placeholders_shown > 0, "the feed gave %u blurhash(es), none was shown",
           a->hashes_given);
    expect(a, a->pages >= 2, "only %u page(s) arrived", a->pages);
    expect(a, a->page_failures == 0, "%u page fetch(es) failed: %s", a->page_failures, a->page_error);
    expect(a, a->need_page_events == a->page_fetches, "%u NEED_PAGE events for %u page fetches",
           a->need_page_events, a->page_fetches);
    expect(a, a->moves > 0, "the list never moved");
    expect(a, s.deferred > 0, "no request was DEFERRED while the list moved");
    if (a->server != NULL) {
        if (!opt->quiet)
            printf("server: feed pages served %u; %s\n", feed_server_hits(a->server, "/feed"),
                   feed_server_has_photos(a->server) ? "Kodak photos" : "generated images");
        expect(a, feed_server_hits(a->server, "/feed") == a->pages, "%u feed requests for %u pages",
               feed_server_hits(a->server, "/feed"), a->pages);
    }
    if (opt->sheet != NULL) {
        size_t on_screen = a->first + a->visible > a->count ? a->count - a->first : a->visible;
        if (!opt->quiet)
            printf("sheet %s: %d of %zu thumbnail(s) on screen not blank\n", opt->sheet, nonblank, on_screen);
        expect(a, nonblank > 0 && (size_t)nonblank == on_screen, "sheet: %d of %zu thumbnails not blank", nonblank,
               on_screen);
    }
}

/* Whether the server's transfer of `path` was for a row the policy allowed then. */
static int download_allowed(const struct app *a, const char *path, double at_ms, double grace_ms)
{
    for (size_t row = 0; row < a->count; row++)
        if (a->items[row].image_path != NULL && strcmp(a->items[row].image_path, path) == 0 &&
            scroll_windows_allow(&a->windows, at_ms, grace_ms, row))
            return 1;
    return 0;
}

/* The rows showing `path`, for a message: "12" or "12, 84, ...". */
static void rows_of(const struct app *a, const char *path, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t row = 0; row < a->count && used + 24 < size; row++)
        if (a->items[row].image_path != NULL && strcmp(a->items[row].image_path, path) == 0)
            used += (size_t)snprintf(out + used, size - used, "%s%zu", used ? ", " : "", row);
}

/* Whether the client gave up on a transfer before `by_ms`: it closed the
 * connection before the answer was sent, or after, before asking for more on it
 * (a client reuses a connection whose answer it read; the one of a transfer it
 * cancels is closed, even when the answer already sat in the socket's buffers). */
static int hung_up_before(const struct feed_request *r, double by_ms)
{
    return r->outcome == FEED_HUNG_UP || (r->closed_at_ms > 0 && r->closed_at_ms <= by_ms);
}

/* The downloads the server saw, against what the list needs: while it moved,
 * only rows the scroll policy allows (scroll_windows.h); a URL downloaded again
 * only after the client hung up on its transfer before, and no more re-downloads
 * than the loader counted cancelled transfers. */
static void check_downloads(struct app *a, const struct options *opt)
{
    const char *prefix = feed_server_has_photos(a->server) ? "/photo/" : "/gen/";
    size_t count = 0, paths = 0, redownloads = 0;
    unsigned fast = 0, slow = 0, outside = 0, completed_twice = 0;
    struct feed_request *log = feed_server_requests(a->server, &count);
    expect(a, !a->windows.out_of_memory, "out of memory for the scroll windows");
    for (size_t i = 0; i < count; i++) {
        if (strncmp(log[i].path, prefix, strlen(prefix)) != 0)
            continue;
        const struct scroll_window *w = scroll_windows_at(&a->windows, log[i].at_ms);
        if (w == NULL || w->pace == PACE_AT_REST)
            continue;
        fast += w->pace == PACE_FAST;
        slow += w->pace == PACE_SLOW;
        if (download_allowed(a, log[i].path, log[i].at_ms, opt->grace_ms))
            continue;
        if (++outside <= MAX_REPORTED) {
            char rows[128];
            rows_of(a, log[i].path, rows, sizeof rows);
            if (w->pace == PACE_FAST && w->landing.hi == 0)
                expect(a, 0, "%s (row %s) downloaded during a fast move without a scroll target", log[i].path, rows);
            else if (w->pace == PACE_FAST)
                expect(a, 0, "%s (row %s) downloaded during a fast move, outside the target rows %zu..%zu "
                       "(margin included)", log[i].path, rows, w->landing.lo, w->landing.hi - 1);
            else
                expect(a, 0, "%s (row %s) downloaded during a slow move, outside the visible rows %zu..%zu, "
                       "the prefetch window %zu..%zu and the target", log[i].path, rows, w->visible.lo,
                       w->visible.hi - 1, w->ahead.lo, w->ahead.hi - 1);
        }
    }
    expect(a, outside <= MAX_REPORTED, "%u download(s) in all outside what the scroll policy allows", outside);
    /* Per URL: every transfer but the last must have been given up by the client
     * before the next began. */
    for (size_t i = 0; i < count; i++) {
        if (strncmp(log[i].path, prefix, strlen(prefix)) != 0)
            continue;
        size_t next = i + 1;
        while (next < count && log[next].path != log[i].path) /* the server's own string: one per path */
            next++;
        int first_of_path = 1;
        for (size_t j = 0; j < i && first_of_path; j++)
            first_of_path = log[j].path != log[i].path;
        paths += first_of_path;
        if (next == count)
            continue;
        redownloads++;
        if (!hung_up_before(&log[i], log[next].at_ms) && ++completed_twice <= MAX_REPORTED && !opt->quiet)
            printf("%s downloaded again at +%.0f ms although the transfer at +%.0f ms was not cancelled\n",
                   log[i].path, log[next].at_ms - log[0].at_ms, log[i].at_ms - log[0].at_ms);
    }
    /* A download whose decode the loader skipped (its row had left while the
     * file waited for a decode thread) is downloaded again if the row returns. */
    expect(a, completed_twice <= a->decodes_skipped, "%u image URL(s) downloaded again without a cancel, "
           "but the loader skipped only %" PRIu64 " decode(s)", completed_twice, a->decodes_skipped);
    expect(a, paths > 0, "the server saw no image request");
    expect(a, redownloads <= a->downloads_cancelled + a->decodes_skipped,
           "%zu re-download(s) but only %" PRIu64 " cancelled transfer(s) and %" PRIu64 " skipped decode(s)",
           redownloads, a->downloads_cancelled, a->decodes_skipped);
    if (!opt->quiet) {
        printf("downloads while moving: %u during fast moves, %u during slow moves, %u outside what the scroll "
               "policy allows (grace %u ms)\n", fast, slow, outside, opt->grace_ms);
        printf("server: %zu image URL(s), %zu re-download(s) after a cancel, %u without (the loader cancelled %" PRIu64
               " transfer(s) and skipped %" PRIu64 " decode(s))\n", paths, redownloads - completed_twice, completed_twice,
               a->downloads_cancelled, a->decodes_skipped);
    }
    free(log);
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
    a.interactive = opt.script == NULL && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    if (opt.script == NULL && !a.interactive)
        opt.script = "builtin";
    for (size_t i = 0; i < MAX_CELLS; i++)
        a.cells[i].row = SIZE_MAX;
    if (opt.feed == NULL) {
        struct feed_server_options so = {opt.photos, opt.latency_ms, opt.page_size, opt.pages};
        if ((a.server = feed_server_start(&so)) == NULL)
            return 1;
    }
    a.next_page = strdup(opt.feed ? opt.feed : feed_server_first_page(a.server));

    lazyimg_config_init(&cfg);
    cfg.on_event = on_event;
    cfg.user_data = &a;
    cfg.target_width = THUMB_W;
    cfg.target_height = THUMB_H;
    cfg.timeout_ms = opt.timeout_ms; /* 0 = the default */
    lazyimg_status st = lazyimg_loader_create(&cfg, &a.loader);
    if (st < 0) {
        fprintf(stderr, "termlist: lazyimg_loader_create: %s\n", lazyimg_strerror(st));
        feed_server_stop(a.server);
        return 1;
    }
    terminal_size(&a);
    a.reported_state = LAZYIMG_SCROLL_IDLE;
    /* An empty list at its end: the first page comes through NEED_PAGE too. */
    update_view(&a);
    lazyimg_set_paging(a.loader, paging_distance(&a), 1);

    int rc = a.interactive ? run_interactive(&a, &opt) : run_script(&a, &opt);
    int nonblank = 0;
    if (!a.interactive && opt.sheet != NULL && (nonblank = write_sheet(&a, opt.sheet)) < 0)
        expect(&a, 0, "cannot write %s", opt.sheet);

    if (!a.interactive)
        report(&a, &opt, nonblank);
    st = lazyimg_loader_destroy(a.loader); /* delivers every outstanding ticket's event */
    expect(&a, st == LAZYIMG_OK, "lazyimg_loader_destroy: %s", lazyimg_strerror(st));
    if (!a.interactive) {
        for (size_t i = 0; i < a.ticket_count; i++)
            expect(&a, a.tickets[i].events == 1, "ticket %" PRIu64 " got %d events", a.tickets[i].ticket,
                   a.tickets[i].events);
        if (a.server != NULL) {
            feed_server_close(a.server); /* every transfer's outcome final */
            check_downloads(&a, &opt);
        }
    }
    for (size_t i = 0; i < MAX_CELLS; i++)
        cell_clear(&a.cells[i]);
    for (size_t i = 0; i < a.count; i++) {
        free(a.items[i].title);
        free(a.items[i].image_path);
    }
    scroll_windows_free(&a.windows);
    free(a.items);
    free(a.tickets);
    free(a.next_page);
    feed_server_stop(a.server);
    if (!a.interactive) {
        if (a.failures)
            printf("FAILED: %u expectation(s) not met\n", a.failures);
        else
            printf("OK: every expectation met (%zu tickets, one event each)\n", a.ticket_count);
    }
    return rc != 0 ? rc : a.failures ? 1 : 0;
}

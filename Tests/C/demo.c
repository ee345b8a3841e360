/*
 * demo.c: lazyimg used the way a list UI uses it.
 *
 * A list of 200 rows (image URLs on a loopback server, some rows sharing one
 * URL, one 404, one row without an image) is shown ten rows at a time in ten
 * reusable cells. The rows cycle through every format the library decodes:
 * JPEG, PNG and WebP (both with alpha), GIF, and an animated GIF. The script: show the first screen, drag down (requests come
 * back DEFERRED), decelerate, stop, wait for the visible rows, then ask for
 * them again (memory hits now). Events are dispatched on this thread from a
 * poll() loop on lazyimg_event_fd. A report follows, per row and per format;
 * the exit status is non-zero when an expectation fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "image_server.h"
#include "lazyimg.h"

#define ROWS 200
#define VISIBLE 10 /* rows on screen, and cells */
#define BOX 64     /* the cell's image box */
#define FINAL_FIRST 60
#define SHARED_IMAGE 1000 /* /img/1000.jpg is shown by several rows */
#define ROW_MISSING 64    /* /missing.jpg: 404 */
#define ROW_NULL 66       /* no image */
#define ROW_REPEAT 68     /* same URL as row 3 of the first screen */
#define WAIT_MS 30000     /* longest wait for a screen to load (about 9 s under
                             valgrind in a debug build) */
#define FORMATS 5

/* The formats the rows cycle through: image n is served as formats[n % 5]. */
static const struct format {
    const char *name; /* in the report */
    const char *path; /* printf format of the URL's path for image n */
    int animated;
} formats[FORMATS] = {
    {"JPEG", "/img/%u.jpg", 0},
    {"PNG", "/img/%u.png", 0},
    {"WebP", "/img/%u.webp", 0},
    {"GIF", "/img/%u.gif", 0},
    {"animated GIF", "/anim/%u.gif", 1},
};

/* A reusable cell: shows one row and waits for at most one ticket. */
struct cell {
    size_t row;           /* the row it shows; ROWS = none */
    uint64_t ticket;      /* the ticket it waits for; 0 = none */
    lazyimg_image *image; /* +1 reference: what it shows */
    lazyimg_status error; /* why it shows no image; LAZYIMG_OK = no error */
};

/* What arrived for a row, last time, for the report. */
struct arrival {
    int has_image;
    uint32_t width, height, source_width, source_height;
    lazyimg_source first_source, last_source;
    int animated;     /* lazyimg_image_is_animated */
    lazyimg_status error;
    int32_t http_status;
    char message[80]; /* the FAILED event's message */
};

/* Every ticket handed out, to check "exactly one event per ticket". */
struct ticket_log {
    uint64_t ticket;
    size_t row;
    int cancel_promised; /* lazyimg_cancel said OK: a CANCELLED event must follow */
    int events;
};

struct counts {
    unsigned ok, pending, deferred, errors;
};

struct demo {
    lazyimg_loader *loader;
    image_server *server;
    char *urls[ROWS]; /* NULL = row without an image */
    int format[ROWS]; /* index into formats; -1 = no image URL or the 404 */
    struct cell cells[VISIBLE];
    struct arrival arrivals[ROWS];
    struct ticket_log *tickets;
    size_t ticket_count, ticket_capacity;
    unsigned events, landed, dropped_stale;
    unsigned failures;
};

static void expect(struct demo *d, int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok)
        return;
    d->failures++;
    fputs("FAIL: ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *source_name(lazyimg_source source)
{
    switch (source) {
    case LAZYIMG_SOURCE_MEMORY: return "memory";
    case LAZYIMG_SOURCE_DISK: return "disk";
    case LAZYIMG_SOURCE_NETWORK: return "network";
    default: return "none";
    }
}

static struct ticket_log *find_ticket(struct demo *d, uint64_t ticket)
{
    size_t i;
    for (i = 0; i < d->ticket_count; i++) {
        if (d->tickets[i].ticket == ticket)
            return &d->tickets[i];
    }
    return NULL;
}

static void log_ticket(struct demo *d, uint64_t ticket, size_t row)
{
    expect(d, ticket != 0, "row %zu: ticket 0", row);
    expect(d, find_ticket(d, ticket) == NULL, "row %zu: ticket %" PRIu64 " reused", row, ticket);
    if (d->ticket_count == d->ticket_capacity) {
        size_t capacity = d->ticket_capacity ? d->ticket_capacity * 2 : 64;
        struct ticket_log *grown = realloc(d->tickets, capacity * sizeof *grown);
        if (grown == NULL) {
            expect(d, 0, "out of memory");
            return;
        }
        d->tickets = grown;
        d->ticket_capacity = capacity;
    }
    d->tickets[d->ticket_count].ticket = ticket;
    d->tickets[d->ticket_count].row = row;
    d->tickets[d->ticket_count].cancel_promised = 0;
    d->tickets[d->ticket_count].events = 0;
    d->ticket_count++;
}

static void log_image(struct demo *d, size_t row, lazyimg_image *image, lazyimg_source source)
{
    struct arrival *a = &d->arrivals[row];
    if (!a->has_image)
        a->first_source = source;
    a->last_source = source;
    a->has_image = 1;
    a->width = lazyimg_image_width(image);
    a->height = lazyimg_image_height(image);
    a->source_width = lazyimg_image_source_width(image);
    a->source_height = lazyimg_image_source_height(image);
    a->animated = lazyimg_image_is_animated(image);
    a->error = LAZYIMG_OK;
    a->http_status = 0;
    expect(d, a->width > 0 && a->height > 0 && a->width <= BOX && a->height <= BOX,
           "row %zu: image %ux%u does not fit the %ux%u box", row, a->width, a->height, BOX, BOX);
    expect(d, lazyimg_image_pixels(image) != NULL && lazyimg_image_stride(image) >= 4u * a->width,
           "row %zu: no pixels or a short stride", row);
}

/* The event callback: runs on this thread inside lazyimg_dispatch. A result
 * lands only in the cell that still waits for exactly that ticket; a cell
 * reused for another row has another ticket, so a stale result is dropped. */
static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct demo *d = user_data;
    struct ticket_log *t = find_ticket(d, ev->ticket);
    struct cell *cell;

    d->events++;
    if (t == NULL) {
        expect(d, 0, "event for unknown ticket %" PRIu64, ev->ticket);
        return;
    }
    t->events++;
    expect(d, t->events == 1, "ticket %" PRIu64 ": event number %d", t->ticket, t->events);
    expect(d, ev->row == t->row, "ticket %" PRIu64 ": event for row %zu, requested for row %zu",
           t->ticket, ev->row, t->row);
    expect(d, !(t->cancel_promised && ev->type == LAZYIMG_EVENT_IMAGE),
           "ticket %" PRIu64 ": IMAGE after lazyimg_cancel returned OK", t->ticket);
    expect(d, ev->type != LAZYIMG_EVENT_IMAGE || ev->image != NULL, "IMAGE event without image");

    cell = &d->cells[ev->row % VISIBLE];
    if (cell->row != ev->row || cell->ticket != ev->ticket) {
        d->dropped_stale++; /* the cell shows another row now: never land */
        return;
    }
    cell->ticket = 0;
    expect(d, ev->url != NULL && d->urls[ev->row] != NULL && strcmp(ev->url, d->urls[ev->row]) == 0,
           "row %zu: event URL %s is not the row's URL", ev->row, ev->url ? ev->url : "(null)");

    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        cell->image = lazyimg_image_retain(ev->image);
        log_image(d, ev->row, ev->image, ev->source);
        d->landed++;
    } else if (ev->status != LAZYIMG_E_CANCELLED) {
        cell->error = ev->status;
        d->arrivals[ev->row].error = ev->status;
        d->arrivals[ev->row].http_status = ev->http_status;
        snprintf(d->arrivals[ev->row].message, sizeof d->arrivals[ev->row].message, "%s",
                 ev->message);
    }
    /* CANCELLED for a row still on screen: the cell asks again next frame. */
}

/* Asks for the row a cell shows, as cellForRow would. */
static void request_row(struct demo *d, struct cell *cell, struct counts *c)
{
    lazyimg_image *image = NULL;
    uint64_t ticket = 0;
    lazyimg_status st = lazyimg_request(d->loader, cell->row, &image, &ticket);

    if (st == LAZYIMG_OK) {
        cell->image = image;
        log_image(d, cell->row, image, LAZYIMG_SOURCE_MEMORY);
        c->ok++;
    } else if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED) {
        cell->ticket = ticket;
        log_ticket(d, ticket, cell->row);
        if (st == LAZYIMG_PENDING)
            c->pending++;
        else
            c->deferred++;
    } else {
        /* An error (no event follows): NO_IMAGE, or a URL that failed lately. */
        cell->error = st < 0 ? st : LAZYIMG_E_INVALID_ARGUMENT;
        d->arrivals[cell->row].error = cell->error;
        c->errors++;
    }
}

/* Puts rows first.. on screen: reuses the cells of rows that left and asks
 * for every visible row that has nothing yet. */
static struct counts show(struct demo *d, size_t first)
{
    struct counts c = {0, 0, 0, 0};
    size_t row;

    lazyimg_set_visible_range(d->loader, first, VISIBLE);
    for (row = first; row < first + VISIBLE && row < ROWS; row++) {
        struct cell *cell = &d->cells[row % VISIBLE];
        if (cell->row != row) { /* prepareForReuse */
            if (cell->ticket != 0 && lazyimg_cancel(d->loader, cell->ticket) == LAZYIMG_OK)
                find_ticket(d, cell->ticket)->cancel_promised = 1;
            lazyimg_image_release(cell->image);
            cell->row = row;
            cell->ticket = 0;
            cell->image = NULL;
            cell->error = LAZYIMG_OK;
        }
        if (cell->image == NULL && cell->ticket == 0 && cell->error == LAZYIMG_OK)
            request_row(d, cell, &c);
    }
    return c;
}

/* Runs the host's event loop for `ms` milliseconds. */
static void pump(struct demo *d, int ms)
{
    long deadline = now_ms() + ms;
    long left;
    do {
        struct pollfd p;
        p.fd = lazyimg_event_fd(d->loader);
        p.events = POLLIN;
        p.revents = 0;
        left = deadline - now_ms();
        if (poll(&p, 1, left > 0 ? (int)left : 0) > 0 && (p.revents & POLLIN))
            lazyimg_dispatch(d->loader, 0);
    } while (now_ms() < deadline);
}

static int screen_settled(const struct demo *d)
{
    size_t i;
    for (i = 0; i < VISIBLE; i++) {
        const struct cell *cell = &d->cells[i];
        if (cell->image == NULL && cell->error == LAZYIMG_OK)
            return 0;
    }
    return 1;
}

/* Dispatches events until every visible row has an image or an error. */
static long wait_for_screen(struct demo *d, size_t first)
{
    long start = now_ms();
    while (!screen_settled(d) && now_ms() - start < WAIT_MS) {
        show(d, first); /* asks again for rows whose ticket was cancelled */
        pump(d, 20);
    }
    expect(d, screen_settled(d), "rows %zu..%zu not loaded after %d ms", first,
           first + VISIBLE - 1, WAIT_MS);
    return now_ms() - start;
}

static lazyimg_stats stats_now(struct demo *d)
{
    lazyimg_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    lazyimg_get_stats(d->loader, &s);
    return s;
}

static void print_frame(int frame, const char *state, double velocity, size_t first,
                        struct counts c)
{
    printf("  frame %2d  %-12s %+6.1f rows/s  rows %3zu..%-3zu  ok %2u  pending %2u  "
           "deferred %2u  errors %u\n",
           frame, state, velocity, first, first + VISIBLE - 1, c.ok, c.pending, c.deferred,
           c.errors);
}

static void make_list(struct demo *d)
{
    char url[128], path[64];
    int port = image_server_port(d->server);
    size_t row;
    for (row = 0; row < ROWS; row++) {
        unsigned n = (unsigned)row;
        d->format[row] = -1;
        if (row == ROW_NULL) {
            d->urls[row] = NULL;
            continue;
        }
        if (row == ROW_MISSING)
            snprintf(url, sizeof url, "http://127.0.0.1:%d/missing.jpg", port);
        else {
            if (row == 61 || row == 63 || row == 67 || row == 69)
                n = SHARED_IMAGE;
            else if (row == ROW_REPEAT)
                n = 3;
            d->format[row] = (int)(n % FORMATS);
            snprintf(path, sizeof path, formats[n % FORMATS].path, n);
            snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
        }
        d->urls[row] = malloc(strlen(url) + 1);
        if (d->urls[row] != NULL)
            strcpy(d->urls[row], url);
    }
}

/* The path part of a row's URL, as the server counts it. */
static const char *url_path(const char *url)
{
    const char *p = strstr(url, "://");
    return p != NULL && (p = strchr(p + 3, '/')) != NULL ? p : url;
}

/* Checks the server's hit counts: no URL was downloaded twice. */
static void report_hits(struct demo *d, const lazyimg_stats *s)
{
    unsigned distinct = 0, sum = 0, twice = 0;
    size_t row, other;
    /* Read first: prefetch downloads may still arrive while we count, so the
     * per-URL sum read afterwards can only be larger if every path is ours. */
    unsigned total = image_server_total_hits(d->server);
    for (row = 0; row < ROWS; row++) {
        unsigned hits;
        if (d->urls[row] == NULL)
            continue;
        for (other = 0; other < row; other++) {
            if (d->urls[other] != NULL && strcmp(d->urls[other], d->urls[row]) == 0)
                break;
        }
        if (other < row)
            continue; /* counted at its first row */
        hits = image_server_hits(d->server, url_path(d->urls[row]));
        if (hits == 0)
            continue;
        distinct++;
        sum += hits;
        if (hits > 1) {
            twice++;
            printf("  %-18s %u downloads\n", url_path(d->urls[row]), hits);
        }
    }
    printf("  server: %u requests for %u distinct URLs; %u URL(s) fetched more than once;"
           " loader started %" PRIu64 " downloads\n",
           sum, distinct, twice, s->downloads_started);
    expect(d, twice == 0, "%u URL(s) downloaded more than once", twice);
    expect(d, sum >= total, "the server saw requests for other paths");
    expect(d, image_server_hits(d->server, "/img/1000.jpg") == 1,
           "/img/1000.jpg (rows 61 63 67 69) fetched %u times", image_server_hits(d->server, "/img/1000.jpg"));
    expect(d, image_server_hits(d->server, "/missing.jpg") == 1,
           "/missing.jpg fetched %u times", image_server_hits(d->server, "/missing.jpg"));
}

static void report_stats(const lazyimg_stats *s)
{
    printf("  requests %" PRIu64 ", memory hits %" PRIu64 ", deferred %" PRIu64 "\n", s->requests,
           s->memory_hits, s->deferred);
    printf("  downloads: started %" PRIu64 ", coalesced %" PRIu64 ", cancelled %" PRIu64
           ", failed %" PRIu64 ", %" PRIu64 " bytes\n",
           s->downloads_started, s->downloads_coalesced, s->downloads_cancelled,
           s->downloads_failed, s->bytes_downloaded);
    printf("  decoded %" PRIu64 ", events %" PRIu64 ", cache %" PRIu64 " images / %" PRIu64
           " bytes, in flight %" PRIu64 "\n",
           s->images_decoded, s->events_delivered, s->memory_cache_count, s->memory_cache_bytes,
           s->in_flight);
}

/* Per format: how many rows got an image, at which sizes, and whether
 * lazyimg_image_is_animated flagged them; every format must have arrived, and
 * only the animated GIF rows be flagged. */
static void report_formats(struct demo *d)
{
    int f;
    size_t row;
    unsigned i;
    for (f = 0; f < FORMATS; f++) {
        unsigned images = 0, animated = 0, sizes = 0;
        char seen[4][40]; /* distinct "WxH from WxH" */
        printf("  %-13s", formats[f].name);
        for (row = 0; row < ROWS; row++) {
            const struct arrival *a = &d->arrivals[row];
            char size[40];
            if (d->format[row] != f || !a->has_image)
                continue;
            images++;
            animated += a->animated != 0;
            expect(d, !a->animated == !formats[f].animated, "row %zu (%s): is_animated %d", row,
                   formats[f].name, a->animated);
            snprintf(size, sizeof size, "%ux%u from %ux%u", a->width, a->height, a->source_width,
                     a->source_height);
            for (i = 0; i < sizes && strcmp(seen[i], size) != 0; i++)
                ;
            if (i == sizes && sizes < 4)
                strcpy(seen[sizes++], size);
        }
        printf(" %2u row%s with an image ", images, images == 1 ? " " : "s");
        for (i = 0; i < sizes; i++)
            printf("  %s", seen[i]);
        printf(animated ? ", %u flagged animated\n" : ", none animated\n", animated);
        expect(d, images > 0, "no %s image arrived", formats[f].name);
    }
}

static void report_arrivals(const struct demo *d)
{
    size_t row;
    for (row = 0; row < ROWS; row++) {
        const struct arrival *a = &d->arrivals[row];
        if (a->has_image)
            printf("  row %3zu  %-14s %2ux%-2u from %ux%u  %s%s%s%s\n", row,
                   url_path(d->urls[row]), a->width, a->height, a->source_width,
                   a->source_height, source_name(a->first_source),
                   a->last_source != a->first_source ? ", then " : "",
                   a->last_source != a->first_source ? source_name(a->last_source) : "",
                   a->animated ? "  animated" : "");
        else if (a->error != LAZYIMG_OK && a->http_status != 0)
            printf("  row %3zu  %-14s failed: %s (HTTP %d): \"%s\"\n", row,
                   url_path(d->urls[row]), lazyimg_strerror(a->error), (int)a->http_status,
                   a->message);
        else if (a->error != LAZYIMG_OK)
            printf("  row %3zu  %-14s failed: %s\n", row,
                   d->urls[row] ? url_path(d->urls[row]) : "(no URL)", lazyimg_strerror(a->error));
    }
}

/* The second run's events: how many images, and how many came from disk. */
struct second_run {
    unsigned images;
    unsigned from_disk;
};

static void on_second_run_event(void *user_data, const lazyimg_event *ev)
{
    struct second_run *r = user_data;
    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        r->images++;
        if (ev->source == LAZYIMG_SOURCE_DISK)
            r->from_disk++;
    }
}

/* Requests the server has seen for the first screen's images. Only those: the
 * first loader's last prefetches, cancelled by its destroy, may still reach the
 * server while the second run goes on. */
static unsigned first_screen_hits(struct demo *d)
{
    unsigned hits = 0;
    for (int row = 0; row < VISIBLE; row++) {
        const char *host = d->urls[row] ? strstr(d->urls[row], "://") : NULL;
        const char *path = host ? strchr(host + 3, '/') : NULL;
        hits += path ? image_server_hits(d->server, path) : 0;
    }
    return hits;
}

/* 5. A second run, as after a restart: a new loader on the same disk cache
 *    shows the first screen from disk (thumbnails: no download, no decode). */
static void second_run(struct demo *d, const char *cache_dir)
{
    struct second_run r = {0, 0};
    unsigned hits = first_screen_hits(d), wanted = 0;
    lazyimg_loader *loader = NULL;
    lazyimg_config cfg;
    lazyimg_status st;
    size_t row;
    long start = now_ms(), ms;

    lazyimg_config_init(&cfg);
    cfg.on_event = on_second_run_event;
    cfg.user_data = &r;
    cfg.target_width = BOX;
    cfg.target_height = BOX;
    cfg.prefetch_rows = 0;
    cfg.disk_cache_dir = cache_dir;
    st = lazyimg_loader_create(&cfg, &loader);
    expect(d, st == LAZYIMG_OK, "second run: lazyimg_loader_create: %s", lazyimg_strerror(st));
    if (st != LAZYIMG_OK)
        return;
    lazyimg_set_items(loader, (const char *const *)d->urls, ROWS);
    lazyimg_set_visible_range(loader, 0, VISIBLE);
    for (row = 0; row < VISIBLE; row++) {
        lazyimg_image *image = NULL;
        uint64_t ticket = 0;
        if (lazyimg_request(loader, row, &image, &ticket) == LAZYIMG_PENDING)
            wanted++;
        lazyimg_image_release(image);
    }
    while (r.images < wanted && now_ms() - start < WAIT_MS) {
        lazyimg_wait(loader, 100);
        lazyimg_dispatch(loader, 0);
    }
    ms = now_ms() - start;
    printf("\nsecond run (a new loader on the same disk cache, as after a restart)\n");
    printf("  rows 0..%d shown after %ld ms: %u of %u from disk, %u server requests for them\n",
           VISIBLE - 1, ms, r.from_disk, wanted, first_screen_hits(d) - hits);
    expect(d, wanted > 0 && r.from_disk == wanted, "second run: %u of %u rows from disk", r.from_disk,
           wanted);
    expect(d, first_screen_hits(d) == hits, "second run: the server was asked again");
    lazyimg_loader_destroy(loader);
}

int main(void)
{
    static struct demo demo;
    struct demo *d = &demo;
    lazyimg_config cfg;
    lazyimg_stats before_drag, after_scroll, before_reload, s;
    struct counts c, drag_total = {0, 0, 0, 0};
    lazyimg_status st;
    size_t i, row, first;
    int frame = 0;
    long ms;
    static const size_t drag[] = {8, 16, 24, 32, 40, 48};
    static const size_t decelerate[] = {54, 58, FINAL_FIRST};
    char cache_dir[] = "/tmp/lazyimg-demo-XXXXXX", remove_cache[64];

    alarm(120); /* a last resort: the demo can never hang */

    printf("lazyimg demo: library %s, header %s\n", lazyimg_version_string(), LAZYIMG_VERSION_STRING);
    if (lazyimg_version_number() != LAZYIMG_VERSION_NUMBER) {
        printf("FAIL: header/library version mismatch\n");
        return 1;
    }
    d->server = image_server_start();
    if (d->server == NULL)
        return 1;
    make_list(d);
    for (i = 0; i < VISIBLE; i++)
        d->cells[i].row = ROWS;

    lazyimg_config_init(&cfg);
    cfg.on_event = on_event;
    cfg.user_data = d;
    cfg.delivery = LAZYIMG_DELIVERY_HOST;
    cfg.target_width = BOX;
    cfg.target_height = BOX;
    cfg.prefetch_rows = VISIBLE;
    cfg.retry_after_ms = 60000; /* the 404 stays failed for the whole demo */
    cfg.disk_cache_dir = mkdtemp(cache_dir); /* NULL (no disk cache) if it fails */
    st = lazyimg_loader_create(&cfg, &d->loader);
    if (st < 0) {
        printf("FAIL: lazyimg_loader_create: %s\n", lazyimg_strerror(st));
        image_server_stop(d->server);
        return 1;
    }
    st = lazyimg_set_items(d->loader, (const char *const *)d->urls, ROWS);
    expect(d, st == LAZYIMG_OK, "lazyimg_set_items: %s", lazyimg_strerror(st));
    expect(d, lazyimg_item_count(d->loader) == ROWS, "item count %zu", lazyimg_item_count(d->loader));
    printf("server on 127.0.0.1:%d, %d rows, %d visible, %dx%d cells\n\n",
           image_server_port(d->server), ROWS, VISIBLE, BOX, BOX);

    /* 1. The first screen, at rest: visible rows load, then the next screen
     *    is prefetched. */
    printf("first screen (IDLE)\n");
    c = show(d, 0);
    print_frame(frame++, "IDLE", 0.0, 0, c);
    printf("  rows 0..%d settled after %ld ms\n", VISIBLE - 1, wait_for_screen(d, 0));
    for (ms = now_ms(); now_ms() - ms < 5000; pump(d, 20)) {
        unsigned cached = 0;
        for (row = VISIBLE; row < 2 * VISIBLE; row++) {
            lazyimg_image *image = NULL;
            if (lazyimg_lookup(d->loader, row, &image) == LAZYIMG_OK)
                cached++;
            lazyimg_image_release(image);
        }
        if (cached == VISIBLE && stats_now(d).in_flight == 0)
            break;
    }
    printf("  prefetch of rows %d..%d settled after %ld ms\n\n", VISIBLE, 2 * VISIBLE - 1,
           now_ms() - ms);

    /* 2. The finger drags the list down, then lets go: no download starts,
     *    requests answer DEFERRED (or OK from memory for prefetched rows). */
    printf("scroll\n");
    before_drag = stats_now(d);
    lazyimg_set_scroll_state(d->loader, LAZYIMG_SCROLL_DRAGGING, 40.0);
    for (i = 0; i < sizeof drag / sizeof drag[0]; i++) {
        c = show(d, drag[i]);
        print_frame(frame++, "DRAGGING", 40.0, drag[i], c);
        drag_total.deferred += c.deferred;
        pump(d, 16);
    }
    lazyimg_set_scroll_state(d->loader, LAZYIMG_SCROLL_DECELERATING, 12.0);
    for (i = 0; i < sizeof decelerate / sizeof decelerate[0]; i++) {
        c = show(d, decelerate[i]);
        print_frame(frame++, "DECELERATING", 12.0, decelerate[i], c);
        drag_total.deferred += c.deferred;
        pump(d, 16);
    }
    after_scroll = stats_now(d);
    expect(d, drag_total.deferred > 0, "no request was DEFERRED while scrolling");
    expect(d, after_scroll.downloads_started == before_drag.downloads_started,
           "%" PRIu64 " downloads started while scrolling",
           after_scroll.downloads_started - before_drag.downloads_started);

    /* 3. At rest: the deferred visible rows load first. */
    first = FINAL_FIRST;
    lazyimg_set_scroll_state(d->loader, LAZYIMG_SCROLL_IDLE, 0.0);
    ms = wait_for_screen(d, first);
    printf("  IDLE: rows %zu..%zu settled after %ld ms\n\n", first, first + VISIBLE - 1, ms);

    /* 4. The same rows again, e.g. after a reload of the table: from memory. */
    before_reload = stats_now(d);
    for (i = 0; i < VISIBLE; i++) {
        lazyimg_image_release(d->cells[i].image);
        d->cells[i].image = NULL;
        d->cells[i].error = LAZYIMG_OK;
    }
    c = show(d, first);
    printf("reload of rows %zu..%zu\n", first, first + VISIBLE - 1);
    print_frame(frame++, "IDLE", 0.0, first, c);
    expect(d, c.ok == VISIBLE - 2 && c.pending == 0 && c.deferred == 0,
           "reload: %u of %d image rows from memory", c.ok, VISIBLE - 2);
    expect(d, d->cells[ROW_MISSING % VISIBLE].error == LAZYIMG_E_HTTP,
           "row %d (404): %s, expected the HTTP error at once", ROW_MISSING,
           lazyimg_strerror(d->cells[ROW_MISSING % VISIBLE].error));
    expect(d, d->cells[ROW_NULL % VISIBLE].error == LAZYIMG_E_NO_IMAGE, "row %d (NULL): %s",
           ROW_NULL, lazyimg_strerror(d->cells[ROW_NULL % VISIBLE].error));
    s = stats_now(d);
    expect(d, s.memory_hits - before_reload.memory_hits == VISIBLE - 2,
           "stats: %" PRIu64 " memory hits on reload", s.memory_hits - before_reload.memory_hits);

    /* The report. */
    printf("\nwhat arrived per row\n");
    report_arrivals(d);
    printf("\nwhat arrived per format\n");
    report_formats(d);
    for (row = first; row < first + VISIBLE; row++) {
        if (row != ROW_MISSING && row != ROW_NULL)
            expect(d, d->arrivals[row].has_image, "visible row %zu has no image", row);
    }
    expect(d, d->arrivals[ROW_MISSING].error == LAZYIMG_E_HTTP, "row %d did not fail with HTTP",
           ROW_MISSING);
    printf("\nevents: %u delivered, %u landed in their cell, %u stale (dropped: the cell shows"
           " another row)\n",
           d->events, d->landed, d->dropped_stale);
    printf("\nlazyimg_get_stats\n");
    report_stats(&s);
    expect(d, s.deferred >= drag_total.deferred, "stats: deferred %" PRIu64 " < %u", s.deferred,
           drag_total.deferred);
    expect(d, s.downloads_coalesced > 0, "stats: no ticket joined another's download");
    printf("\none download per URL\n");
    report_hits(d, &s);

    /* Clean up: destroy ends every ticket (its events run here), images the
     * host holds stay valid after it. */
    st = lazyimg_loader_destroy(d->loader);
    expect(d, st == LAZYIMG_OK, "lazyimg_loader_destroy: %s", lazyimg_strerror(st));
    for (i = 0; i < d->ticket_count; i++)
        expect(d, d->tickets[i].events == 1, "ticket %" PRIu64 " (row %zu) got %d events",
               d->tickets[i].ticket, d->tickets[i].row, d->tickets[i].events);
    for (i = 0; i < VISIBLE; i++) {
        if (d->cells[i].image != NULL)
            expect(d, lazyimg_image_pixels(d->cells[i].image) != NULL, "image lost after destroy");
        lazyimg_image_release(d->cells[i].image);
    }
    if (cfg.disk_cache_dir != NULL) {
        second_run(d, cache_dir);
        snprintf(remove_cache, sizeof remove_cache, "rm -rf '%s'", cache_dir);
        if (system(remove_cache) != 0)
            printf("  (could not remove %s)\n", cache_dir);
    }
    image_server_stop(d->server);
    for (row = 0; row < ROWS; row++)
        free(d->urls[row]);
    free(d->tickets);

    if (d->failures)
        printf("\nFAILED: %u expectation(s) not met\n", d->failures);
    else
        printf("\nOK: every expectation met (%zu tickets, one event each)\n", d->ticket_count);
    return d->failures ? 1 : 0;
}

/* clock_gettime and getrusage(RUSAGE_THREAD), for the frame split (frame_split.h). */
#define _GNU_SOURCE

#include "lazyimg_host.h"

#include <stdlib.h>
#include <time.h>

#ifdef LAZYIMG_HOST_SPLIT
#include "frame_split.h"
#else
/* Without LAZYIMG_HOST_SPLIT (make bench-frame-split) the marks are nothing. */
#define SPLIT_MARK(h, part)
#define SPLIT_END(h, state, targeted, misses, events)
#define SPLIT_REPORT(h)
#endif

#include "../../../include/lazyimg.h"

/* lazyimg numbers a loader's tickets 1, 2, 3...: an array by number is the
 * books a C host would keep. Beyond it a ticket is not lazyimg's counting. */
#define MAX_TICKETS ((size_t)1 << 22)

struct lazyimg_host {
    lazyimg_loader *loader;
    lazyimg_host_target_fn set_target;
    size_t rows;
    /* Per row, while its cell is on screen. */
    lazyimg_image **cell_image; /* +1, or NULL */
    uint64_t *cell_ticket;      /* the ticket it waits for, or 0 */
    unsigned char *cell_preview; /* its image is a preview */
    size_t first, count;        /* on screen */
    /* Visible rows whose ticket was cancelled: asked again next frame, as a cell would. */
    size_t *ask_again;
    size_t ask_again_count;
    unsigned char *ticket_open; /* by ticket number: waits for its event */
    lazyimg_host_tally tally;
#ifdef LAZYIMG_HOST_SPLIT
    frame_split split;
#endif
};

/* Frees `h` and its arrays (any of them may be NULL). */
static void free_host(lazyimg_host *h) {
    free(h->cell_image), free(h->cell_ticket), free(h->cell_preview), free(h->ask_again), free(h->ticket_open);
    free(h);
}

lazyimg_host *lazyimg_host_create(size_t rows, lazyimg_host_target_fn set_target) {
    lazyimg_host *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->rows = rows;
    h->set_target = set_target;
    h->cell_image = calloc(rows ? rows : 1, sizeof *h->cell_image);
    h->cell_ticket = calloc(rows ? rows : 1, sizeof *h->cell_ticket);
    h->cell_preview = calloc(rows ? rows : 1, 1);
    h->ask_again = calloc(rows ? rows : 1, sizeof *h->ask_again);
    h->ticket_open = calloc(MAX_TICKETS, 1);
    if (!h->cell_image || !h->cell_ticket || !h->cell_preview || !h->ask_again || !h->ticket_open) {
        free_host(h);
        return NULL;
    }
    return h;
}

void lazyimg_host_attach(lazyimg_host *h, lazyimg_loader *loader) { h->loader = loader; }

static int on_screen(const lazyimg_host *h, size_t row) {
    return row >= h->first && row - h->first < h->count;
}

/* Returns whether it opened a ticket. */
static int request(lazyimg_host *h, size_t row) {
    lazyimg_image *image = NULL;
    uint64_t ticket = 0;
    lazyimg_status status = lazyimg_request(h->loader, row, &image, &ticket);
    if (status == LAZYIMG_OK) {
        h->cell_image[row] = image;
        return 0;
    }
    if (status == LAZYIMG_PENDING || status == LAZYIMG_DEFERRED) {
        if (ticket >= MAX_TICKETS) {
            h->tally.request_errors++;
            return 0;
        }
        h->cell_ticket[row] = ticket;
        h->ticket_open[ticket] = 1;
        h->tally.tickets++;
        return 1;
    }
    h->tally.request_errors++;
    return 0;
}

/* The monotonic clock in nanoseconds, as a frame's time is read. */
static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t lazyimg_host_frame(lazyimg_host *h, int state, double velocity,
                           size_t first, size_t count, size_t target_first, size_t target_count) {
    if (first > h->rows) first = h->rows;
    if (count > h->rows - first) count = h->rows - first;
    size_t misses = 0;
    int targeted = 0;
    int64_t start = monotonic_ns();
    SPLIT_MARK(h, SPLIT_START);
    lazyimg_set_scroll_state(h->loader, (lazyimg_scroll_state)state, velocity);
    if (target_count > 0 && h->set_target) {
        h->set_target(h->loader, target_first, target_count);
        h->tally.used_scroll_target = 1;
        targeted = 1;
    }
    SPLIT_MARK(h, SPLIT_SCROLL);
    lazyimg_set_visible_range(h->loader, first, count);
    SPLIT_MARK(h, SPLIT_VISIBLE);
    size_t old_first = h->first, old_end = h->first + h->count, end = first + count;
    /* Cells that left are reused: they let go of their image and forget their ticket. */
    for (size_t row = old_first; row < old_end; row++) {
        if (row >= first && row < end) continue;
        lazyimg_image_release(h->cell_image[row]);
        h->cell_image[row] = NULL;
        h->cell_ticket[row] = 0;
        h->cell_preview[row] = 0;
    }
    h->first = first;
    h->count = count;
    SPLIT_MARK(h, SPLIT_CELLS);
    for (size_t row = first; row < end; row++) {
        if (row < old_first || row >= old_end) misses += (size_t)request(h, row);
    }
    if (h->ask_again_count > 0) {
        size_t n = h->ask_again_count;
        h->ask_again_count = 0;
        for (size_t i = 0; i < n; i++) {
            size_t row = h->ask_again[i];
            if (on_screen(h, row) && !h->cell_image[row] && h->cell_ticket[row] == 0) misses += (size_t)request(h, row);
        }
    }
    SPLIT_MARK(h, SPLIT_REQUESTS);
    size_t events = lazyimg_dispatch(h->loader, 0);
    (void)events;
    (void)misses;
    (void)targeted;
    SPLIT_MARK(h, SPLIT_DISPATCH);
    int64_t stop = monotonic_ns();
    SPLIT_END(h, state, targeted, misses, events);
    return stop - start;
}

void lazyimg_host_on_event(void *user_data, const lazyimg_event *ev) {
    lazyimg_host *h = user_data;
    if (!h || !ev) return;
    if (ev->ticket >= MAX_TICKETS || !h->ticket_open[ev->ticket]) {
        h->tally.unexpected_events++;
        return;
    }
    size_t row = ev->row;
    int current = on_screen(h, row) && h->cell_ticket[row] == ev->ticket; /* else a reused cell: stale */
    if (ev->type == LAZYIMG_EVENT_PREVIEW) {
        h->tally.previews++;
        if (!current) return;
        lazyimg_image_release(h->cell_image[row]);
        h->cell_image[row] = lazyimg_image_retain(ev->image);
        h->cell_preview[row] = 1;
        return;
    }
    h->ticket_open[ev->ticket] = 0;
    h->tally.ticket_events++;
    if (!current) return;
    h->cell_ticket[row] = 0;
    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        lazyimg_image_release(h->cell_image[row]);
        h->cell_image[row] = lazyimg_image_retain(ev->image);
    } else if (ev->status == LAZYIMG_E_CANCELLED) {
        lazyimg_image_release(h->cell_image[row]);
        h->cell_image[row] = NULL;
        if (h->ask_again_count < h->rows) h->ask_again[h->ask_again_count++] = row;
    }
    h->cell_preview[row] = 0;
}

int lazyimg_host_showing(const lazyimg_host *h, size_t row) {
    return on_screen(h, row) && h->cell_image[row] != NULL;
}

int lazyimg_host_showing_final(const lazyimg_host *h, size_t row) {
    return lazyimg_host_showing(h, row) && !h->cell_preview[row];
}

lazyimg_host_tally lazyimg_host_finish(lazyimg_host *h) {
    lazyimg_loader_destroy(h->loader); /* every open ticket's event runs here */
    h->loader = NULL;
    for (size_t row = h->first; row < h->first + h->count; row++) lazyimg_image_release(h->cell_image[row]);
    lazyimg_host_tally tally = h->tally;
    SPLIT_REPORT(h);
    free_host(h);
    return tally;
}

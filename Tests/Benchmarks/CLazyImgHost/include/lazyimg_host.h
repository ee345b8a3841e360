/*
 * lazyimg_host: the scroll benchmark's lazyimg host, its per-frame part in C as an
 * app would write it, so that lazyimg's frame is timed with a host as lean as the
 * LazyTable baseline's (lazy_table.h). Each cell holds a +1 image or the ticket it
 * waits for; per frame: set_scroll_state, set_scroll_target when the harness gives
 * a resting place, set_visible_range, lazyimg_request for each row that came on
 * screen (and for visible rows whose ticket was cancelled), one lazyimg_dispatch.
 * The event callback keeps the books of the exactly-once contract.
 */
#ifndef LAZYIMG_HOST_H
#define LAZYIMG_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Only forward declarations of lazyimg's types here, so that Swift sees each of
 * them once, from lazyimg.h's own module; lazyimg_host.c includes the header. */
struct lazyimg_loader;
struct lazyimg_event;

typedef struct lazyimg_host lazyimg_host;

/* lazyimg_set_scroll_target, looked up at run time (NULL: not called). */
typedef int (*lazyimg_host_target_fn)(struct lazyimg_loader *loader, size_t first, size_t count);

/* What the host counted: the check that the run was sound. */
typedef struct lazyimg_host_tally {
    uint64_t tickets;           /* PENDING or DEFERRED answers */
    uint64_t ticket_events;     /* events for those tickets, one each */
    uint64_t unexpected_events; /* unknown ticket, or a second event for one */
    uint64_t request_errors;    /* requests answered with an error status */
    uint64_t previews;          /* PREVIEW events */
    int used_scroll_target;
} lazyimg_host_tally;

/* A host for a list of `rows` rows; NULL when out of memory. Make the loader with
 * lazyimg_host_on_event as on_event and this host as user_data, then attach it. */
lazyimg_host *lazyimg_host_create(size_t rows, lazyimg_host_target_fn set_target);
void lazyimg_host_attach(lazyimg_host *host, struct lazyimg_loader *loader);

/* The loader's on_event (user_data: the host). */
void lazyimg_host_on_event(void *user_data, const struct lazyimg_event *event);

/* One frame. `state`: a lazyimg_scroll_state; `target_count` 0: no resting
 * place known this frame. Returns the frame's nanoseconds on the monotonic
 * clock, read here in C before its first lazyimg call and after its last, so
 * that the harness's own call into the host is not counted. */
int64_t lazyimg_host_frame(lazyimg_host *host, int state, double velocity,
                           size_t first, size_t count, size_t target_first, size_t target_count);

/* Whether on-screen `row` shows an image (or a preview of it); its final one. */
int lazyimg_host_showing(const lazyimg_host *host, size_t row);
int lazyimg_host_showing_final(const lazyimg_host *host, size_t row);

/* Destroys the loader (its open tickets' events run then), releases the cells'
 * images, returns the tally and frees the host. */
lazyimg_host_tally lazyimg_host_finish(lazyimg_host *host);

#endif

/*
 * feed_pager.h: the rows of a paged JSON feed (feed_server.h's format) as a list
 * host keeps them. The loader's NEED_PAGE event asks for the next page, which
 * comes with lazyimg_fetch, is parsed with cJSON and appended to the loader's
 * list; a failed page is asked for again after a second.
 */
#ifndef FEED_PAGER_H
#define FEED_PAGER_H

#include <stddef.h>
#include <stdint.h>

#include "feed_checks.h"
#include "lazyimg.h"

struct feed_item {
    char *title;
    char *image_path; /* the image URL's path, to match the server's log; NULL = none */
    unsigned width, height; /* as the feed says */
};

struct feed_pager {
    struct feed_item *items;
    size_t count, capacity;
    char *next_page;        /* URL of the next page; NULL = the feed ended */
    uint64_t ticket;        /* the page on the way; 0 = none */
    size_t paging_distance; /* rows, as given to lazyimg_set_paging */
    unsigned pages, failures, need_page_events, fetches;
    unsigned hashes_given;  /* items that came with a "blurhash" */
    double retry_at;        /* feed_now_ms() to ask again at; 0 = none */
    char error[96];         /* why the last page failed; "" = none */
};

/* Starts paging: `first_page` (copied) comes through NEED_PAGE too, once the
 * visible range nears the (empty) list's end. -1 when out of memory. */
int feed_pager_start(struct feed_pager *p, lazyimg_loader *loader, const char *first_page,
                     size_t paging_distance, struct feed_checks *checks);

/* Takes the events that are the pager's: NEED_PAGE and its page's ticket
 * (the checks see their tickets). Returns 1 for those, 0 for any other. */
int feed_pager_event(struct feed_pager *p, lazyimg_loader *loader, struct feed_checks *checks,
                     const lazyimg_event *ev);

/* Once a frame: asks for a failed page again when its second is up. */
void feed_pager_poll(struct feed_pager *p, lazyimg_loader *loader, double now_ms);

void feed_pager_free(struct feed_pager *p);

#endif

/*
 * lazy_table: the LazyTable baseline's per-frame part in C, as lean as an app's:
 * a mutex-guarded queue of rows to download, drained by the baseline's own network
 * thread, which the UI wakes at most once a frame; and a mutex-guarded queue of
 * rows whose image arrived, drained by the UI at the start of each frame.
 * Apple's LazyTable policy: nothing starts while the list moves; at rest, every
 * visible row without its image starts, no cap, no prefetch.
 */
#ifndef LAZY_TABLE_H
#define LAZY_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct lazy_table lazy_table;

/* Starts a download of `row`; called on the baseline's network thread. */
typedef void (*lazy_table_start_fn)(void *context, size_t row);

/* NULL when out of memory or the thread cannot start. */
lazy_table *lazy_table_create(size_t rows, lazy_table_start_fn start, void *context);

/* Stops and joins the network thread; rows still queued are not started.
 * Arrivals are still taken. Idempotent. */
void lazy_table_stop(lazy_table *table);

/* Stops it if running, and frees it: no thread may call lazy_table_arrived
 * any more. */
void lazy_table_destroy(lazy_table *table);

/* UI thread, once a frame: takes what arrived, then (at rest) queues the visible
 * rows first .. first+count-1 that have no image and were not asked for. */
void lazy_table_frame(lazy_table *table, int moving, size_t first, size_t count);
/* The harness's frame: lazy_table_frame timed on the monotonic clock, read here
 * in C as lazyimg's C host reads it around its calls; returns nanoseconds. */
int64_t lazy_table_timed_frame(lazy_table *table, int moving, size_t first, size_t count);

/* UI thread: whether the cell of `row` shows its image (on screen, arrived). */
int lazy_table_showing(const lazy_table *table, size_t row);

/* Any thread: `row`'s download and decode ended (ok non-zero: with an image). */
void lazy_table_arrived(lazy_table *table, size_t row, int ok);

#endif

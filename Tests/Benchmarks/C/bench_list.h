/*
 * bench_list.h: what the C benchmarks share: the loopback image server's JPEG
 * URLs as a list's rows, and a loader that fits them into 64x64 cells.
 */
#ifndef BENCH_LIST_H
#define BENCH_LIST_H

#include <stddef.h>

#include "image_server.h"
#include "lazyimg.h"

/* Starts the loopback image server into *server, and returns a loader (as
 * bench_thumbnail_loader) over its first `count` JPEG rows: row i's URL is
 * written into urls[i] and rows[i] points at it. NULL on failure, with the
 * reason on stderr and no server left running. */
lazyimg_loader *bench_open_list(image_server **server, int count, char (*urls)[64], const char **rows);

/* A loader with the default configuration but a 64x64 box, over `count` rows
 * (none when count is 0); NULL, with the reason on stderr, when it fails. */
lazyimg_loader *bench_thumbnail_loader(const char *const *rows, size_t count);

/* Asks for rows [0, count), letting go of any image answered at once. */
void bench_request_rows(lazyimg_loader *loader, size_t count);

/* Dispatches until `count` images are in memory: 0 then, -1 with the reason on
 * stderr when they are not after 1,000 waits of up to a second. */
int bench_wait_cached(lazyimg_loader *loader, size_t count);

#endif /* BENCH_LIST_H */

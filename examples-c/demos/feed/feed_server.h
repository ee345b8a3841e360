/*
 * feed_server.h: a loopback HTTP server (libmicrohttpd) for the demos in examples-c/demos.
 *
 * It serves an endless paged JSON feed, GET /feed?page=N:
 *
 *   {"items": [{"title": "kodim07", "image": "http://127.0.0.1:P/photo/7/2.jpg",
 *               "width": 384, "height": 256, "blurhash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj"}, ...],
 *    "next": "http://127.0.0.1:P/feed?page=N+1"}     (null after the last page)
 *
 * with a BlurHash of each item's picture (4x3 components), as the Mastodon API
 * gives each media attachment one.
 *
 * and the images the items name: the Kodak photos of a directory (kodimNN.png)
 * when one is given and readable, else generated pictures, each at three sizes
 * (full size as PNG, half and quarter size as JPEG), made on first request and
 * kept. Items 1 and 2 of every ten are animations instead (/anim/N.gif and
 * /anim/N.webp: 24 frames of 80 ms, 240x150), generated the same way. Every request is counted by path and logged with the time its headers
 * came in and how it ended, and can be delayed (latency_ms).
 */
#ifndef FEED_SERVER_H
#define FEED_SERVER_H

#include <stddef.h>

struct feed_server;

struct feed_server_options {
    const char *photos_dir; /* kodimNN.png files; NULL or unreadable = generated images */
    unsigned latency_ms;    /* added to every response */
    unsigned page_size;     /* items per page; 0 = 20 */
    unsigned pages;         /* pages in all; 0 = endless */
};

/* Starts on 127.0.0.1, a free port. NULL (with a message on stderr) on failure. */
struct feed_server *feed_server_start(const struct feed_server_options *options);
/* "http://127.0.0.1:PORT/feed?page=0". Owned by the server. */
const char *feed_server_first_page(const struct feed_server *s);
/* 1 when it serves photos from photos_dir, 0 for generated images. */
int feed_server_has_photos(const struct feed_server *s);
/* Requests seen for `path` (no query) so far. */
unsigned feed_server_hits(struct feed_server *s, const char *path);

/* How a request ended, as the server saw it. */
enum feed_outcome {
    FEED_RUNNING,  /* not answered yet */
    FEED_SENT,     /* the whole response was handed to the socket */
    FEED_HUNG_UP   /* the client closed the connection first (it cancelled) */
};

/* One request, in the order their headers came in. A client that gives up on a
 * transfer closes its connection; when the answer was already in the socket's
 * buffers the server counts it SENT, and only the close shows it. */
struct feed_request {
    const char *path;          /* no query; owned by the server until feed_server_stop */
    double at_ms;              /* CLOCK_MONOTONIC, when its headers came in */
    enum feed_outcome outcome;
    double closed_at_ms;       /* when its connection closed, if it was the last
                                  request on it; 0 = open, or more came on it */
};

/* A copy of the request log (malloc'd: free it); *count set. NULL when empty or
 * out of memory. */
struct feed_request *feed_server_requests(struct feed_server *s, size_t *count);
/* Stops answering: closes every connection and waits for the server's threads, so
 * every outcome in the log is final. The log stays readable. NULL is ignored. */
void feed_server_close(struct feed_server *s);
/* Closes the server if still open and frees it; NULL is ignored. */
void feed_server_stop(struct feed_server *s);

#endif

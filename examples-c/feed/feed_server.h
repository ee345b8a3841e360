/*
 * feed_server.h: a loopback HTTP server (libmicrohttpd) for the termlist demo.
 *
 * It serves an endless paged JSON feed, GET /feed?page=N:
 *
 *   {"items": [{"title": "kodim07", "image": "http://127.0.0.1:P/photo/7/2.jpg",
 *               "width": 384, "height": 256}, ...],
 *    "next": "http://127.0.0.1:P/feed?page=N+1"}     (null after the last page)
 *
 * and the images the items name: the Kodak photos of a directory (kodimNN.png)
 * when one is given and readable, else generated pictures, each at three sizes
 * (full size as PNG, half and quarter size as JPEG), made on first request and
 * kept. Every request is counted by path, and can be delayed (latency_ms).
 */
#ifndef FEED_SERVER_H
#define FEED_SERVER_H

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
/* Of the paths starting with `prefix`: how many were requested, and how many of
 * those more than once. */
void feed_server_count(struct feed_server *s, const char *prefix, unsigned *paths, unsigned *repeated);
/* Stops the server (waits for its threads) and frees it; NULL is ignored. */
void feed_server_stop(struct feed_server *s);

#endif

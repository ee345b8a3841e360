/*
 * image_server.h: a tiny loopback HTTP/1.1 server for the lazyimg demo.
 *
 * Listens on 127.0.0.1 on an ephemeral port, in one background thread, and
 * serves generated images so the demo needs no network and no files. Each is
 * a gradient whose colour depends on N:
 *   GET /img/N.jpg   a 320x240 JPEG (TurboJPEG, 4:2:0)
 *   GET /img/N.png   a 160x120 RGBA PNG (libspng) whose alpha fades from
 *                    opaque at the left to 25% at the right
 *   GET /img/N.webp  the same as a WebP with alpha (libwebp): lossy
 *                    for even N, lossless for odd N
 *   GET /img/N.gif   a 160x120 GIF89a (giflib), 64 colours, with a
 *                    transparent disk in the middle
 *   GET /anim/N.gif  the same GIF with a second frame and a Netscape loop
 *                    extension: an animated GIF
 *   anything else    404 (the demo uses /missing.jpg)
 * Each body is generated on its first request and kept until the server
 * stops.
 * Connections are kept alive. Every request is counted per path, so the demo
 * can prove that each URL was downloaded once.
 */
#ifndef IMAGE_SERVER_H
#define IMAGE_SERVER_H

#include <stddef.h>

typedef struct image_server image_server;

/* Starts the server; NULL on failure (the reason is printed to stderr). */
image_server *image_server_start(void);

/* The port it listens on. */
int image_server_port(const image_server *server);

/* Writes row `n`'s URL, "http://127.0.0.1:<port>/img/<n>.jpg" (a JPEG made for
 * n), into `buf` of `size` bytes. */
void image_server_jpeg_url(const image_server *server, int n, char *buf, size_t size);

/* Requests seen so far for `path` (e.g. "/img/3.jpg"), whatever the answer. */
unsigned image_server_hits(image_server *server, const char *path);

/* Requests seen so far for all paths together. */
unsigned image_server_total_hits(image_server *server);

/* Stops the thread, closes every connection and frees the server. NULL is
 * accepted. */
void image_server_stop(image_server *server);

#endif /* IMAGE_SERVER_H */

/*
 * image_server.h: a tiny loopback HTTP/1.1 server for the lazyimg demo.
 *
 * Listens on 127.0.0.1 on an ephemeral port, in one background thread, and
 * serves generated images so the demo needs no network and no files:
 *   GET /img/N.jpg   a 320x240 JPEG (TurboJPEG) with a gradient whose colour
 *                    depends on N
 *   anything else    404 (the demo uses /missing.jpg)
 * Connections are kept alive. Every request is counted per path, so the demo
 * can prove that each URL was downloaded once.
 */
#ifndef IMAGE_SERVER_H
#define IMAGE_SERVER_H

typedef struct image_server image_server;

/* Starts the server; NULL on failure (the reason is printed to stderr). */
image_server *image_server_start(void);

/* The port it listens on. */
int image_server_port(const image_server *server);

/* Requests seen so far for `path` (e.g. "/img/3.jpg"), whatever the answer. */
unsigned image_server_hits(image_server *server, const char *path);

/* Requests seen so far for all paths together. */
unsigned image_server_total_hits(image_server *server);

/* Stops the thread, closes every connection and frees the server. NULL is
 * accepted. */
void image_server_stop(image_server *server);

#endif /* IMAGE_SERVER_H */

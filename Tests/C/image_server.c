/*
 * image_server.c: see image_server.h.
 *
 * One thread polls the listening socket, a wake-up pipe and every client
 * connection. Requests are small and answers are written whole (the client
 * reads them on its own thread), which is plenty for a demo on loopback.
 */
#define _POSIX_C_SOURCE 200809L

#include "image_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <gif_lib.h>
#include <spng.h>
#include <turbojpeg.h>
#include <webp/encode.h>

#define MAX_CLIENTS 64
#define MAX_PATHS 512
#define REQUEST_MAX 4096
#define JPEG_WIDTH 320
#define JPEG_HEIGHT 240
/* PNG, WebP and GIF are smaller: they take the library's general resampling
 * path (JPEG has an opaque fast path), which in a debug build under valgrind
 * (make memcheck) takes about 2 s for a 320x240 image. */
#define SMALL_WIDTH 160
#define SMALL_HEIGHT 120
#define GIF_COLOURS 64 /* index 0 is transparent */
#define MAX_BODIES 256

enum image_kind { KIND_JPEG, KIND_PNG, KIND_WEBP, KIND_GIF, KIND_ANIMATED_GIF };

/* A generated answer, kept for the next request of the same path. */
struct body {
    char path[64];
    const char *type;
    unsigned char *data; /* malloc'd */
    size_t size;
};

struct client {
    int fd;
    size_t used;
    char buf[REQUEST_MAX];
};

struct path_hits {
    char path[128];
    unsigned hits;
};

struct image_server {
    int listen_fd;
    int wake_pipe[2];
    int port;
    pthread_t thread;
    struct client clients[MAX_CLIENTS];
    tjhandle jpeg;
    struct body bodies[MAX_BODIES]; /* server thread only */
    size_t body_count;

    pthread_mutex_t lock; /* guards the counters below */
    struct path_hits paths[MAX_PATHS];
    size_t path_count;
    unsigned total_hits;
};

/* ------------------------------------------------------------ counting */

static void count_hit(image_server *s, const char *path)
{
    size_t i;
    pthread_mutex_lock(&s->lock);
    s->total_hits++;
    for (i = 0; i < s->path_count; i++) {
        if (strcmp(s->paths[i].path, path) == 0) {
            s->paths[i].hits++;
            pthread_mutex_unlock(&s->lock);
            return;
        }
    }
    if (s->path_count < MAX_PATHS && strlen(path) < sizeof s->paths[0].path) {
        strcpy(s->paths[s->path_count].path, path);
        s->paths[s->path_count].hits = 1;
        s->path_count++;
    }
    pthread_mutex_unlock(&s->lock);
}

unsigned image_server_hits(image_server *s, const char *path)
{
    unsigned hits = 0;
    size_t i;
    if (s == NULL || path == NULL)
        return 0;
    pthread_mutex_lock(&s->lock);
    for (i = 0; i < s->path_count; i++) {
        if (strcmp(s->paths[i].path, path) == 0) {
            hits = s->paths[i].hits;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return hits;
}

unsigned image_server_total_hits(image_server *s)
{
    unsigned hits;
    if (s == NULL)
        return 0;
    pthread_mutex_lock(&s->lock);
    hits = s->total_hits;
    pthread_mutex_unlock(&s->lock);
    return hits;
}

int image_server_port(const image_server *s)
{
    return s == NULL ? -1 : s->port;
}

void image_server_jpeg_url(const image_server *s, int n, char *buf, size_t size)
{
    snprintf(buf, size, "http://127.0.0.1:%d/img/%d.jpg", image_server_port(s), n);
}

/* ------------------------------------------------------------- answers */

/* The colour of image number n. */
static void base_colour(unsigned n, unsigned rgb[3])
{
    rgb[0] = (n * 97u + 40u) % 256u;
    rgb[1] = (n * 57u + 90u) % 256u;
    rgb[2] = (n * 31u + 160u) % 256u;
}

/* RGBA pixels for image number n: a diagonal gradient over n's colour. With
 * `fade`, alpha falls from 255 at the left edge to 64 at the right. malloc'd. */
static unsigned char *make_rgba(unsigned n, int width, int height, int fade)
{
    unsigned char *rgba = malloc((size_t)width * (size_t)height * 4);
    unsigned c[3];
    int x, y;
    if (rgba == NULL)
        return NULL;
    base_colour(n, c);
    for (y = 0; y < height; y++) {
        for (x = 0; x < width; x++) {
            unsigned char *p = rgba + ((size_t)y * (size_t)width + (size_t)x) * 4;
            unsigned shade = (unsigned)(x + y) * 128u / (unsigned)(width + height);
            p[0] = (unsigned char)((c[0] + shade) % 256u);
            p[1] = (unsigned char)((c[1] + shade) % 256u);
            p[2] = (unsigned char)((c[2] + shade) % 256u);
            p[3] = (unsigned char)(fade ? 255 - x * 191 / (width - 1) : 255);
        }
    }
    return rgba;
}

/* A copy of `size` bytes in malloc'd memory, so every body is freed alike. */
static unsigned char *copy_bytes(const void *data, size_t size)
{
    unsigned char *copy = malloc(size);
    if (copy != NULL)
        memcpy(copy, data, size);
    return copy;
}

/* A 4:2:0 JPEG, quality 85. */
static unsigned char *make_jpeg(image_server *s, unsigned n, size_t *size)
{
    unsigned char *rgba = make_rgba(n, JPEG_WIDTH, JPEG_HEIGHT, 0);
    unsigned char *jpeg = NULL, *body = NULL;
    unsigned long jpeg_size = 0;
    if (rgba == NULL)
        return NULL;
    if (tjCompress2(s->jpeg, rgba, JPEG_WIDTH, 0, JPEG_HEIGHT, TJPF_RGBA, &jpeg, &jpeg_size,
                    TJSAMP_420, 85, 0) == 0)
        body = copy_bytes(jpeg, *size = jpeg_size);
    else
        fprintf(stderr, "image_server: tjCompress2: %s\n", tjGetErrorStr2(s->jpeg));
    tjFree(jpeg);
    free(rgba);
    return body;
}

/* An 8-bit RGBA PNG whose alpha fades to the right. */
static unsigned char *make_png(unsigned n, size_t *size)
{
    unsigned char *rgba = make_rgba(n, SMALL_WIDTH, SMALL_HEIGHT, 1);
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ihdr;
    unsigned char *png = NULL;
    int rc = -1;
    if (rgba != NULL && ctx != NULL) {
        memset(&ihdr, 0, sizeof ihdr);
        ihdr.width = SMALL_WIDTH;
        ihdr.height = SMALL_HEIGHT;
        ihdr.bit_depth = 8;
        ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
        if ((rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1)) == 0 &&
            (rc = spng_set_ihdr(ctx, &ihdr)) == 0 &&
            (rc = spng_encode_image(ctx, rgba, (size_t)SMALL_WIDTH * SMALL_HEIGHT * 4,
                                    SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE)) == 0)
            png = spng_get_png_buffer(ctx, size, &rc); /* ours now; malloc'd */
        if (png == NULL)
            fprintf(stderr, "image_server: spng: %s\n", spng_strerror(rc));
    }
    spng_ctx_free(ctx);
    free(rgba);
    return png;
}

/* A WebP with alpha: lossy for even n, lossless for odd n. */
static unsigned char *make_webp(unsigned n, size_t *size)
{
    unsigned char *rgba = make_rgba(n, SMALL_WIDTH, SMALL_HEIGHT, 1);
    uint8_t *webp = NULL;
    unsigned char *body = NULL;
    if (rgba == NULL)
        return NULL;
    if (n % 2 == 0)
        *size = WebPEncodeRGBA(rgba, SMALL_WIDTH, SMALL_HEIGHT, SMALL_WIDTH * 4, 80.0f, &webp);
    else
        *size = WebPEncodeLosslessRGBA(rgba, SMALL_WIDTH, SMALL_HEIGHT, SMALL_WIDTH * 4, &webp);
    if (*size > 0)
        body = copy_bytes(webp, *size);
    else
        fprintf(stderr, "image_server: WebPEncode failed\n");
    WebPFree(webp);
    free(rgba);
    return body;
}

/* A growing buffer that giflib writes into. */
struct gif_buffer {
    unsigned char *data;
    size_t size, capacity;
};

static int gif_write(GifFileType *gif, const GifByteType *bytes, int len)
{
    struct gif_buffer *b = gif->UserData;
    if (b->size + (size_t)len > b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 4096;
        unsigned char *grown;
        while (capacity < b->size + (size_t)len)
            capacity *= 2;
        if ((grown = realloc(b->data, capacity)) == NULL)
            return 0;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, bytes, (size_t)len);
    b->size += (size_t)len;
    return len;
}

/* One GIF frame: a graphics control block (index 0 transparent, 0.5 s), the
 * image descriptor, and the rows. Frame 0 is the gradient with a transparent
 * disk in the middle; frame 1 the gradient shifted, without the disk. */
static int put_gif_frame(GifFileType *gif, int frame)
{
    GraphicsControlBlock gcb;
    GifByteType ext[4];
    GifPixelType line[SMALL_WIDTH];
    int x, y;

    gcb.DisposalMode = DISPOSAL_UNSPECIFIED;
    gcb.UserInputFlag = false;
    gcb.DelayTime = 50;
    gcb.TransparentColor = 0;
    if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)EGifGCBToExtension(&gcb, ext), ext) ==
            GIF_ERROR ||
        EGifPutImageDesc(gif, 0, 0, SMALL_WIDTH, SMALL_HEIGHT, false, NULL) == GIF_ERROR)
        return -1;
    for (y = 0; y < SMALL_HEIGHT; y++) {
        for (x = 0; x < SMALL_WIDTH; x++) {
            int dx = x - SMALL_WIDTH / 2, dy = y - SMALL_HEIGHT / 2;
            int shade = (x + y) * (GIF_COLOURS - 2) / (SMALL_WIDTH + SMALL_HEIGHT - 2);
            if (frame == 0 && dx * dx + dy * dy < (SMALL_HEIGHT / 4) * (SMALL_HEIGHT / 4))
                line[x] = 0;
            else
                line[x] = (GifPixelType)(1 + (shade + frame * GIF_COLOURS / 2) % (GIF_COLOURS - 1));
        }
        if (EGifPutLine(gif, line, SMALL_WIDTH) == GIF_ERROR)
            return -1;
    }
    return 0;
}

/* A GIF89a with a 64-colour palette: one frame, or two frames and a Netscape
 * loop extension (loop forever) when `animated`. */
static unsigned char *make_gif(unsigned n, int animated, size_t *size)
{
    static const GifByteType loop[3] = {1, 0, 0};
    struct gif_buffer b = {NULL, 0, 0};
    GifColorType colours[GIF_COLOURS];
    ColorMapObject *map;
    GifFileType *gif;
    unsigned c[3];
    int i, error = 0, ok;

    base_colour(n, c);
    for (i = 0; i < GIF_COLOURS; i++) {
        unsigned shade = i == 0 ? 0u : (unsigned)(i - 1) * 2u;
        colours[i].Red = (GifByteType)((c[0] + shade) % 256u);
        colours[i].Green = (GifByteType)((c[1] + shade) % 256u);
        colours[i].Blue = (GifByteType)((c[2] + shade) % 256u);
    }
    if ((map = GifMakeMapObject(GIF_COLOURS, colours)) == NULL)
        return NULL;
    if ((gif = EGifOpen(&b, gif_write, &error)) == NULL) {
        fprintf(stderr, "image_server: EGifOpen: %s\n", GifErrorString(error));
        GifFreeMapObject(map);
        return NULL;
    }
    EGifSetGifVersion(gif, true);
    ok = EGifPutScreenDesc(gif, SMALL_WIDTH, SMALL_HEIGHT, 8, 0, map) != GIF_ERROR; /* copies map */
    if (ok && animated)
        ok = EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_ERROR &&
             EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") != GIF_ERROR &&
             EGifPutExtensionBlock(gif, 3, loop) != GIF_ERROR &&
             EGifPutExtensionTrailer(gif) != GIF_ERROR;
    for (i = 0; ok && i < (animated ? 2 : 1); i++)
        ok = put_gif_frame(gif, i) == 0;
    if (!ok)
        fprintf(stderr, "image_server: giflib: %s\n", GifErrorString(gif->Error));
    if (EGifCloseFile(gif, &error) == GIF_ERROR) { /* writes the trailer, frees gif */
        fprintf(stderr, "image_server: EGifCloseFile: %s\n", GifErrorString(error));
        ok = 0;
    }
    GifFreeMapObject(map);
    if (!ok) {
        free(b.data);
        return NULL;
    }
    *size = b.size;
    return b.data;
}

/* "/img/N.jpg|png|webp|gif" or "/anim/N.gif" -> 1 with *kind and *n set;
 * anything else -> 0. */
static int parse_image_path(const char *path, enum image_kind *kind, unsigned *n)
{
    static const struct {
        const char *ext;
        enum image_kind kind;
    } exts[] = {{".jpg", KIND_JPEG}, {".png", KIND_PNG}, {".webp", KIND_WEBP}, {".gif", KIND_GIF}};
    const char *p;
    unsigned value = 0;
    size_t i;
    int anim = strncmp(path, "/anim/", 6) == 0;

    if (!anim && strncmp(path, "/img/", 5) != 0)
        return 0;
    p = path + (anim ? 6 : 5);
    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9' && value < 100000u; p++)
        value = value * 10u + (unsigned)(*p - '0');
    *n = value;
    if (anim) {
        *kind = KIND_ANIMATED_GIF;
        return strcmp(p, ".gif") == 0;
    }
    for (i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        if (strcmp(p, exts[i].ext) == 0) {
            *kind = exts[i].kind;
            return 1;
        }
    }
    return 0;
}

/* The body for an image path, generated on its first request and kept until
 * image_server_stop (only the server thread touches the cache). NULL when the
 * encoder failed. When the cache is full the body is made in *uncached, and
 * the caller frees its data. */
static const struct body *image_body(image_server *s, const char *path, enum image_kind kind,
                                     unsigned n, struct body *uncached)
{
    static const char *const types[] = {"image/jpeg", "image/png", "image/webp", "image/gif",
                                        "image/gif"};
    struct body *b;
    size_t i;
    for (i = 0; i < s->body_count; i++) {
        if (strcmp(s->bodies[i].path, path) == 0)
            return &s->bodies[i];
    }
    b = s->body_count < MAX_BODIES && strlen(path) < sizeof b->path ? &s->bodies[s->body_count]
                                                                    : uncached;
    memset(b, 0, sizeof *b);
    b->type = types[kind];
    switch (kind) {
    case KIND_JPEG: b->data = make_jpeg(s, n, &b->size); break;
    case KIND_PNG: b->data = make_png(n, &b->size); break;
    case KIND_WEBP: b->data = make_webp(n, &b->size); break;
    case KIND_GIF: b->data = make_gif(n, 0, &b->size); break;
    case KIND_ANIMATED_GIF: b->data = make_gif(n, 1, &b->size); break;
    }
    if (b->data == NULL)
        return NULL;
    if (b != uncached) {
        strcpy(b->path, path);
        s->body_count++;
    }
    return b;
}

static int send_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int send_response(int fd, const char *status, const char *type, const void *body,
                         size_t body_len, int keep_alive)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %lu\r\n"
                     "Connection: %s\r\n\r\n",
                     status, type, (unsigned long)body_len, keep_alive ? "keep-alive" : "close");
    if (send_all(fd, head, (size_t)n) != 0)
        return -1;
    return body_len > 0 ? send_all(fd, body, body_len) : 0;
}

/* Case-insensitive "does the header block contain this text". */
static int headers_contain(const char *headers, const char *needle)
{
    size_t n = strlen(needle);
    const char *p;
    for (p = headers; *p != '\0'; p++) {
        size_t i = 0;
        while (i < n && p[i] != '\0' &&
               (p[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* Answers one complete request (NUL-terminated, headers included).
 * Returns 1 to keep the connection, 0 to close it. */
static int answer(image_server *s, int fd, char *request)
{
    char method[16], path[256], version[16];
    enum image_kind kind;
    unsigned n;
    int keep_alive;

    if (sscanf(request, "%15s %255s %15s", method, path, version) != 3) {
        send_response(fd, "400 Bad Request", "text/plain", "bad request\n", 12, 0);
        return 0;
    }
    keep_alive = strcmp(version, "HTTP/1.1") == 0 && !headers_contain(request, "connection: close");
    count_hit(s, path);

    if (strcmp(method, "GET") != 0) {
        send_response(fd, "405 Method Not Allowed", "text/plain", "GET only\n", 9, 0);
        return 0;
    }
    if (parse_image_path(path, &kind, &n)) {
        struct body uncached;
        const struct body *b = image_body(s, path, kind, n, &uncached);
        int rc;
        if (b == NULL) {
            send_response(fd, "500 Internal Server Error", "text/plain", "encode failed\n", 14, 0);
            return 0;
        }
        rc = send_response(fd, "200 OK", b->type, b->data, b->size, keep_alive);
        if (b == &uncached)
            free(uncached.data);
        return rc == 0 && keep_alive;
    }
    return send_response(fd, "404 Not Found", "text/plain", "not found\n", 10, keep_alive) == 0 &&
           keep_alive;
}

/* Reads what the client sent and answers every complete request in it.
 * Returns 0 when the connection should be closed. */
static int serve_client(image_server *s, struct client *c)
{
    ssize_t got = recv(c->fd, c->buf + c->used, sizeof c->buf - 1 - c->used, 0);
    if (got <= 0)
        return got < 0 && errno == EINTR;
    c->used += (size_t)got;
    c->buf[c->used] = '\0';

    for (;;) {
        char *end = strstr(c->buf, "\r\n\r\n");
        size_t len;
        if (end == NULL)
            return c->used < sizeof c->buf - 1; /* a request too large: close */
        *end = '\0';
        if (!answer(s, c->fd, c->buf))
            return 0;
        len = (size_t)(end + 4 - c->buf);
        memmove(c->buf, c->buf + len, c->used - len + 1);
        c->used -= len;
    }
}

/* -------------------------------------------------------------- thread */

static void *server_main(void *arg)
{
    image_server *s = arg;
    struct pollfd fds[2 + MAX_CLIENTS];
    int slot_of[2 + MAX_CLIENTS];
    int i;

    for (;;) {
        nfds_t nfds = 0;
        fds[nfds].fd = s->wake_pipe[0];
        fds[nfds].events = POLLIN;
        slot_of[nfds++] = -1;
        fds[nfds].fd = s->listen_fd;
        fds[nfds].events = POLLIN;
        slot_of[nfds++] = -1;
        for (i = 0; i < MAX_CLIENTS; i++) {
            if (s->clients[i].fd >= 0) {
                fds[nfds].fd = s->clients[i].fd;
                fds[nfds].events = POLLIN;
                slot_of[nfds++] = i;
            }
        }
        if (poll(fds, nfds, -1) < 0) {
            if (errno == EINTR)
                continue;
            perror("image_server: poll");
            return NULL;
        }
        if (fds[0].revents != 0)
            return NULL; /* image_server_stop */
        if (fds[1].revents & POLLIN) {
            int fd = accept(s->listen_fd, NULL, NULL);
            if (fd >= 0) {
                for (i = 0; i < MAX_CLIENTS && s->clients[i].fd >= 0; i++)
                    ;
                if (i == MAX_CLIENTS) {
                    close(fd);
                } else {
                    /* A response's head and body are separate sends: without
                     * TCP_NODELAY, Nagle holds the body on a reused connection
                     * until the client's delayed ACK of the head, 40 ms later. */
                    int no_delay = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay);
                    s->clients[i].fd = fd;
                    s->clients[i].used = 0;
                }
            }
        }
        for (i = 2; i < (int)nfds; i++) {
            struct client *c = &s->clients[slot_of[i]];
            if (fds[i].revents == 0)
                continue;
            if (!serve_client(s, c)) {
                close(c->fd);
                c->fd = -1;
            }
        }
    }
}

image_server *image_server_start(void)
{
    struct sockaddr_in addr;
    socklen_t addr_len = sizeof addr;
    image_server *s = calloc(1, sizeof *s);
    int i;

    if (s == NULL)
        return NULL;
    for (i = 0; i < MAX_CLIENTS; i++)
        s->clients[i].fd = -1;
    s->wake_pipe[0] = s->wake_pipe[1] = -1;
    pthread_mutex_init(&s->lock, NULL);

    s->jpeg = tjInitCompress();
    s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (s->jpeg == NULL || s->listen_fd < 0 || pipe(s->wake_pipe) != 0) {
        perror("image_server: setup");
        goto fail;
    }
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0; /* ephemeral */
    if (bind(s->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(s->listen_fd, 64) != 0 ||
        getsockname(s->listen_fd, (struct sockaddr *)&addr, &addr_len) != 0) {
        perror("image_server: listen");
        goto fail;
    }
    s->port = ntohs(addr.sin_port);
    if (pthread_create(&s->thread, NULL, server_main, s) != 0) {
        fprintf(stderr, "image_server: pthread_create failed\n");
        goto fail;
    }
    return s;

fail:
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    if (s->wake_pipe[0] >= 0) {
        close(s->wake_pipe[0]);
        close(s->wake_pipe[1]);
    }
    if (s->jpeg != NULL)
        tjDestroy(s->jpeg);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
}

void image_server_stop(image_server *s)
{
    size_t b;
    int i;
    if (s == NULL)
        return;
    while (write(s->wake_pipe[1], "x", 1) < 0 && errno == EINTR)
        ;
    pthread_join(s->thread, NULL);
    for (i = 0; i < MAX_CLIENTS; i++) {
        if (s->clients[i].fd >= 0)
            close(s->clients[i].fd);
    }
    close(s->listen_fd);
    close(s->wake_pipe[0]);
    close(s->wake_pipe[1]);
    tjDestroy(s->jpeg);
    for (b = 0; b < s->body_count; b++)
        free(s->bodies[b].data);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

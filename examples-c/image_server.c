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
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <turbojpeg.h>

#define MAX_CLIENTS 64
#define MAX_PATHS 512
#define REQUEST_MAX 4096
#define IMAGE_WIDTH 320
#define IMAGE_HEIGHT 240

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

/* ------------------------------------------------------------- answers */

/* A JPEG for image number n: a diagonal gradient over a colour picked by n.
 * Returns a tjAlloc'd buffer (free with tjFree) or NULL. */
static unsigned char *make_jpeg(image_server *s, unsigned n, unsigned long *size)
{
    unsigned char *rgb = malloc((size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 3);
    unsigned char *jpeg = NULL;
    unsigned r = (n * 97u + 40u) % 256u, g = (n * 57u + 90u) % 256u, b = (n * 31u + 160u) % 256u;
    int x, y;
    if (rgb == NULL)
        return NULL;
    for (y = 0; y < IMAGE_HEIGHT; y++) {
        for (x = 0; x < IMAGE_WIDTH; x++) {
            unsigned char *p = rgb + ((size_t)y * IMAGE_WIDTH + (size_t)x) * 3;
            unsigned shade = (unsigned)(x + y) * 128u / (IMAGE_WIDTH + IMAGE_HEIGHT);
            p[0] = (unsigned char)((r + shade) % 256u);
            p[1] = (unsigned char)((g + shade) % 256u);
            p[2] = (unsigned char)((b + shade) % 256u);
        }
    }
    *size = 0;
    if (tjCompress2(s->jpeg, rgb, IMAGE_WIDTH, 0, IMAGE_HEIGHT, TJPF_RGB, &jpeg, size,
                    TJSAMP_420, 85, 0) != 0) {
        fprintf(stderr, "image_server: tjCompress2: %s\n", tjGetErrorStr2(s->jpeg));
        tjFree(jpeg);
        jpeg = NULL;
    }
    free(rgb);
    return jpeg;
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

/* "/img/N.jpg" -> 1 with *n = N; anything else -> 0. */
static int image_number(const char *path, unsigned *n)
{
    const char *p = path + 5;
    unsigned value = 0;
    if (strncmp(path, "/img/", 5) != 0 || *p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9' && value < 100000u; p++)
        value = value * 10u + (unsigned)(*p - '0');
    *n = value;
    return strcmp(p, ".jpg") == 0;
}

/* Answers one complete request (NUL-terminated, headers included).
 * Returns 1 to keep the connection, 0 to close it. */
static int answer(image_server *s, int fd, char *request)
{
    char method[16], path[256], version[16];
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
    if (image_number(path, &n)) {
        unsigned long size = 0;
        unsigned char *jpeg = make_jpeg(s, n, &size);
        int rc;
        if (jpeg == NULL) {
            send_response(fd, "500 Internal Server Error", "text/plain", "encode failed\n", 14, 0);
            return 0;
        }
        rc = send_response(fd, "200 OK", "image/jpeg", jpeg, (size_t)size, keep_alive);
        tjFree(jpeg);
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
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/*
 * feed_server.c: the demos' loopback feed server, on libmicrohttpd: a thread
 * per connection, so a handler may sleep to add latency without holding up the
 * others. See feed_server.h for what it serves.
 */
#define _POSIX_C_SOURCE 200809L

#include "feed_server.h"
#include "blurhash_encode.h"

#include "animation_encoder.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <spng.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <turbojpeg.h>

#define MAX_PHOTOS 24
#define GEN_WIDTH 640 /* generated pictures, full size */
#define GEN_HEIGHT 400
#define SCALES 3
static const unsigned scales[SCALES] = {1, 2, 4}; /* full, half, quarter size */
#define ANIM_WIDTH 240 /* animated items: a ball crossing a sky */
#define ANIM_HEIGHT 150
#define ANIM_FRAMES 24
#define ANIM_FRAME_MS 80
#define ANIM_RADIUS 18

/* One path the server has seen: its hits, and its body once made (images only). */
struct route {
    char *path;
    unsigned hits;
    unsigned char *body;
    size_t size;
    const char *type;
};

/* A request in the log: its route (an index: the table grows) and how it ended. */
struct logged_request {
    size_t route;
    double at_ms;
    enum feed_outcome outcome;
    const struct MHD_Connection *connection; /* an identity only; NULL once closed */
    double closed_at_ms;
};

struct photo {
    char *file;
    unsigned width, height;
    char blurhash[BLURHASH_MAX]; /* "" until made, at start */
};

struct feed_server {
    struct MHD_Daemon *daemon;
    unsigned latency_ms, page_size, pages;
    char base[64];       /* http://127.0.0.1:PORT */
    char first_page[96];
    struct photo photos[MAX_PHOTOS];
    unsigned photo_count;
    pthread_mutex_t lock; /* guards routes, every route's fields and the log */
    struct route *routes;
    size_t route_count, route_capacity;
    struct logged_request *log;
    size_t log_count, log_capacity;
};

/* The route of `path`, made on first sight, its hit counted. Lock held. */
static struct route *route_hit(struct feed_server *s, const char *path)
{
    for (size_t i = 0; i < s->route_count; i++)
        if (strcmp(s->routes[i].path, path) == 0) {
            s->routes[i].hits++;
            return &s->routes[i];
        }
    if (s->route_count == s->route_capacity) {
        size_t capacity = s->route_capacity ? 2 * s->route_capacity : 64;
        struct route *grown = realloc(s->routes, capacity * sizeof *grown);
        if (grown == NULL)
            return NULL;
        s->routes = grown;
        s->route_capacity = capacity;
    }
    struct route *r = &s->routes[s->route_count];
    memset(r, 0, sizeof *r);
    if ((r->path = strdup(path)) == NULL)
        return NULL;
    r->hits = 1;
    s->route_count++;
    return r;
}

static double monotonic_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

/* Counts a request for `path`, whose headers came in at `at_ms`, and logs it. Its
 * log index + 1, or 0 when out of memory. Lock held. */
static size_t log_request(struct feed_server *s, const struct MHD_Connection *c, const char *path, double at_ms)
{
    struct route *r = route_hit(s, path);
    if (r == NULL)
        return 0;
    if (s->log_count == s->log_capacity) {
        size_t capacity = s->log_capacity ? 2 * s->log_capacity : 256;
        struct logged_request *grown = realloc(s->log, capacity * sizeof *grown);
        if (grown == NULL)
            return 0;
        s->log = grown;
        s->log_capacity = capacity;
    }
    s->log[s->log_count].route = (size_t)(r - s->routes);
    s->log[s->log_count].at_ms = at_ms;
    s->log[s->log_count].outcome = FEED_RUNNING;
    s->log[s->log_count].connection = c;
    s->log[s->log_count].closed_at_ms = 0;
    return ++s->log_count;
}

static unsigned char *read_file(const char *name, size_t *size)
{
    FILE *f = fopen(name, "rb");
    unsigned char *data = NULL;
    long length;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (length = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)length)) != NULL && fread(data, 1, (size_t)length, f) != (size_t)length) {
        free(data);
        data = NULL;
    }
    if (data != NULL)
        *size = (size_t)length;
    fclose(f);
    return data;
}

/* Finds kodim01.png .. kodim24.png in `dir`, with their sizes from the PNG header. */
static void find_photos(struct feed_server *s, const char *dir)
{
    for (unsigned n = 1; dir != NULL && n <= MAX_PHOTOS; n++) {
        char name[4096];
        unsigned char head[24];
        snprintf(name, sizeof name, "%s/kodim%02u.png", dir, n);
        FILE *f = fopen(name, "rb");
        if (f == NULL)
            continue;
        size_t got = fread(head, 1, sizeof head, f);
        fclose(f);
        if (got != sizeof head || memcmp(head + 12, "IHDR", 4) != 0)
            continue;
        struct photo *p = &s->photos[s->photo_count];
        p->width = (unsigned)head[16] << 24 | (unsigned)head[17] << 16 | (unsigned)head[18] << 8 | head[19];
        p->height = (unsigned)head[20] << 24 | (unsigned)head[21] << 16 | (unsigned)head[22] << 8 | head[23];
        if (p->width == 0 || p->height == 0 || p->width > 4096 || p->height > 4096 || (p->file = strdup(name)) == NULL)
            continue;
        s->photo_count++;
    }
}

/* Halves, quarters...: the average of each scale x scale block. */
static unsigned char *shrink_rgb(const unsigned char *rgb, unsigned width, unsigned height, unsigned scale)
{
    unsigned w = width / scale, h = height / scale;
    unsigned char *out = malloc((size_t)w * h * 3);
    if (out == NULL)
        return NULL;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            for (unsigned c = 0; c < 3; c++) {
                unsigned sum = 0;
                for (unsigned dy = 0; dy < scale; dy++)
                    for (unsigned dx = 0; dx < scale; dx++)
                        sum += rgb[((size_t)(y * scale + dy) * width + x * scale + dx) * 3 + c];
                out[((size_t)y * w + x) * 3 + c] = (unsigned char)(sum / (scale * scale));
            }
    return out;
}

static unsigned char *encode_jpeg(const unsigned char *rgb, unsigned width, unsigned height, size_t *size)
{
    tjhandle tj = tjInitCompress();
    unsigned char *jpeg = NULL, *body = NULL;
    unsigned long jpeg_size = 0;
    if (tj != NULL && tjCompress2(tj, rgb, (int)width, 0, (int)height, TJPF_RGB, &jpeg, &jpeg_size, TJSAMP_420, 85, 0) == 0 &&
        (body = malloc(jpeg_size)) != NULL) {
        memcpy(body, jpeg, jpeg_size);
        *size = jpeg_size;
    }
    tjFree(jpeg);
    if (tj != NULL)
        tjDestroy(tj);
    return body;
}

static unsigned char *encode_png(const unsigned char *rgb, unsigned width, unsigned height, size_t *size)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ihdr;
    unsigned char *png = NULL;
    int rc;
    if (ctx == NULL)
        return NULL;
    memset(&ihdr, 0, sizeof ihdr);
    ihdr.width = width;
    ihdr.height = height;
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
    if (spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1) == 0 && spng_set_ihdr(ctx, &ihdr) == 0 &&
        spng_encode_image(ctx, rgb, (size_t)width * height * 3, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE) == 0)
        png = spng_get_png_buffer(ctx, size, &rc); /* ours now; malloc'd */
    spng_ctx_free(ctx);
    return png;
}

/* The photo's PNG file decoded to RGB at full size; NULL on failure. */
static unsigned char *decode_photo(const struct photo *p, const unsigned char *file, size_t file_size)
{
    size_t rgb_size = 0;
    unsigned char *rgb = NULL;
    spng_ctx *ctx = spng_ctx_new(0);
    if (ctx != NULL && spng_set_png_buffer(ctx, file, file_size) == 0 &&
        spng_decoded_image_size(ctx, SPNG_FMT_RGB8, &rgb_size) == 0 &&
        rgb_size == (size_t)p->width * p->height * 3 && (rgb = malloc(rgb_size)) != NULL &&
        spng_decode_image(ctx, rgb, rgb_size, SPNG_FMT_RGB8, 0) != 0) {
        free(rgb);
        rgb = NULL;
    }
    spng_ctx_free(ctx);
    return rgb;
}

/* The photo at 1/scale: the file itself at full size, else decoded, shrunk, JPEG. */
static unsigned char *make_photo(const struct photo *p, unsigned scale, size_t *size)
{
    size_t file_size = 0;
    unsigned char *file = read_file(p->file, &file_size), *rgb, *small, *jpeg = NULL;
    if (file == NULL || scale == 1)
        return *size = file_size, file;
    if ((rgb = decode_photo(p, file, file_size)) != NULL && (small = shrink_rgb(rgb, p->width, p->height, scale)) != NULL) {
        jpeg = encode_jpeg(small, p->width / scale, p->height / scale, size);
        free(small);
    }
    free(rgb);
    free(file);
    return jpeg;
}

/* The feed's "blurhash" of a picture: 4x3 components, as in BlurHash's own README,
 * from a thumbnail about 32 pixels wide (the components are all it keeps). */
static void hash_picture(const unsigned char *rgb, unsigned width, unsigned height, char out[BLURHASH_MAX])
{
    unsigned scale = width > 32 ? width / 32 : 1;
    unsigned char *small = shrink_rgb(rgb, width, height, scale);
    out[0] = '\0';
    if (small != NULL)
        blurhash_encode(small, width / scale, height / scale, 4, 3, out);
    free(small);
}

/* Each photo's "blurhash", made once at start: a decode each. */
static void hash_photos(struct feed_server *s)
{
    for (unsigned n = 0; n < s->photo_count; n++) {
        struct photo *p = &s->photos[n];
        size_t file_size = 0;
        unsigned char *file = read_file(p->file, &file_size), *rgb = file ? decode_photo(p, file, file_size) : NULL;
        if (rgb != NULL)
            hash_picture(rgb, p->width, p->height, p->blurhash);
        free(rgb);
        free(file);
    }
}

/* Generated picture n at w x h, RGB: a sky, a sun and two hills, coloured by n. */
static unsigned char *draw_generated(unsigned n, unsigned w, unsigned h)
{
    unsigned char *rgb = malloc((size_t)w * h * 3);
    if (rgb == NULL)
        return NULL;
    unsigned hue = (n * 47) % 360;
    double sun_x = 0.2 + 0.6 * ((n * 37) % 100) / 100.0, sun_y = 0.25, sun_r = 0.12;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            double fx = (double)x / w, fy = (double)y / h;
            double hill1 = 0.65 + 0.1 * (fx - 0.3) * (fx - 0.3) * 4, hill2 = 0.8 - 0.15 * fx;
            unsigned char *px = rgb + ((size_t)y * w + x) * 3;
            double dx = (fx - sun_x) * w / h, dy = fy - sun_y;
            if (fy > hill2) {
                px[0] = 30, px[1] = (unsigned char)(90 + 60 * fy), px[2] = 40;
            } else if (fy > hill1) {
                px[0] = (unsigned char)(60 + hue / 4), px[1] = 120, px[2] = 70;
            } else if (dx * dx + dy * dy < sun_r * sun_r) {
                px[0] = 255, px[1] = 220, px[2] = 90;
            } else {
                px[0] = (unsigned char)(hue < 120 ? 200 - hue : 80);
                px[1] = (unsigned char)(120 + 100 * fy);
                px[2] = (unsigned char)(255 - 60 * fy - (hue > 240 ? 60 : 0));
            }
        }
    return rgb;
}

/* Generated picture n at 1/scale: PNG at full size, else JPEG. */
static unsigned char *make_generated(unsigned n, unsigned scale, size_t *size)
{
    unsigned w = GEN_WIDTH / scale, h = GEN_HEIGHT / scale;
    unsigned char *rgb = draw_generated(n, w, h), *body;
    if (rgb == NULL)
        return NULL;
    body = scale == 1 ? encode_png(rgb, w, h, size) : encode_jpeg(rgb, w, h, size);
    free(rgb);
    return body;
}

/* Frame `frame` of animated item n into canvas (RGBA): a sky shaded by n and a
 * ball crossing it; returns the rectangle that changed since the frame before. */
static struct animation_rect draw_animated(unsigned n, unsigned frame, unsigned char *canvas)
{
    unsigned span = ANIM_WIDTH - 2 * ANIM_RADIUS, hue = (n * 53) % 200;
    int x = (int)(ANIM_RADIUS + span * frame / ANIM_FRAMES), before = (int)(ANIM_RADIUS + span * (frame ? frame - 1 : 0) / ANIM_FRAMES);
    int y = ANIM_HEIGHT / 2 + (int)((frame % 6) * 4) - 10;
    for (int py = 0; py < ANIM_HEIGHT; py++)
        for (int px = 0; px < ANIM_WIDTH; px++) {
            unsigned char *p = canvas + ((size_t)py * ANIM_WIDTH + px) * 4;
            int dx = px - x, dy = py - y;
            if (dx * dx + dy * dy < ANIM_RADIUS * ANIM_RADIUS)
                p[0] = 250, p[1] = (unsigned char)(200 - hue / 2), p[2] = 60;
            else /* a sky of many colours: a photo-like thumbnail even in a GIF's palette */
                p[0] = (unsigned char)((px + hue) % 256), p[1] = (unsigned char)(60 + py), p[2] = (unsigned char)(255 - (px * py / 90) % 200);
            p[3] = 255;
        }
    if (frame == 0)
        return (struct animation_rect){0, 0, ANIM_WIDTH, ANIM_HEIGHT};
    /* The ball's old and new places, from the top and bottom it reaches. */
    unsigned left = (unsigned)(before - ANIM_RADIUS), right = (unsigned)(x + ANIM_RADIUS);
    return (struct animation_rect){left, 0, (right < ANIM_WIDTH ? right : ANIM_WIDTH) - left, ANIM_HEIGHT};
}

/* Animated item n as a GIF or a WebP, looping forever. */
static unsigned char *make_animated(unsigned n, enum animation_format format, size_t *size)
{
    unsigned char *canvas = malloc((size_t)ANIM_WIDTH * ANIM_HEIGHT * 4), *body = NULL;
    struct animation_encoder *e = canvas ? animation_encoder_new(format, ANIM_WIDTH, ANIM_HEIGHT, 0) : NULL;
    int ok = e != NULL;
    for (unsigned i = 0; ok && i < ANIM_FRAMES; i++)
        ok = animation_encoder_add(e, canvas, draw_animated(n, i, canvas), ANIM_FRAME_MS);
    if (e != NULL)
        body = animation_encoder_finish(e, size);
    if (!ok) {
        free(body);
        body = NULL;
    }
    free(canvas);
    return body;
}

/* Items 1 and 2 of every ten are animated, a GIF and a WebP. */
static int is_animated_item(unsigned i) { return i % 10 == 1 || i % 10 == 2; }

/* Item i of the feed: its image's path, title, size and "blurhash" (a generated
 * picture's drawn small now: a few microseconds). */
static void describe_item(const struct feed_server *s, unsigned i, char *path, size_t path_size, char *title,
                          size_t title_size, unsigned *width, unsigned *height, char blurhash[BLURHASH_MAX])
{
    unsigned sources = s->photo_count ? s->photo_count : 1000000;
    unsigned source = i % sources, scale = scales[(i / sources + i) % SCALES];
    const char *ext = scale == 1 ? "png" : "jpg";
    if (is_animated_item(i)) {
        const char *format = i % 10 == 1 ? "gif" : "webp";
        snprintf(path, path_size, "/anim/%u.%s", i, format);
        snprintf(title, title_size, "animated %s #%u", i % 10 == 1 ? "GIF" : "WebP", i);
        *width = ANIM_WIDTH;
        *height = ANIM_HEIGHT;
        blurhash[0] = '\0';
    } else if (s->photo_count) {
        const char *base = strrchr(s->photos[source].file, '/');
        snprintf(path, path_size, "/photo/%u/%u.%s", source, scale, ext);
        snprintf(title, title_size, "%.*s", 7, base ? base + 1 : s->photos[source].file);
        *width = s->photos[source].width / scale;
        *height = s->photos[source].height / scale;
        memcpy(blurhash, s->photos[source].blurhash, BLURHASH_MAX);
    } else {
        snprintf(path, path_size, "/gen/%u/%u.%s", source, scale, ext);
        snprintf(title, title_size, "generated #%u", source);
        *width = GEN_WIDTH / scale;
        *height = GEN_HEIGHT / scale;
        unsigned char *small = draw_generated(source, GEN_WIDTH / 20, GEN_HEIGHT / 20);
        blurhash[0] = '\0';
        if (small != NULL)
            blurhash_encode(small, GEN_WIDTH / 20, GEN_HEIGHT / 20, 4, 3, blurhash);
        free(small);
    }
}

static char *make_page(const struct feed_server *s, unsigned page)
{
    cJSON *root = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(root, "items");
    char *text = NULL;
    for (unsigned k = 0; items != NULL && k < s->page_size; k++) {
        char path[64], title[64], url[160], blurhash[BLURHASH_MAX];
        unsigned width, height;
        describe_item(s, page * s->page_size + k, path, sizeof path, title, sizeof title, &width, &height, blurhash);
        snprintf(url, sizeof url, "%s%s", s->base, path);
        cJSON *item = cJSON_CreateObject();
        cJSON_AddItemToArray(items, item);
        cJSON_AddStringToObject(item, "title", title);
        cJSON_AddStringToObject(item, "image", url);
        cJSON_AddNumberToObject(item, "width", width);
        cJSON_AddNumberToObject(item, "height", height);
        if (blurhash[0] != '\0')
            cJSON_AddStringToObject(item, "blurhash", blurhash);
    }
    if (s->pages == 0 || page + 1 < s->pages) {
        char next[128];
        snprintf(next, sizeof next, "%s/feed?page=%u", s->base, page + 1);
        cJSON_AddStringToObject(root, "next", next);
    } else {
        cJSON_AddNullToObject(root, "next");
    }
    if (items != NULL)
        text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

/* The body of an image path, made once and kept. Lock held: requests for images
 * not made yet wait for each other, which is fine for a demo. */
static int image_body(struct feed_server *s, struct route *r)
{
    unsigned source, scale;
    char ext[5];
    if (r->body != NULL)
        return 1;
    if (sscanf(r->path, "/anim/%u.%4s", &source, ext) == 2 && is_animated_item(source) &&
        (strcmp(ext, "gif") == 0 || strcmp(ext, "webp") == 0)) {
        int gif = strcmp(ext, "gif") == 0;
        r->body = make_animated(source, gif ? ANIMATION_GIF : ANIMATION_WEBP, &r->size);
        r->type = gif ? "image/gif" : "image/webp";
        return r->body != NULL;
    }
    int photo = sscanf(r->path, "/photo/%u/%u.%3s", &source, &scale, ext) == 3 && source < s->photo_count;
    int generated = !photo && sscanf(r->path, "/gen/%u/%u.%3s", &source, &scale, ext) == 3 && s->photo_count == 0;
    if (!(photo || generated) || (scale != 1 && scale != 2 && scale != 4))
        return 0;
    r->body = photo ? make_photo(&s->photos[source], scale, &r->size) : make_generated(source, scale, &r->size);
    r->type = strcmp(ext, "png") == 0 ? "image/png" : "image/jpeg";
    return r->body != NULL;
}

/* Whether the client closed the connection while its answer was being made (curl
 * closes the connection of a transfer it cancels). Checked before answering: a
 * small answer written to a socket the peer closed still counts as sent. */
static int client_hung_up(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    char byte;
    if (info == NULL)
        return 0;
    struct pollfd p = {info->connect_fd, POLLIN, 0};
    return poll(&p, 1, 0) == 1 &&
           ((p.revents & (POLLHUP | POLLERR)) != 0 || recv(info->connect_fd, &byte, 1, MSG_PEEK) <= 0);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, void *body, size_t size,
                              enum MHD_ResponseMemoryMode mode, const char *type)
{
    struct MHD_Response *response = MHD_create_response_from_buffer(size, body, mode);
    if (response == NULL)
        return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result ok = MHD_queue_response(c, status, response);
    MHD_destroy_response(response);
    return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **state)
{
    struct feed_server *s = cls;
    (void)version, (void)upload_data, (void)upload_size;
    if (*state == NULL) { /* the headers are in: log it; answer on the next call */
        double at_ms = monotonic_ms(); /* before the lock, which image making holds for long */
        pthread_mutex_lock(&s->lock);
        size_t logged = log_request(s, c, url, at_ms);
        pthread_mutex_unlock(&s->lock);
        *state = (void *)(uintptr_t)logged; /* read back by request_ended */
        return logged != 0 ? MHD_YES : MHD_NO;
    }
    if (strcmp(method, "GET") != 0)
        return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, 0, MHD_RESPMEM_PERSISTENT, "text/plain");
    if (s->latency_ms > 0) {
        struct timespec delay = {s->latency_ms / 1000, (long)(s->latency_ms % 1000) * 1000000L};
        nanosleep(&delay, NULL);
    }
    pthread_mutex_lock(&s->lock);
    struct route *r = &s->routes[s->log[(uintptr_t)*state - 1].route];
    int is_feed = strcmp(url, "/feed") == 0;
    int found = !is_feed && image_body(s, r);
    if (client_hung_up(c)) { /* request_ended logs it */
        pthread_mutex_unlock(&s->lock);
        return MHD_NO;
    }
    /* The body is copied while the lock keeps the route table still. */
    enum MHD_Result ok = found ? answer(c, MHD_HTTP_OK, r->body, r->size, MHD_RESPMEM_MUST_COPY, r->type) : MHD_YES;
    pthread_mutex_unlock(&s->lock);
    if (found)
        return ok;
    if (!is_feed)
        return answer(c, MHD_HTTP_NOT_FOUND, NULL, 0, MHD_RESPMEM_PERSISTENT, "text/plain");
    const char *page = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "page");
    char *end = NULL;
    unsigned long n = page ? strtoul(page, &end, 10) : 0;
    if (page != NULL && (*end != '\0' || n >= 1000000 || (s->pages && n >= s->pages)))
        return answer(c, MHD_HTTP_NOT_FOUND, NULL, 0, MHD_RESPMEM_PERSISTENT, "text/plain");
    char *json = make_page(s, (unsigned)n);
    if (json == NULL)
        return MHD_NO;
    return answer(c, MHD_HTTP_OK, json, strlen(json), MHD_RESPMEM_MUST_FREE, "application/json");
}

/* MHD's end of a request: sent whole, or anything else (the client hung up, or the
 * server closed first: then it was not sent either). */
static void request_ended(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode code)
{
    struct feed_server *s = cls;
    (void)c;
    if (*state == NULL)
        return;
    pthread_mutex_lock(&s->lock);
    s->log[(uintptr_t)*state - 1].outcome = code == MHD_REQUEST_TERMINATED_COMPLETED_OK ? FEED_SENT : FEED_HUNG_UP;
    pthread_mutex_unlock(&s->lock);
}

/* A connection closed: stamp the last request that came on it. The address of a
 * closed connection may come back for a new one, hence the latest first and
 * forgetting the identity. */
static void connection_changed(void *cls, struct MHD_Connection *c, void **socket_context,
                               enum MHD_ConnectionNotificationCode code)
{
    struct feed_server *s = cls;
    (void)socket_context;
    if (code != MHD_CONNECTION_NOTIFY_CLOSED)
        return;
    pthread_mutex_lock(&s->lock);
    for (size_t i = s->log_count; i-- > 0;)
        if (s->log[i].connection == c) {
            s->log[i].closed_at_ms = monotonic_ms();
            break;
        }
    for (size_t i = 0; i < s->log_count; i++)
        if (s->log[i].connection == c)
            s->log[i].connection = NULL;
    pthread_mutex_unlock(&s->lock);
}

struct feed_server *feed_server_start(const struct feed_server_options *options)
{
    struct feed_server *s = calloc(1, sizeof *s);
    struct sockaddr_in address;
    if (s == NULL)
        return NULL;
    s->latency_ms = options->latency_ms;
    s->page_size = options->page_size ? options->page_size : 20;
    s->pages = options->pages;
    pthread_mutex_init(&s->lock, NULL);
    find_photos(s, options->photos_dir);
    hash_photos(s);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
                                 handle, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
                                 MHD_OPTION_NOTIFY_COMPLETED, request_ended, s,
                                 MHD_OPTION_NOTIFY_CONNECTION, connection_changed, s, MHD_OPTION_END);
    const union MHD_DaemonInfo *info = s->daemon ? MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    if (info == NULL) {
        fprintf(stderr, "feed_server: could not start libmicrohttpd on 127.0.0.1\n");
        feed_server_stop(s);
        return NULL;
    }
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%u", (unsigned)info->port);
    snprintf(s->first_page, sizeof s->first_page, "%s/feed?page=0", s->base);
    return s;
}

const char *feed_server_first_page(const struct feed_server *s) { return s->first_page; }

int feed_server_has_photos(const struct feed_server *s) { return s->photo_count > 0; }

unsigned feed_server_hits(struct feed_server *s, const char *path)
{
    unsigned hits = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->route_count; i++)
        if (strcmp(s->routes[i].path, path) == 0)
            hits = s->routes[i].hits;
    pthread_mutex_unlock(&s->lock);
    return hits;
}

static int earlier_first(const void *x, const void *y)
{
    double a = ((const struct feed_request *)x)->at_ms, b = ((const struct feed_request *)y)->at_ms;
    return (a > b) - (a < b);
}

struct feed_request *feed_server_requests(struct feed_server *s, size_t *count)
{
    struct feed_request *copy = NULL;
    *count = 0;
    pthread_mutex_lock(&s->lock);
    if (s->log_count > 0 && (copy = malloc(s->log_count * sizeof *copy)) != NULL) {
        for (size_t i = 0; i < s->log_count; i++) {
            copy[i].path = s->routes[s->log[i].route].path;
            copy[i].at_ms = s->log[i].at_ms;
            copy[i].outcome = s->log[i].outcome;
            copy[i].closed_at_ms = s->log[i].closed_at_ms;
        }
        *count = s->log_count;
    }
    pthread_mutex_unlock(&s->lock);
    /* Logged as each took the lock, which a request may wait for behind image making. */
    if (copy != NULL)
        qsort(copy, *count, sizeof *copy, earlier_first);
    return copy;
}

void feed_server_close(struct feed_server *s)
{
    if (s != NULL && s->daemon != NULL) {
        MHD_stop_daemon(s->daemon);
        s->daemon = NULL;
    }
}

void feed_server_stop(struct feed_server *s)
{
    if (s == NULL)
        return;
    feed_server_close(s);
    for (size_t i = 0; i < s->route_count; i++) {
        free(s->routes[i].path);
        free(s->routes[i].body);
    }
    for (unsigned i = 0; i < s->photo_count; i++)
        free(s->photos[i].file);
    free(s->routes);
    free(s->log);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

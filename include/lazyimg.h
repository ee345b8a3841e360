/*
 * lazyimg.h: a lazy image loader for long scrolling lists.
 *
 * The host tells the loader three things: the list (one image URL per row,
 * appended page by page), which rows are visible, and the scroll state. Per
 * row it asks "image for row i?" (lazyimg_request) and gets the image at once
 * from memory, or a ticket whose result arrives later as exactly one event.
 *
 * Behind that: one download per URL however many rows want it, no new
 * downloads while the list flies past (but the rows where a fling will rest
 * start before it rests), visible rows first and then a prefetch window in the
 * direction of travel, cancellation of work for rows that left, and decoding
 * plus downsampling to the cell's box off the host's thread.
 *
 * Threading: every function is safe to call from any thread unless its comment
 * says otherwise. No function blocks on I/O or decoding except lazyimg_wait and
 * lazyimg_loader_destroy. Callbacks are never called with an internal lock
 * held, so a callback may call any function except lazyimg_loader_destroy.
 * The one exception to "any thread": lazyimg_loader_destroy must not overlap
 * any other call on the same loader (see there).
 *
 * Since 0.4.0: what a UI thread may wait on. Each loader decides on a thread of
 * its own (its scheduler): which downloads start, wait or stop, the landing
 * estimate, the prefetch window. lazyimg_set_scroll_state,
 * lazyimg_set_visible_range and lazyimg_set_scroll_target only record what
 * they are told (atomic stores and a lock-free queue) and take no lock at all;
 * at most they wake the scheduler with one eventfd write, coalesced, and only
 * when it sleeps: while the host keeps calling (at least every 50 ms) about a
 * list that has not settled, it looks every 4 ms by itself, so a gesture's
 * calls, its touch, release, target and rest included, pay one write at most
 * (the touch from rest). lazyimg_request, lazyimg_lookup and
 * lazyimg_cancel take one lock that other threads hold only for short,
 * bounded sections (to store a finished image, end a ticket or record a
 * failure), never across I/O or a decode; lazyimg_dispatch takes the event
 * queue's lock, which others hold only to append an event. So events follow
 * the calls that cause them a moment later (a NEED_PAGE event included): a
 * host dispatches them from its loop, as it does every other event.
 *
 * Priorities: the threads that decode and read files run 10 nice steps below
 * the thread that created the loader (at most nice 19), as Android's background
 * threads do, so a UI thread waking for a frame is not kept waiting behind a
 * decode; since 0.4.0 also as SCHED_BATCH, so one the UI thread wakes (a
 * frame to decode) does not take the UI thread's CPU. The network thread, the
 * scheduler thread (since 0.4.0) and the THREAD delivery thread keep the
 * creator's nice value: they run briefly, and the host waits on them. Since
 * 0.4.0 the scheduler thread is also SCHED_BATCH: woken (its naps while the
 * list moves, a completion), it does not preempt a UI thread mid-frame.
 *
 * Ownership words used below:
 *   "+1 reference": the caller owns one reference; release it with
 *                   lazyimg_image_release.
 *   "borrowed":     valid only for the stated time; retain to keep it.
 *   "copied":       the library copies; the caller keeps ownership.
 *
 * Status: functions return lazyimg_status. Test `status < 0` for errors;
 * new codes may be added (only ever appended), so do not treat the list of
 * codes as closed.
 */
#ifndef LAZYIMG_H
#define LAZYIMG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

/* The version this header describes. Compare with lazyimg_version_number()
 * at run time to detect a header/library mismatch. */
#define LAZYIMG_VERSION_MAJOR 0
#define LAZYIMG_VERSION_MINOR 4
#define LAZYIMG_VERSION_PATCH 0
#define LAZYIMG_VERSION_STRING "0.4.0"
/* MAJOR * 1000000 + MINOR * 1000 + PATCH */
#define LAZYIMG_VERSION_NUMBER 4000

/* The library's version as "MAJOR.MINOR.PATCH". Static storage, never NULL. */
const char *lazyimg_version_string(void);
/* The library's version as MAJOR * 1000000 + MINOR * 1000 + PATCH. */
uint32_t lazyimg_version_number(void);

/* ----------------------------------------------------------------- status */

typedef enum lazyimg_status {
    LAZYIMG_OK = 0,
    /* Positive results are not errors. */
    LAZYIMG_PENDING = 1,   /* scheduled or in flight; one event will follow */
    LAZYIMG_DEFERRED = 2,  /* held back by the scroll policy; one event will
                              follow once it runs (or is cancelled) */
    LAZYIMG_MISS = 3,      /* lookup: not in memory; cancel: no such live ticket */
    LAZYIMG_TIMEOUT = 4,   /* lazyimg_wait: nothing arrived in time */
    /* Since 0.4.0: */
    LAZYIMG_PLACEHOLDER = 5, /* lazyimg_request: the row's placeholder, not its
                                image, and a ticket whose one event brings the
                                image (see lazyimg_set_placeholders) */
    LAZYIMG_NOT_YET = 6,     /* lazyimg_frame, lazyimg_frame_at: that frame is
                                not decoded yet; no event follows: ask again */

    /* Errors are negative. Append only; never renumbered. */
    LAZYIMG_E_INVALID_ARGUMENT = -1, /* NULL pointer, bad size or bad value */
    LAZYIMG_E_OUT_OF_RANGE = -2,     /* row at or past lazyimg_item_count() */
    LAZYIMG_E_BAD_URL = -3,          /* not an http:// or https:// URL (file://
                                        only with allow_file_urls) */
    LAZYIMG_E_NETWORK = -4,          /* connect, DNS, reset or timeout (TLS: -15) */
    LAZYIMG_E_HTTP = -5,             /* the server answered with status 400-599 */
    LAZYIMG_E_DECODE = -6,           /* corrupt or truncated image data */
    LAZYIMG_E_UNSUPPORTED = -7,      /* not an image format (or a kind of one,
                                        such as lossless JPEG) this build
                                        decodes; AVIF and HEIF in a build
                                        without libavif or libde265 (make builds
                                        HEIF only where libheif, which the tests
                                        use, is found as well); HEIF
                                        overlays (iovl) and AV1 in a HEIF
                                        brand */
    LAZYIMG_E_TOO_LARGE = -8,        /* over max_response_bytes, max_pixels or
                                        max_decode_bytes (since 0.4.0; an
                                        interlaced PNG over 16 Mpx before), a
                                        JPEG whose scans would cost too much
                                        work, or an AVIF/HEIF grid of over 256
                                        tiles; the event's message says which */
    LAZYIMG_E_IO = -9,               /* a local file or descriptor failed, or a
                                        file:// URL is not a regular file */
    LAZYIMG_E_CANCELLED = -10,       /* cancelled by the host or the scroll policy */
    LAZYIMG_E_NO_MEMORY = -11,       /* an allocation failed */
    LAZYIMG_E_MISUSE = -12,          /* called where the contract forbids it */
    LAZYIMG_E_SHUTDOWN = -13,        /* the loader is being destroyed */
    LAZYIMG_E_NO_IMAGE = -14,        /* the row has no URL (a NULL list entry) */
    /* Since 0.3.0: */
    LAZYIMG_E_TLS = -15,             /* TLS handshake failed: the certificate is not
                                        trusted (see ca_file) or not for this
                                        host, or no common protocol. Never
                                        bypassed: there is no option to skip
                                        verification. */
    /* Since 0.4.0: */
    LAZYIMG_E_PROTOCOL = -16,        /* the server's fault: its reply broke HTTP
                                        or answers no request this library sent.
                                        A header line over 100 KB or all headers
                                        over 256 KiB; no HTTP/1.x status line
                                        (HTTP/0.9, a 1xx with nothing after it);
                                        a status outside 100-599; more than 5
                                        redirects (a loop); a 3xx without a
                                        Location, or 300; 204, 205, 206 (no
                                        Range was sent) or 304 (no validator was
                                        sent). Never retried; the event's message
                                        says which. */
    LAZYIMG_E_BAD_PLACEHOLDER = -17  /* a placeholder hash that does not parse
                                        (lazyimg_set_placeholders says which row
                                        and why) */
} lazyimg_status;

/* A short English description of a status. Static storage, never NULL, also
 * for codes this library version does not know. */
const char *lazyimg_strerror(lazyimg_status status);

/* --------------------------------------------------- the library in a process */

/* libcurl: the first lazyimg_loader_create calls curl_global_init(
 * CURL_GLOBAL_DEFAULT) once for the process; the library never calls
 * curl_global_cleanup. libcurl counts these calls, so a host that uses libcurl
 * itself may call curl_global_init too (before starting threads if its libcurl
 * is older than 7.84, where that call is not thread-safe).
 *
 * Memory (Since 0.4.0): whatever the servers send, a loader holds at most
 * memory_cache_bytes of decoded images, decode_queue_bytes + 1.5 x
 * max_response_bytes of downloaded bytes (see decode_queue_bytes), what its
 * decode threads need for the images being decoded (per format, see the docs'
 * formats page), and about 16 MiB of its own (threads, libcurl, connections).
 * Its network (its own, or its session's: once per session) also keeps the
 * first bytes of downloads that stopped early, for resuming them (see
 * bytes_resumed): at most 8 MiB, the oldest dropped first.
 * With the defaults and a small target box that is about decode_queue_bytes +
 * memory_cache_bytes + 72 MiB (200 MiB) above what the process held before.
 * Bodies of lazyimg_fetch are not counted in decode_queue_bytes (each is
 * within max_response_bytes).
 *
 * Host names (Since 0.4.0): the library looks them up itself with getaddrinfo,
 * on threads of its own, never the network thread, and hands libcurl the
 * addresses; a name that takes long to resolve delays only its own rows, which
 * time out at timeout_ms. At most 8 lookups run at once per loader (or per
 * session); a name that never resolves holds one of them for as long as
 * getaddrinfo takes, and destroy never waits for it. IP addresses and
 * localhost need no lookup. Through a proxy (the proxy field, or libcurl's
 * proxy variables) libcurl looks up the proxy's name itself; a lookup that
 * hangs there is abandoned at timeout_ms as well, but its threads are not
 * bounded.
 *
 * fork: the library installs no fork handlers. In the child of a fork made
 * while a loader exists, call no lazyimg function, on that loader or a new
 * one (its threads do not exist in the child and its locks may be held): exec,
 * or only read the pixels of images retained before the fork. A process that
 * forks before creating its first loader may use lazyimg in the child. The
 * event fd is close-on-exec.
 *
 * URLs: rows whose URLs are the same bytes share one download, one memory
 * cache entry and one failure record (retry_after_ms). URLs are compared byte
 * for byte, with no normalisation of case, percent-encoding or Unicode, and
 * are combined with the loader's own output settings (target box, fit, pixel
 * format); loaders never share. The bytes are kept as given, also where they
 * are not valid UTF-8, and reach libcurl unchanged but for one thing (Since
 * 0.4.0): bytes past ASCII in the query go on the wire as %xx, as libcurl
 * sends those of the path. */

/* ------------------------------------------------------------------ types */

/* A loader: one list, its view state, its caches and its workers. */
typedef struct lazyimg_loader lazyimg_loader;

/* What several loaders share (lazyimg_session_create): see "sessions" below. */
typedef struct lazyimg_session lazyimg_session;

/* A decoded image: opaque, immutable and reference-counted. Its pixels never
 * change and stay valid while the caller holds a reference, whatever the
 * cache or the loader does, even after lazyimg_loader_destroy. */
typedef struct lazyimg_image lazyimg_image;

typedef enum lazyimg_scroll_state {
    LAZYIMG_SCROLL_IDLE = 0,
    LAZYIMG_SCROLL_DRAGGING = 1,
    LAZYIMG_SCROLL_DECELERATING = 2
} lazyimg_scroll_state;

typedef enum lazyimg_delivery {
    /* Events wait in a queue until the host calls lazyimg_dispatch on its own
     * thread; lazyimg_event_fd is readable while any wait. */
    LAZYIMG_DELIVERY_HOST = 0,
    /* Callbacks run on one internal thread, one at a time. */
    LAZYIMG_DELIVERY_THREAD = 1
} lazyimg_delivery;

/* How an image meets the target box. */
typedef enum lazyimg_fit {
    LAZYIMG_FIT_INSIDE = 0, /* the whole image, inside the box, aspect kept */
    LAZYIMG_FIT_FILL = 1    /* covers the box, centre-cropped to exactly the box;
                               a source smaller than the box on a side is not
                               upscaled: the largest centred crop with the
                               box's aspect ratio. With a 0 box side: as INSIDE */
} lazyimg_fit;

/* The layout of each 4-byte pixel. */
typedef enum lazyimg_pixel_format {
    LAZYIMG_PIXEL_RGBA8 = 0,                /* R,G,B,A bytes; straight alpha */
    LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED = 1   /* B,G,R,A bytes; colour multiplied
                                               by alpha (Cairo ARGB32 on little-
                                               endian, Skia N32, most compositors) */
} lazyimg_pixel_format;

/* What the loader hands out. */
typedef enum lazyimg_output {
    LAZYIMG_OUTPUT_PIXELS = 0,  /* decoded, downsampled pixels */
    LAZYIMG_OUTPUT_ENCODED = 1  /* the file's bytes as downloaded, once they are
                                   recognised as an image (for a host's own
                                   decoder, or a terminal protocol taking PNG);
                                   cached and coalesced like pixels */
} lazyimg_output;

/* An encoded image's format, sniffed from its bytes. */
typedef enum lazyimg_codec {
    LAZYIMG_CODEC_UNKNOWN = 0,
    LAZYIMG_CODEC_JPEG = 1,
    LAZYIMG_CODEC_PNG = 2,
    LAZYIMG_CODEC_GIF = 3,
    LAZYIMG_CODEC_WEBP = 4,
    /* Since 0.4.0: */
    LAZYIMG_CODEC_AVIF = 5,
    LAZYIMG_CODEC_HEIF = 6      /* HEIC and the rest of the HEIF family */
} lazyimg_codec;

typedef enum lazyimg_event_type {
    LAZYIMG_EVENT_IMAGE = 1,    /* ev->image holds the decoded image */
    LAZYIMG_EVENT_FAILED = 2,   /* ev->status says why (LAZYIMG_E_CANCELLED too) */
    LAZYIMG_EVENT_NEED_PAGE = 3, /* a paged list nears its end (lazyimg_set_paging):
                                    ticket 0, row = the row count then */
    /* Since 0.3.0: */
    LAZYIMG_EVENT_DATA = 4,      /* a lazyimg_fetch body in ev->data, ev->data_size */
    /* Since 0.4.0: */
    LAZYIMG_EVENT_PREVIEW = 5    /* with preview_interval_ms set: ev->image holds
                                    the scans of a progressive JPEG (or the
                                    Adam7 passes of an interlaced PNG) that
                                    came so far, at the box, while the rest
                                    downloads (borrowed, as IMAGE's; retain it
                                    to keep it).
                                    ev->status is LAZYIMG_OK, ticket and row are
                                    the request's. Not the ticket's one event: the
                                    ticket stays open, and its IMAGE, FAILED or
                                    CANCELLED still follows exactly once. No
                                    preview comes after that event, none for a
                                    ticket cancelled, and none enters the memory
                                    or disk cache */
} lazyimg_event_type;

typedef enum lazyimg_source {
    LAZYIMG_SOURCE_NONE = 0,    /* failures */
    LAZYIMG_SOURCE_MEMORY = 1,
    LAZYIMG_SOURCE_DISK = 2,    /* the disk cache (disk_cache_dir), also after a
                                   304 Not Modified or a stale copy served while
                                   the network is down */
    LAZYIMG_SOURCE_NETWORK = 3  /* fetched with libcurl, or a file:// read */
} lazyimg_source;

/* One completion (or, since 0.4.0, a PREVIEW before it). Fields are only ever
 * appended; check struct_size before reading a field added after the version
 * you compiled against. */
typedef struct lazyimg_event {
    uint32_t struct_size;       /* sizeof(lazyimg_event) of the library */
    lazyimg_event_type type;
    size_t row;                 /* the row the ticket was requested for */
    uint64_t ticket;            /* the ticket lazyimg_request returned */
    lazyimg_status status;      /* LAZYIMG_OK for IMAGE; the error for FAILED */
    int32_t http_status;        /* last HTTP status seen, 0 if none. Since
                                   0.4.0: 200 for a body a Range request
                                   completed (206; see bytes_resumed) */
    lazyimg_source source;
    const char *url;            /* borrowed: valid only during the callback */
    lazyimg_image *image;       /* borrowed: valid only during the callback;
                                   retain it to keep it. NULL unless IMAGE (or,
                                   since 0.4.0, PREVIEW). */
    /* Since 0.2.0: */
    const char *message;        /* borrowed: valid only during the callback. Why
                                   it failed, with what the status alone cannot
                                   say ("HTTP status 404", "unsupported image
                                   format: HEIF"); "" for IMAGE. Never NULL. */
    /* Since 0.3.0: */
    const uint8_t *data;        /* borrowed: valid only during the callback. The
                                   body of a DATA event; NULL otherwise, and when
                                   the body is empty. */
    size_t data_size;           /* bytes at data; 0 unless DATA */
} lazyimg_event;

/* The event callback. `ev` is borrowed for the duration of the call. It is
 * never called with an internal lock held; it must not call
 * lazyimg_loader_destroy (that returns LAZYIMG_E_MISUSE). */
typedef void (*lazyimg_event_fn)(void *user_data, const lazyimg_event *ev);

/* ----------------------------------------------------------------- config */

/* Loader settings. Fill with lazyimg_config_init, then change what you need.
 * Fields are only ever appended; the library reads min(struct_size, its own
 * size) bytes and uses defaults for the rest. struct_size must be
 * sizeof(lazyimg_config) of a released header (0.1, 0.2, ...) or at least the
 * library's own size; any other value (one ending inside a field) is
 * INVALID_ARGUMENT. */
typedef struct lazyimg_config {
    uint32_t struct_size;          /* set by lazyimg_config_init */
    lazyimg_event_fn on_event;     /* may be NULL: events are then dropped */
    void *user_data;               /* passed to on_event untouched */
    lazyimg_delivery delivery;     /* default LAZYIMG_DELIVERY_HOST */
    uint32_t target_width;         /* decode and downsample to fit this box,   */
    uint32_t target_height;        /* keeping the aspect ratio; 0 = no limit on
                                      that side; 0,0 (default) = original size.
                                      Images are never upscaled. */
    uint64_t memory_cache_bytes;   /* decoded-image cache; default 64 MiB; 0 = off.
                                      With a session, this loader's own limit
                                      inside the session's shared budget. Since
                                      0.4.0 it also holds what playing animations
                                      keep: their files, canvases and frames
                                      (animation_buffer_bytes) */
    uint32_t max_concurrent_downloads; /* default 16 (a screenful of rows and the
                                      rows ahead start at once); 0 = default;
                                      at most 64 */
    int32_t prefetch_rows;         /* rows past the visible range in the scroll
                                      direction; -1 (default) = the rows
                                      travelled in half a second at
                                      slow_scroll_rows_per_second (half a
                                      screen by default); 0 = none */
    uint32_t timeout_ms;           /* whole-transfer timeout, name lookup and
                                      every redirect hop included (Since 0.4.0:
                                      each hop had its own), time paused for
                                      decode_queue_bytes not; default 15000;
                                      0 = default */
    uint64_t max_response_bytes;   /* default 32 MiB; 0 = default; values over
                                      1 GiB (UINT64_MAX included) mean 1 GiB.
                                      Since 0.4.0 the bodies of every redirect
                                      hop of a try count together (each hop had
                                      its own limit). A row's volume is at most
                                      4 tries x (max_response_bytes + 6 x 256 KiB
                                      of headers) */
    uint64_t max_pixels;           /* width*height limit checked from the image
                                      header before decoding (a GIF's or animated
                                      WebP's canvas and each frame it plays);
                                      default 50e6; 0 = default. The image a
                                      decode makes is at most 4 bytes a pixel of
                                      the target box, or of this many pixels at
                                      the original size */
    const char *user_agent;        /* copied; NULL = "lazyimg/VERSION"; no
                                      control bytes but HT */
    const char *const *http_headers; /* copied; NULL-terminated list of
                                      "Name: value" strings; NULL = none. The
                                      name must be an HTTP token and not Host
                                      (the URL names the server); the value has
                                      no control bytes but HT. Sent only where
                                      http_headers_origins says (by default only
                                      to the row's own origin).
                                      Since 0.4.0: image requests name the
                                      formats this build decodes, "Accept:
                                      image/avif,image/heic,image/webp,
                                      image/png,image/jpeg,image/gif" (AVIF and
                                      HEIC only when built with them) and then
                                      any type at q=0.5; the same for
                                      LAZYIMG_OUTPUT_ENCODED. An Accept of your
                                      own here replaces it where it is sent.
                                      lazyimg_fetch sends libcurl's default. */
    uint32_t retry_after_ms;       /* a failed URL answers its error at once for
                                      this long, then is tried again; default
                                      2000; 0 = default. Before a ticket fails,
                                      transient failures (NETWORK other than a
                                      certificate that does not verify; HTTP
                                      408, 429, 500, 502-504) are retried up to 3
                                      times after 125-250, 250-500, 500-1000 ms
                                      or the server's Retry-After (at most 30 s);
                                      3 such failures in a row pause that host
                                      for 1 s, doubling while it keeps failing
                                      (at most 16 s). So from its first start a
                                      row's download takes at most 4 x timeout_ms
                                      plus 3 waits of at most 30 s each (the
                                      back-off alone: 1.75 s in all); with the
                                      defaults 60-62 s, and 150 s when a server
                                      asks for the longest Retry-After. */
    /* Since 0.2.0: */
    lazyimg_fit fit;               /* default LAZYIMG_FIT_INSIDE */
    lazyimg_pixel_format pixel_format; /* default LAZYIMG_PIXEL_RGBA8 */
    lazyimg_output output;         /* default LAZYIMG_OUTPUT_PIXELS */
    /* Since 0.3.0: */
    double slow_scroll_rows_per_second; /* a moving list slower than this loads
                                      as if at rest (see
                                      lazyimg_set_scroll_state); 0 (default) =
                                      one screen (the visible row count) per
                                      second; negative, NaN or infinite is
                                      INVALID_ARGUMENT */
    uint64_t prefetch_waste_bytes; /* prefetching pauses while images fetched
                                      ahead and not yet requested hold this many
                                      downloaded bytes; visible and landing rows
                                      still load. Default 4 MiB; 0 = default */
    uint32_t max_host_connections; /* connections to one host at once; default
                                      10, so a 10-row screen from an HTTP/1.1
                                      server starts in one round; 0 = default;
                                      at most max_concurrent_downloads. HTTP/2
                                      servers (https) carry every download to
                                      them on one connection, as streams.
                                      Since 0.4.0 also the downloads to one host
                                      at once, HTTP/2 or not: the host's other
                                      rows wait without taking a download slot,
                                      so a host that accepts and never answers
                                      holds at most this many of the
                                      max_concurrent_downloads. */
    int32_t allow_file_urls;       /* 0 (default): file:// URLs are refused with
                                      LAZYIMG_E_BAD_URL, so a feed cannot read
                                      the host's disk. 1: they load, regular
                                      files only (a FIFO, device or directory
                                      fails with LAZYIMG_E_IO, without blocking),
                                      read on a thread of their own, never the
                                      network thread, within max_response_bytes.
                                      Other values: INVALID_ARGUMENT. */
    const char *const *http_headers_origins; /* copied; NULL-terminated list of
                                      origins, "scheme://host[:port]" (the port
                                      defaults to the scheme's), that receive
                                      http_headers. NULL (default): each request
                                      carries them only to the origin of the
                                      row's own URL. Either way every redirect
                                      hop is checked anew, so the headers never
                                      follow a redirect to another origin. When
                                      the list's URLs come from an untrusted
                                      feed, name the origins: otherwise any host
                                      the feed names gets the headers. A
                                      malformed origin: INVALID_ARGUMENT. */
    const char *proxy;             /* copied; NULL (default) = libcurl's proxy
                                      environment variables (http_proxy,
                                      https_proxy, all_proxy, no_proxy); "" = no
                                      proxy, whatever the environment says; else
                                      the proxy URL used for every request. */
    const char *ca_file;           /* copied; a PEM file of the certificate
                                      authorities to trust instead of the
                                      system's (for a private CA); NULL (default)
                                      = the system's. Since 0.4.0 read once, at
                                      create: a regular file of at most 4 MiB
                                      holding at least one PEM certificate, else
                                      INVALID_ARGUMENT (lazyimg_create_error says
                                      why: a FIFO, a directory, no certificate);
                                      nothing opens it later, and the system's
                                      CA directory is not added to it. The
                                      certificate and host name are always
                                      verified: no option turns that off. */
    uint64_t decode_queue_bytes;   /* memory budget for downloaded bytes: the
                                      bodies of running downloads and the files
                                      waiting for (or in) a decode, together.
                                      Since 0.4.0 a download whose body would
                                      grow past it pauses (the time it waits is
                                      not counted in timeout_ms) until decodes or
                                      other downloads give bytes back, and no
                                      download starts while it is spent (0.3:
                                      running downloads could overshoot it by up
                                      to max_concurrent_downloads files). One
                                      download at a time may run past it, so a
                                      file larger than the budget still loads:
                                      downloads hold at most this plus 1.5 x
                                      max_response_bytes (one body, and its old
                                      storage while it grows). Default 64 MiB;
                                      0 = default */
    const char *disk_cache_dir;    /* copied; NULL (default) = no disk cache. A
                                      directory for the original files and the
                                      thumbnails of each box used, kept across runs
                                      and shareable by processes; created (0700)
                                      when missing. lazyimg_loader_create fails with
                                      IO when it cannot be created, written or
                                      locked, and (since 0.4.0) when it is not
                                      owned by the effective user, or its last
                                      component is a symbolic link another user
                                      owns. Keep it writable by that user alone.
                                      Since 0.4.0: files in it are opened without
                                      following links and used only when they are
                                      regular files of that user; anything else
                                      under a cache file's name (a link, FIFO,
                                      hard link, another user's file) is removed
                                      or replaced, never read or written through.
                                      A directory of 0.3 is emptied when 0.4 first
                                      opens it; do not share one directory between
                                      0.3 and 0.4 processes */
    uint64_t disk_cache_bytes;     /* the disk cache's limit on the directory's
                                      allocated size as `du -sk` counts it:
                                      entries rounded up to whole blocks, the
                                      directories and the journal. Exceeded by at
                                      most one entry, also with several processes
                                      on one directory. A limit too small for the fixed part (8 KiB on
                                      ext4) and one entry stores nothing. See
                                      docs/disk-cache.md. Default 256 MiB;
                                      0 = default */
    uint32_t disk_cache_serve_stale; /* 1 (default): when the network fails or the
                                      server answers 5xx, a stale disk copy answers
                                      instead (source DISK); 0 = report the error */
    lazyimg_session *session;      /* NULL (default) = the loader's own network and
                                      download table. Else borrowed: the loader
                                      takes its own reference, and uses the
                                      session's network, download table, disk
                                      cache and memory budget (disk_cache_dir and
                                      disk_cache_bytes are then ignored) */
    /* Since 0.4.0: */
    uint64_t max_decode_bytes;     /* memory one decode may hold besides the image
                                      it makes: what the codec keeps of the whole
                                      file (a progressive JPEG's coefficients, 6
                                      bytes a pixel at 4:4:4; a lossless WebP's
                                      pixels; libwebp's alpha plane; an AVIF's or
                                      HEIC's decoded pictures, about 2.5 (AVIF)
                                      and 3.6 (HEIC) bytes a pixel at 8-bit
                                      4:2:0 and 10 to 11 at 10-bit 4:4:4 with
                                      alpha: of an AVIF grid every cell and the
                                      canvas, of a HEIC grid one row of tiles),
                                      full-size buffers where rows cannot stream
                                      (interlaced PNG, lossy WebP with alpha, an
                                      animation frame smaller than its canvas, an
                                      interlaced GIF's indices) and the rows that
                                      stream. Computed from the file's headers
                                      before decoding: a file that needs more
                                      fails with TOO_LARGE and a message saying
                                      what it needs. So one decode thread holds at
                                      most this plus its image (see max_pixels).
                                      Default 64 MiB; 0 = default */
    uint64_t animation_buffer_bytes; /* 0 (default): animations are not played;
                                      images are first frames, as before 0.4.0.
                                      Else animated GIF and WebP play through
                                      lazyimg_frame_at: the first frame's image
                                      also keeps the file's bytes, and each
                                      animation buffers up to this many bytes of
                                      decoded frames ahead of the one shown (at
                                      least two frames). See "animations" */
    uint32_t fetch_first_pass_only; /* Since 0.4.0. 1 (default): a file whose
                                      first pass fills the box is fetched only
                                      up to that pass. The first pass is a
                                      progressive JPEG's DC scans, when the JPEG
                                      fills the box from 1/8 of its size (a
                                      768x512 photo in 96 px or less), or an
                                      interlaced PNG's first Adam7 pass, every
                                      8th pixel of every 8th row, when that
                                      ceil(w/8) x ceil(h/8) image covers the box
                                      (the same sizes). A server's files come
                                      whole, one request each, and the body is
                                      closed once that pass has come; once a
                                      server has sent such files and said
                                      Accept-Ranges: bytes, its next files are
                                      asked for their start with Range (sized
                                      from its earlier files), more following
                                      as the JPEG's scan headers say or as the
                                      PNG's pass-1 rows so far suggest. The
                                      image shown is the final one for this
                                      box, decoded from those bytes (a few KiB
                                      of a 60-110 KiB JPEG; about 2% of an
                                      interlaced PNG photo). A
                                      PNG's pass 1 is a point sample, not an
                                      average as a DC is: fine detail aliases
                                      (docs/performance.md gives the PSNR). A
                                      loader with a larger box for the URL, in
                                      the same session, continues that download
                                      (Range with If-Range). The disk cache
                                      keeps such an image as this box's
                                      thumbnail only, never as the original.
                                      Baseline JPEGs and non-interlaced PNGs
                                      cost nothing: one request each, no byte
                                      more. Only with output =
                                      LAZYIMG_OUTPUT_PIXELS and a box
                                      (target_width or target_height set). 0 =
                                      fetch every file whole. Renamed from
                                      fetch_dc_scans_only, which no release had.
                                      See docs/network.md */
    uint32_t preview_interval_ms;  /* Since 0.4.0. 0 (default): no previews, as
                                      before. N: a progressive JPEG (or an
                                      interlaced PNG) downloading for a visible
                                      row (or one where a fling comes to rest)
                                      gives LAZYIMG_EVENT_PREVIEW events before
                                      its IMAGE: when a scan (an Adam7 pass) more
                                      than the last preview showed has come
                                      whole, at most every N ms, and one preview
                                      decode of a download at a time. Each
                                      preview is a decode at the box on a
                                      decode thread, queued behind every final
                                      decode and skipped while finals wait. Off
                                      by default because that decode is paid per
                                      preview, and only a slow link gains by it:
                                      see docs/performance.md for when it pays.
                                      Baseline JPEGs, PNGs that are not
                                      interlaced, other formats, a box served by
                                      fetch_first_pass_only and
                                      output = LAZYIMG_OUTPUT_ENCODED give none.
                                      Nuke's progressiveDecodingInterval is
                                      500 ms */
} lazyimg_config;

/* Fills *cfg with the defaults and sets struct_size. NULL is ignored. */
void lazyimg_config_init(lazyimg_config *cfg);

/* ----------------------------------------------------------------- loader */

/* Creates a loader. `cfg` is copied (NULL = defaults). On success *out is a
 * loader the caller owns (destroy it with lazyimg_loader_destroy).
 * Errors: INVALID_ARGUMENT (out NULL, struct_size 0, a bad field or header
 * line), NO_MEMORY, IO (threads or the event fd could not be made, or
 * disk_cache_dir cannot be created, written or locked),
 * NETWORK (libcurl could not be initialised). */
lazyimg_status lazyimg_loader_create(const lazyimg_config *cfg, lazyimg_loader **out);

/* Since 0.4.0: why the calling thread's last lazyimg_loader_create or
 * lazyimg_session_create failed, in English, naming the field ("ca_file
 * /etc/x is a FIFO, not a file"); "" when it succeeded or its status says all
 * there is (so far only ca_file has more to say). Thread-local storage, never
 * NULL, valid until this thread's next create. */
const char *lazyimg_create_error(void);

/* Destroys a loader. NULL is accepted (returns OK). Cancels all work; every
 * outstanding ticket gets its event (CANCELLED unless it already finished)
 * before this returns: on the calling thread in HOST delivery, on the
 * delivery thread in THREAD delivery. Waits for the network and decode
 * threads to stop. No callback runs after it returns.
 * Must not race: the host makes sure that no other call on this loader is
 * running on another thread when destroy starts, and that none starts after
 * it (the loader's memory is freed before it returns, so such a call is a
 * use after free; the library does not detect it). Calls that began earlier
 * and returned are fine, as are images the host still holds, and callbacks
 * run by destroy itself may call anything but destroy.
 * Errors: MISUSE when called from inside a callback; the loader is then left
 * untouched. */
lazyimg_status lazyimg_loader_destroy(lazyimg_loader *loader);

/* ------------------------------------------------------------------- list */

/* Replaces the list with `count` URLs; urls[i] is row i. The strings are
 * copied byte for byte; a NULL entry is a row without an image. URLs are
 * bytes: two URLs are the same image only when their bytes are equal (no
 * Unicode normalisation, no repair of bytes that are not UTF-8), and libcurl
 * gets them as given; on the wire bytes past ASCII are %xx, in the path by
 * libcurl, in the query by this library (Since 0.4.0: the query's went raw).
 * urls may be NULL when count is 0. Outstanding tickets of the old list end
 * CANCELLED; the memory cache is kept. Since 0.4.0: the new rows have no
 * placeholders (lazyimg_set_placeholders). Errors: INVALID_ARGUMENT, SHUTDOWN. */
lazyimg_status lazyimg_set_items(lazyimg_loader *loader, const char *const *urls, size_t count);

/* Appends `count` rows (the next page) after the current ones; copied as in
 * lazyimg_set_items. Outstanding tickets stay, and so do the placeholders of
 * the rows before; the new rows have none. Errors: INVALID_ARGUMENT,
 * SHUTDOWN. */
lazyimg_status lazyimg_append_items(lazyimg_loader *loader, const char *const *urls, size_t count);

/* The number of rows; 0 for NULL. */
size_t lazyimg_item_count(const lazyimg_loader *loader);

/* ------------------------------------------------------------- view state */

/* Rows first .. first+count-1 are on screen (clamped to the list). Work for
 * rows outside the visible range, the landing zone of a fling and the
 * prefetch window (in the direction of travel) is cancelled: their tickets
 * end CANCELLED, their downloads stop unless nearly done (>= 75% received or
 * <= 16 KiB left: those finish into the memory cache). Whenever the scroll
 * state allows loading, the loader itself downloads the visible rows, the
 * landing zone and the prefetch window, whether or not they were requested yet
 * (results go to the memory cache; only tickets get events). Until the first
 * call every row counts as wanted and requests run in the order they came.
 * Since 0.4.0: while the list moves faster than slow_scroll_rows_per_second,
 * the CANCELLED events of rows that left are queued together, about 100 ms
 * after the first of them, at once when the list slows or rests, when 64
 * wait, before any later event for the same row, and at destroy; each such
 * ticket has ended already (lazyimg_cancel answers MISS).
 * Cost: proportional to the rows that entered or left, not to the window.
 * Errors: INVALID_ARGUMENT (NULL), SHUTDOWN. */
lazyimg_status lazyimg_set_visible_range(lazyimg_loader *loader, size_t first, size_t count);

/* The list's scroll state and speed; call it every frame while the list
 * moves. velocity_rows_per_second: positive = towards higher rows; its sign
 * sets the direction of travel (0 keeps the last one). What loads:
 *   IDLE, or moving slower than slow_scroll_rows_per_second (default one
 *     screen per second): as at rest. Visible rows from the top, then the
 *     landing zone if one is known, then the prefetch window ahead
 *     (prefetch_rows, or half a second of travel at the present speed when
 *     that is more, up to four times prefetch_rows). After a motion faster
 *     than that (a fling, a fast drag) nothing is prefetched until the list
 *     shows reading: a slow DRAGGING from IDLE, or (since 0.4.0) a touch that
 *     catches the list still moving and keeps it slow for 250 ms. A shorter
 *     catch, as a fling back or another fling begins, prefetches nothing.
 *     Since 0.4.0, a list still DECELERATING toward the rows given to
 *     lazyimg_set_scroll_target does not start the visible rows it leaves
 *     within the target's lead time (see lazyimg_set_scroll_target), outside
 *     the landing zone on the side it comes from. Requested, they wait, and
 *     start if the list rests short.
 *   DRAGGING or DECELERATING faster than that: nothing new starts; requests
 *     answer DEFERRED (memory hits are still served) and wait for the list to
 *     slow down or rest; work for rows that leave is cancelled.
 *   Except the landing zone: the rows where the list will rest, plus a
 *     margin, start while it still moves. They are the rows given to
 *     lazyimg_set_scroll_target, or else are estimated while DECELERATING from
 *     the velocities of successive calls (timed by the loader's monotonic
 *     clock; since 0.4.0, where the kernel keeps time by the processor's
 *     cycle counter, the call reads only that and the loader's thread turns
 *     it into the clock's time). Since 0.4.0 the estimate carries its uncertainty: exponential,
 *     constant-rate and in-between decays are fitted side by side and weighed
 *     by how well each explains the fling so far; the speed at which flings
 *     stop and how far each fit's predictions were off are learned from
 *     earlier flings of the loader's life that ended by themselves (IDLE,
 *     not a touch), never from one alone. Rows start by their probability of
 *     being visible at rest, as long as the expected waste (one minus that
 *     probability, summed) stays within a quarter screen, so an unsure
 *     estimate (the first fling, with nothing learned) starts fewer rows; a
 *     row keeps its download while the estimate moves by a row or the list
 *     has yet to pass it. Either way the zone starts once the list is due to
 *     stop or slow down within about half a second (so a fling caught or
 *     reversed earlier wastes no download).
 * Starts while moving are paced (a burst of a screen plus
 * max_concurrent_downloads, then two screens a second) so a list shaken back
 * and forth cannot flood the server; the resting rows of a fling, and
 * everything at rest, are not paced. A new touch
 * (DRAGGING after another state), a reversal or IDLE voids the landing zone;
 * its downloads stop unless nearly done.
 * Errors: INVALID_ARGUMENT (NULL, unknown state, NaN velocity), SHUTDOWN. */
lazyimg_status lazyimg_set_scroll_state(lazyimg_loader *loader, lazyimg_scroll_state state,
                                        double velocity_rows_per_second);

/* ---------------------------------------------------------- scroll target */

/* Rows first .. first+count-1 will be on screen when the list comes to rest:
 * the toolkit's own prediction (UIKit's targetContentOffset in
 * scrollViewWillEndDragging, Android's OverScroller.getFinalY, Qt's
 * QScroller::finalPosition, Flutter's ballistic simulation end). Those rows,
 * plus a margin of a quarter screen on the side the list comes from, start
 * while the list still flies, ahead of everything but the visible rows: once
 * the DECELERATING velocities (at least three calls over 45 ms) say the list
 * will cover the distance to them, or slow below
 * slow_scroll_rows_per_second, within the lead time; at once when it is
 * already that slow. The lead time is half a second until 8 downloads from
 * the network have ended in an image; since 0.4.0 it is then twice the
 * slowest of the loader's last 16 such downloads (start to decoded image),
 * between 0.3 and 0.5 seconds, so on a fast network a fling flicked on again
 * before it rests has started less. Once due, the zone stays due for the
 * rest of the fling (until a touch, IDLE, a turn or another target). Without
 * a target the loader estimates the landing zone
 * itself (see lazyimg_set_scroll_state). A paged list asks for its next page
 * as soon as the target nears the end. count 0
 * withdraws the target. The target is void after the next touch (DRAGGING
 * after another state), at IDLE, or when the list turns the other way; its
 * downloads then stop unless nearly done. Clamped to the list.
 * Errors: INVALID_ARGUMENT (NULL), SHUTDOWN. */
lazyimg_status lazyimg_set_scroll_target(lazyimg_loader *loader, size_t first, size_t count);

/* ------------------------------------------------------------------- rows */

/* Image for row `row`: the cellForRow call. Never blocks.
 *   LAZYIMG_OK:       in memory; *out_image is a +1 reference.
 *   LAZYIMG_PENDING:  *out_ticket is set; scheduled or in flight.
 *   LAZYIMG_DEFERRED: *out_ticket is set; held back while the list moves
 *                     fast (see lazyimg_set_scroll_state).
 *   LAZYIMG_PLACEHOLDER (since 0.4.0): instead of PENDING or DEFERRED for a
 *                     row given a placeholder hash (lazyimg_set_placeholders):
 *                     *out_ticket is set as for those, and *out_image is a +1
 *                     reference to the row's placeholder, which is NOT the
 *                     image: show it until the ticket's event. Only hosts that
 *                     give placeholders ever see this status.
 * After PENDING, DEFERRED or PLACEHOLDER exactly one event (IMAGE or FAILED)
 * follows for that ticket and row. Several tickets may share one download. Tickets are
 * never 0 and never reused within a loader.
 * Errors (no event follows): INVALID_ARGUMENT (NULL loader or out pointer),
 * OUT_OF_RANGE, NO_IMAGE (NULL entry), BAD_URL, SHUTDOWN, and the error of a
 * URL that failed less than retry_after_ms ago (NETWORK, HTTP, DECODE, ...).
 * out_image and out_ticket must both be non-NULL; on return each is set
 * (NULL / 0 when unused). */
lazyimg_status lazyimg_request(lazyimg_loader *loader, size_t row,
                               lazyimg_image **out_image, uint64_t *out_ticket);

/* Memory-cache lookup for row `row`; never schedules anything.
 * LAZYIMG_OK with *out a +1 reference, or LAZYIMG_MISS with *out NULL.
 * Errors: INVALID_ARGUMENT, OUT_OF_RANGE, NO_IMAGE, SHUTDOWN. */
lazyimg_status lazyimg_lookup(lazyimg_loader *loader, size_t row, lazyimg_image **out);

/* Memory-cache lookup by URL (copied); as lazyimg_lookup. */
lazyimg_status lazyimg_lookup_url(lazyimg_loader *loader, const char *url, lazyimg_image **out);

/* Cancels a ticket. LAZYIMG_OK: it was live and its CANCELLED event will
 * follow. LAZYIMG_MISS: unknown or already finished (harmless). The shared
 * download stops only when no ticket or prefetch wants it any more.
 * Errors: INVALID_ARGUMENT, SHUTDOWN. */
lazyimg_status lazyimg_cancel(lazyimg_loader *loader, uint64_t ticket);

/* ------------------------------------------------------------ placeholders */

/* Since 0.4.0. A feed can send a small hash of each image with its URL (the
 * Mastodon API's "blurhash" on every media attachment); the loader draws it
 * while the image loads. lazyimg_request answers a row that has one and whose
 * image is not in memory with LAZYIMG_PLACEHOLDER: the drawn placeholder
 * beside the ticket. The image's event follows as for PENDING.
 *
 * What is drawn: the picture the format's reference decoder draws (BlurHash:
 * its TypeScript and Python decoders, byte for byte; ThumbHash: Evan
 * Wallace's reference, byte for byte at its own size), in the loader's
 * pixel_format, opaque for BlurHash, and lazyimg_image_is_placeholder() is 1.
 * Its size follows target_width x target_height, with the long side brought
 * down to 64 pixels (a blur; scale it up to the cell): a BlurHash, which holds
 * no aspect ratio, fills that box (a box with one side 0: a square of the
 * other); a ThumbHash keeps its own aspect ratio, fitted as `fit` says, inside
 * or covering and centre-cropped. No box (0,0): 32 x 32 for BlurHash, 32 on
 * the long side for ThumbHash. Placeholders are pixels also in
 * LAZYIMG_OUTPUT_ENCODED loaders.
 *
 * Cost: the first request of a row draws its placeholder on the calling
 * thread: at 64 x 64 about 45 us for a 4x4 BlurHash (Mastodon's), 130 us for
 * the largest (9x9), 20 us for a ThumbHash (make bench-placeholder). The
 * loader keeps the last 64 drawn (at most 1 MiB), so the requests after that
 * take a reference (under 0.1 us). Drawn placeholders are not in the
 * memory cache or memory_cache_bytes; LAZYIMG_TRIM_COMPLETE drops them. */

typedef enum lazyimg_placeholder_kind {
    LAZYIMG_PLACEHOLDER_BLURHASH = 1,  /* BlurHash text, at most 166 bytes */
    LAZYIMG_PLACEHOLDER_THUMBHASH = 2  /* ThumbHash bytes as base64 text (standard
                                          or URL-safe alphabet, "=" padding
                                          optional), at most 64 bytes */
} lazyimg_placeholder_kind;

/* Gives rows first_row .. first_row+count-1 their placeholder hashes of one
 * kind: hashes[i] is row first_row+i's, copied; NULL removes that row's. Call
 * it after lazyimg_set_items or lazyimg_append_items with the same page (the
 * feed's "blurhash" beside each URL), for any rows and as often as wanted.
 * Parses every hash at once and draws none. hashes may be NULL when count
 * is 0. out_bad_row and out_reason may be NULL; they are set on every
 * return, to 0 and "" unless the status is BAD_PLACEHOLDER.
 * Errors: INVALID_ARGUMENT (NULL loader, NULL hashes with count > 0, unknown
 * kind), OUT_OF_RANGE (a row at or past lazyimg_item_count(): nothing is
 * set), SHUTDOWN, and BAD_PLACEHOLDER: one or more hashes do not parse (bad
 * characters, a length that does not match, too short or too long); those
 * rows are left without a placeholder, every other row given is set, and
 * *out_bad_row is the first such row, *out_reason why it was refused (static
 * storage, never NULL). */
lazyimg_status lazyimg_set_placeholders(lazyimg_loader *loader, size_t first_row,
                                        lazyimg_placeholder_kind kind,
                                        const char *const *hashes, size_t count,
                                        size_t *out_bad_row, const char **out_reason);

/* Since 0.4.0. The row's placeholder, drawn as above, whatever its image's
 * state: for a row whose request failed, say. Never schedules anything.
 * LAZYIMG_OK with *out a +1 reference, or LAZYIMG_MISS with *out NULL when
 * the row has no placeholder. Errors: INVALID_ARGUMENT, OUT_OF_RANGE,
 * SHUTDOWN. */
lazyimg_status lazyimg_lookup_placeholder(lazyimg_loader *loader, size_t row, lazyimg_image **out);

/* ------------------------------------------------ paged lists and feeds */

/* Paged lists. When the end of the visible range comes within `distance_rows`
 * rows of lazyimg_item_count() while `has_more` is non-zero, exactly one
 * LAZYIMG_EVENT_NEED_PAGE event is delivered (ticket 0, row = the row count
 * then, status OK, url ""), and no other until lazyimg_append_items (or
 * lazyimg_set_items) changes the list, which re-arms it. Each call re-arms
 * too: call it again after a page failed, to be asked again; with has_more 0
 * no more NEED_PAGE events come. Checked at once (on the loader's scheduler
 * thread, so the event follows a moment later) and after every list or view
 * change. Off until the first call.
 * Errors: INVALID_ARGUMENT (NULL), SHUTDOWN. */
lazyimg_status lazyimg_set_paging(lazyimg_loader *loader, size_t distance_rows, int has_more);

/* Downloads `url` (copied; a feed page, any data) through the loader's own
 * network stack, with its timeout_ms, max_response_bytes, user_agent and
 * http_headers, ahead of every image waiting for a transfer slot, and also
 * while the list scrolls. Never cached, never coalesced: each call is one
 * transfer. LAZYIMG_PENDING with *out_ticket set: exactly one event follows
 * for that ticket, DATA (the body, borrowed: ev->data, ev->data_size; row 0)
 * or FAILED with the same statuses and messages as images (HTTP for status
 * >= 400, TOO_LARGE, NETWORK for a timeout, CANCELLED). lazyimg_cancel works
 * on the ticket. Fetches count in bytes_downloaded and in_flight, not in the
 * downloads_* counters (those count images).
 * Errors (no event follows; *out_ticket 0): INVALID_ARGUMENT (NULL loader,
 * url or out_ticket), BAD_URL, SHUTDOWN. */
lazyimg_status lazyimg_fetch(lazyimg_loader *loader, const char *url, uint64_t *out_ticket);

/* ----------------------------------------------------------------- images */

/* Adds a reference; returns `image` (NULL passes through). */
lazyimg_image *lazyimg_image_retain(lazyimg_image *image);
/* Drops a reference; NULL is accepted. Releasing a reference you do not hold
 * (the same one twice, or one of an image already freed) is undefined
 * behaviour, as free() twice is: the library does not detect it. Telling a
 * live image from a freed one would cost every retain and release a lookup in
 * a registry of live images, and would still be fooled once the freed
 * address holds a new image. */
void lazyimg_image_release(lazyimg_image *image);
/* Size in pixels after downsampling; 0 for NULL and for encoded images. */
uint32_t lazyimg_image_width(const lazyimg_image *image);
uint32_t lazyimg_image_height(const lazyimg_image *image);
/* Bytes from one row to the next (>= 4 * width; bytes past 4 * width are
 * padding); 0 for NULL and for encoded images. */
size_t lazyimg_image_stride(const lazyimg_image *image);
/* Borrowed: the pixels, top row first, rows `stride` bytes apart, in the
 * layout lazyimg_image_pixel_format says (the loader's pixel_format); valid
 * while a reference is held. The buffer holds stride * height bytes. NULL for
 * NULL and for encoded images. */
const uint8_t *lazyimg_image_pixels(const lazyimg_image *image);
/* The layout of the pixels; LAZYIMG_PIXEL_RGBA8 for NULL. */
lazyimg_pixel_format lazyimg_image_pixel_format(const lazyimg_image *image);
/* The size the image is shown at before downsampling: the size in the file,
 * with the sides swapped when a JPEG's EXIF orientation (since 0.4.0 also an
 * AVIF or HEIF file's irot) turns it a quarter turn (pixels are always
 * upright). 0 for NULL and for encoded images. */
uint32_t lazyimg_image_source_width(const lazyimg_image *image);
uint32_t lazyimg_image_source_height(const lazyimg_image *image);
/* 1 when the file holds more frames (animated GIF or WebP, since 0.4.0 an AVIF
 * sequence; the pixels are the first frame), else 0. Encoded images are not
 * examined: always 0. */
int lazyimg_image_is_animated(const lazyimg_image *image);
/* Since 0.4.0: 1 when the file was damaged and is shown as browsers show it,
 * else 0 (also for NULL and for encoded images, which are not examined):
 * a JPEG that libjpeg decoded with warnings (bytes where a marker should
 * be, a corrupt or cut-off scan, a missing Huffman table of a motion-JPEG
 * frame); a baseline JPEG cut short, whose missing rows are transparent; a
 * PNG with a bad CRC in a chunk the pixels do not need. The image is the
 * final one for its URL and box, cached as any other: the bytes are all the
 * server sent (a transfer cut off mid-body fails as NETWORK and is never
 * decoded), so fetching again would bring the same damage. Files with
 * damage that is not safe to show (a critical PNG chunk, a JPEG error that
 * stops libjpeg) still fail with DECODE. */
int lazyimg_image_is_damaged(const lazyimg_image *image);
/* LAZYIMG_OUTPUT_ENCODED loaders: borrowed pointer to the file's bytes, valid
 * while a reference is held, and their count in *out_size (may be NULL).
 * NULL (and *out_size 0) for NULL and for decoded images. */
const uint8_t *lazyimg_image_encoded_data(const lazyimg_image *image, size_t *out_size);
/* The encoded file's format; LAZYIMG_CODEC_UNKNOWN for NULL and for decoded
 * images. */
lazyimg_codec lazyimg_image_codec(const lazyimg_image *image);
/* Since 0.4.0: 1 for a placeholder drawn from a hash (LAZYIMG_PLACEHOLDER,
 * lazyimg_lookup_placeholder), which is never a row's image; else 0 (NULL
 * too). Its source width and height are its own. */
int lazyimg_image_is_placeholder(const lazyimg_image *image);

/* ------------------------------------------------------------- animations */

/* Since 0.4.0. With animation_buffer_bytes set, an animated GIF or WebP plays:
 * lazyimg_request gives its first frame as always, and lazyimg_frame_at gives
 * the frame to show at a time on the host's clock, decoded into the same box,
 * fit and pixel format. Without it (the default), and for still images, an
 * image is its own one frame.
 *
 * Never blocks: a frame call answers from the row's buffer at once, or
 * LAZYIMG_NOT_YET while a decode thread makes the frame; the host keeps showing
 * what it shows and asks again on its next frame. No event follows NOT_YET: a
 * host drawing at 60 Hz already asks every frame, and an event per frame of
 * every animation would only queue what it asks for anyway. A host that draws
 * only when something changes sleeps until *out_next_ms.
 *
 * Costs: each animation decodes on one decode thread at a time, after the
 * visible rows' images, ahead of the frame shown (a batch of the frames its
 * buffer lacks, once half of it was shown), and only while its row is in the
 * visible range (or, before the first lazyimg_set_visible_range, always): a
 * row that leaves stops decoding within the scheduler's next step, a few
 * milliseconds (a frame under way finishes). The
 * decode threads take no lock a frame call waits on: they leave frames for the
 * next frame call to pick up, and a frame call that finds the decode queue
 * busy for an instant asks again on the next call. When every frame fits the
 * buffer none is dropped, and once all are decoded a looping animation costs
 * nothing more.
 * Frames are composed on one full-size canvas per playing animation (4 bytes a
 * canvas pixel, plus a copy of the largest "restore to previous" GIF frame):
 * an animation whose canvas does not fit max_decode_bytes plays as a still.
 *
 * Memory: the file's bytes count with its first frame, and each animation's
 * buffered frames and canvas count too, in memory_cache_bytes and the session's
 * budget. When memory is short the stopped animations (rows that left) give up
 * their frames and canvas first, then images go by age (an animation whose
 * first frame goes stops: its frame calls answer MISS until the row is
 * requested again; frames never push out the first frames of animations that
 * play), then the playing animations buffer three frames each (the one
 * shown and the next two) until their buffers fit again. A budget smaller
 * than the playing animations' files, canvases and three frames each is
 * exceeded by the difference. lazyimg_trim_memory drops frames before images.
 * Frames the host holds stay valid, as images do. Rows that show the same URL
 * share one animation.
 *
 * Frames: only the frames whose records are complete in the file count (a
 * file cannot claim more), at most 65,536; a frame that fails to decode shows
 * what it drew over the frame before. Durations under 20 ms (GIF's 0 and 1
 * centisecond) play for 100 ms, as browsers show them; longer ones as written
 * (up to 655 s for GIF, 4.6 h for WebP). Loop count as browsers read it: a GIF
 * without a NETSCAPE2.0 block plays once, one with count n plays n + 1 times
 * (0: forever); a WebP plays its ANIM count of times (0: forever). Disposal
 * to background clears to transparent, as browsers do. */

/* The frames of the animation whose first frame this is: 1 for a still image
 * (and an animation its loader does not play), 0 for NULL and encoded images. */
uint32_t lazyimg_image_frame_count(const lazyimg_image *image);
/* Frame `frame`'s duration in milliseconds, as played; 0 for a still, NULL,
 * or a frame past the last. */
uint32_t lazyimg_image_frame_duration(const lazyimg_image *image, uint32_t frame);
/* How many times the animation plays: 0 = forever; 1 for a still; 0 for
 * NULL. */
uint32_t lazyimg_image_loop_count(const lazyimg_image *image);

/* The frame of row `row` shown `time_ms` milliseconds after the host started
 * playing it (its own clock; start at 0 when the cell appears, or keep one
 * clock for the list). Never blocks.
 *   LAZYIMG_OK:      *out is a +1 reference to the frame.
 *   LAZYIMG_NOT_YET: not decoded yet (*out NULL); keep showing the last frame
 *                    and ask again. Decoding it is under way when the row is
 *                    visible.
 *   LAZYIMG_MISS:    the row's image is not in memory (*out NULL): request it.
 * *out_frame (may be NULL) is the frame's index, also with NOT_YET;
 * *out_next_ms (may be NULL) is the time, on the same clock, at which the next
 * frame is due: UINT64_MAX for a still and once the last play has ended (the
 * last frame then stays). Asking for a time before the frame shown last, or
 * far ahead, decodes from the first frame again or through the frames between:
 * it costs decode time, not waiting. A still image answers itself at any time.
 * Errors: INVALID_ARGUMENT (NULL loader or out), OUT_OF_RANGE, NO_IMAGE,
 * SHUTDOWN. */
lazyimg_status lazyimg_frame_at(lazyimg_loader *loader, size_t row, uint64_t time_ms,
                                lazyimg_image **out, uint32_t *out_frame, uint64_t *out_next_ms);

/* Frame `frame` of row `row`'s animation, as lazyimg_frame_at, by index (0 is
 * the first frame, also for a still image); its buffer then looks ahead of
 * `frame`. Errors: as lazyimg_frame_at, and OUT_OF_RANGE for a frame past the
 * last. */
lazyimg_status lazyimg_frame(lazyimg_loader *loader, size_t row, uint32_t frame, lazyimg_image **out);

/* ----------------------------------------------------------------- events */

/* HOST delivery: a non-blocking descriptor that is readable while events
 * wait (an eventfd), level-triggered: it stays readable until
 * lazyimg_dispatch has taken the last waiting event, so a dispatch with a
 * `max` that leaves events behind is simply woken again (with epoll, use it
 * without EPOLLET). Add it to poll/epoll/GLib; then call lazyimg_dispatch.
 * Owned by the loader: do not read or close it. -1 for NULL or in THREAD
 * delivery.
 * The loader signals the descriptor only from the first call of this
 * function on (it is readable at once if events already wait then). A host
 * that never calls it, because it calls lazyimg_dispatch every frame, pays
 * no system call for the descriptor: a write for the first waiting event
 * and a read when dispatch takes the last. */
int lazyimg_event_fd(const lazyimg_loader *loader);

/* HOST delivery: runs up to `max` waiting callbacks (0 = all that wait now)
 * on the calling thread and returns how many ran. Events that callbacks
 * cause wait for the next call. 0 for NULL, in THREAD delivery, or after
 * destroy began. */
size_t lazyimg_dispatch(lazyimg_loader *loader, size_t max);

/* HOST delivery: blocks until an event waits or timeout_ms passes (negative
 * = no limit). LAZYIMG_OK: events wait. LAZYIMG_TIMEOUT: none arrived.
 * Errors: INVALID_ARGUMENT, MISUSE (THREAD delivery), SHUTDOWN, IO. */
lazyimg_status lazyimg_wait(lazyimg_loader *loader, int timeout_ms);

/* ------------------------------------------------------------ stats, memory */

/* Counters since creation, and the cache's current size. Fields are only
 * ever appended: set struct_size to sizeof(lazyimg_stats) before the call;
 * the library fills min(struct_size, its own size) bytes. */
typedef struct lazyimg_stats {
    uint32_t struct_size;
    uint64_t requests;             /* lazyimg_request calls that got past validation */
    uint64_t memory_hits;          /* requests answered OK from memory */
    uint64_t downloads_started;    /* transfers handed to libcurl */
    uint64_t downloads_coalesced;  /* tickets that joined a download already
                                      wanted by another ticket or by the
                                      prefetcher, instead of starting one */
    uint64_t downloads_cancelled;  /* transfers stopped before they finished */
    uint64_t downloads_failed;     /* transfers that ended in an error */
    uint64_t deferred;             /* requests answered DEFERRED */
    uint64_t bytes_downloaded;     /* response body bytes received */
    uint64_t images_decoded;
    uint64_t events_delivered;     /* callbacks run (or events dropped when
                                      on_event is NULL) */
    uint64_t memory_cache_bytes;   /* now (since 0.4.0 with animation_bytes) */
    uint64_t memory_cache_count;   /* now */
    uint64_t in_flight;            /* transfers running now */
    /* Since 0.3.0: */
    uint64_t prefetch_hits;        /* requests answered with an image the loader
                                      had fetched before it was requested */
    uint64_t prefetch_wasted;      /* images fetched before being requested
                                      whose rows left the window unrequested */
    uint64_t prefetch_waste_bytes; /* their downloaded bytes */
    uint64_t downloads_retried;    /* failed transfers started again after a
                                      backoff (each failure also counts in
                                      downloads_failed, each new try in
                                      downloads_started) */
    uint64_t disk_hits;            /* jobs answered from the disk cache without
                                      the network */
    uint64_t disk_revalidations;   /* stale disk copies the server confirmed with
                                      304 Not Modified (no body downloaded) */
    uint64_t disk_cache_bytes;     /* now: the entries' bytes (0 until counted, just
                                      after create) */
    uint64_t disk_cache_count;     /* now: the entries (originals and thumbnails) */
    uint64_t disk_evictions;       /* entries evicted to stay within the limit */
    uint64_t disk_write_errors;    /* writes that failed (disk full, read-only);
                                      existing entries are kept intact */
    uint64_t decodes_skipped;      /* downloaded files not decoded because their
                                      rows left before a decode thread was free
                                      (decode_queue_bytes); such a URL is
                                      downloaded again if its row comes back */
    /* Since 0.4.0: */
    uint64_t bytes_resumed;        /* body bytes not downloaded again: a download
                                      stopped early (its row left the window, or
                                      the network cut it off) kept its first
                                      bytes, and the next download of the URL
                                      asked only for the rest (Range, answered
                                      206); also the start of a progressive JPEG
                                      or interlaced PNG fetched for a small box
                                      (see fetch_first_pass_only) that a larger
                                      box continued, or that answered another
                                      small box without a request. Not counted
                                      in bytes_downloaded */
    uint64_t frames_decoded;       /* animation frames decoded into a buffer */
    uint64_t animation_bytes;      /* now: what the animations' frames and canvases
                                      hold, part of memory_cache_bytes */
} lazyimg_stats;

/* Fills *stats; on return struct_size holds the bytes filled.
 * Errors: INVALID_ARGUMENT (NULL, or struct_size neither sizeof(lazyimg_stats)
 * of a released header nor at least the library's own size). */
lazyimg_status lazyimg_get_stats(lazyimg_loader *loader, lazyimg_stats *stats);

/* Levels for lazyimg_trim_memory. */
#define LAZYIMG_TRIM_MODERATE 1 /* shrink the memory cache to half its limit */
#define LAZYIMG_TRIM_COMPLETE 2 /* empty the memory cache */

/* Shrinks the memory cache, images not used recently first: to half its
 * limit at MODERATE, to nothing at COMPLETE (which also drops the drawn
 * placeholders, since 0.4.0). Animation frames go first (since 0.4.0):
 * MODERATE drops the stopped animations' frames and canvases and the playing
 * ones' frames ahead of those shown, COMPLETE all of them. The cache only
 * drops its own references: images the host retained stay valid. COMPLETE then hands the
 * freed memory back to the system (glibc malloc_trim), which can take a few
 * milliseconds with a large heap: call it on a memory warning, not per frame.
 * NULL and unknown levels are ignored. */
void lazyimg_trim_memory(lazyimg_loader *loader, int level);

/* ------------------------------------------------------------- disk cache */

/* With disk_cache_dir set, lookups go memory, then disk (on a worker thread),
 * then network. lazyimg_lookup and lazyimg_lookup_url stay memory-only.
 * Freshness follows the server's Cache-Control: max-age=N is fresh for N
 * seconds, then revalidated with If-None-Match / If-Modified-Since (a 304
 * refreshes it without a download); no-cache is revalidated on every use;
 * no-store is never written; a response with neither max-age nor no-cache
 * stays fresh until evicted or removed.
 *
 * Since 0.4.0, credentials: an entry is filed under its URL and the loader's
 * http_headers with the origins they may go to (http_headers_origins), so a
 * response fetched with some headers (Authorization, Cookie, any other) is
 * never served to a loader or process with other headers or none; headers
 * that go to no origin (an empty http_headers_origins) count as none. The
 * directory is its user's private cache: Cache-Control: private responses
 * are kept, for the same credentials only. Vary: the entry keeps the
 * request's values of the fields it names (custom headers, User-Agent), and a
 * request with other values downloads again, replacing it (one copy per URL
 * and credentials); Vary: * is never written. */

/* Removes every entry of the loader's disk cache (other loaders and processes
 * sharing the directory see it empty too), and the responses its session keeps
 * for reuse (see "sessions"). Blocks for the file deletions: not
 * for a per-frame path. OK also when the loader has no disk cache.
 * Errors: INVALID_ARGUMENT (NULL), SHUTDOWN. */
lazyimg_status lazyimg_disk_cache_clear(lazyimg_loader *loader);

/* Removes `url` (copied) from the disk cache, its original and the thumbnails
 * of every box, from this loader's memory cache and from the responses its
 * session keeps for reuse, so the next request downloads it. Blocks for the file deletions. OK also when it was not cached
 * or the loader has no disk cache.
 * Errors: INVALID_ARGUMENT (NULL loader or url), SHUTDOWN. */
lazyimg_status lazyimg_disk_cache_remove_url(lazyimg_loader *loader, const char *url);

/* --------------------------------------------------------------- sessions */

/* A session is what loaders in one process share: one libcurl network thread
 * and its connections (max_concurrent_downloads for all of them together), one
 * table of downloads so that a URL is downloaded once however many loaders
 * want it with the same request (the same http_headers, origins, user agent
 * and limits: a loader with other credentials never joins another's download
 * nor gets its response; each decodes it into its own box; a loader that asks
 * for it up to 5 seconds after its download ended gets that response too, if
 * the disk cache could keep and serve it: 2xx, not no-store, not Vary: *,
 * fresh; the newest 4 MiB of such responses are kept), one disk cache, and one
 * memory budget for the decoded images all of them keep (memory_cache_bytes for all
 * of them together). Pass it in lazyimg_config.session. A loader made without
 * one has its own, as before. file:// URLs (allow_file_urls) are read by each
 * loader itself. Each loader keeps its own memory cache, within
 * its own memory_cache_bytes and the session's budget; the per-loader download
 * limit stays per loader.
 *
 * The memory budget: when an image makes the loaders' caches together exceed
 * it, the worker thread that inserted it evicts, after releasing its loader,
 * the oldest images across the loaders until they fit. "Oldest" is the order
 * of insertion into the caches, corrected by each loader's own recency: an
 * image a loader used again goes after that loader's images it did not use
 * again, but a memory hit does not move it past another loader's images
 * (that would cost every hit a shared counter). Bound: with no image being
 * inserted, the caches together are within the budget; while images are
 * inserted, over by at most one image per inserting decode thread. An image
 * larger than the whole budget is not kept in memory. Images the host holds
 * stay valid whatever is evicted. lazyimg_stats.memory_cache_bytes stays each
 * loader's own. */

/* Creates a session from the disk_cache_dir, disk_cache_bytes,
 * max_concurrent_downloads and memory_cache_bytes fields of `cfg` (NULL =
 * defaults: no disk cache, a 64 MiB memory budget); other fields are ignored.
 * memory_cache_bytes is the session's memory budget: 0 = no shared limit
 * (each loader only its own). On success *out is +1
 * reference: release it with lazyimg_session_destroy.
 * Errors: INVALID_ARGUMENT (out NULL, a bad field), IO (the disk cache
 * directory cannot be created, written or locked), NETWORK (libcurl could not
 * be initialised). */
lazyimg_status lazyimg_session_create(const lazyimg_config *cfg, lazyimg_session **out);

/* Drops the caller's reference; NULL is accepted. Loaders made with the session
 * keep theirs: the network thread stops when the last of them is destroyed, so
 * this may be called right after the loaders are created. Destroying a session
 * a second time is undefined behaviour (it drops a reference the caller no
 * longer holds, and may free the session under its loaders), as
 * sqlite3_close on a closed connection is: the library does not detect it. */
void lazyimg_session_destroy(lazyimg_session *session);

#ifdef __cplusplus
}
#endif

#endif /* LAZYIMG_H */

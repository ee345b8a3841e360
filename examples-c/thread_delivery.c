/*
 * thread_delivery.c: LAZYIMG_DELIVERY_THREAD.
 *
 * The callbacks run on the library's own delivery thread, one at a time, so
 * this program needs no event loop: the callback records each result under a
 * mutex and signals a condition variable the main thread waits on. (A GUI
 * toolkit would post the result to its UI thread here instead.) Exits
 * non-zero when an image failed. usage: thread_delivery URL...
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <lazyimg.h>

struct results {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t main_thread;
    size_t pending; /* rows whose result has not arrived */
    int failed;
};

static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct results *r = user_data;
    pthread_mutex_lock(&r->lock);
    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        printf("%s: %ux%u%s\n", ev->url, lazyimg_image_width(ev->image), lazyimg_image_height(ev->image),
               pthread_equal(pthread_self(), r->main_thread) ? " (on the main thread!)" : "");
    } else {
        printf("%s: %s (%s)\n", ev->url, lazyimg_strerror(ev->status), ev->message);
        r->failed = 1;
    }
    if (pthread_equal(pthread_self(), r->main_thread))
        r->failed = 1;
    r->pending--;
    pthread_cond_signal(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)argc - 1 : 0;
    struct results r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, pthread_self(), n, 0};

    lazyimg_config cfg;
    lazyimg_config_init(&cfg);
    cfg.on_event = on_event;
    cfg.user_data = &r;
    cfg.delivery = LAZYIMG_DELIVERY_THREAD;
    cfg.target_width = 96;
    cfg.target_height = 96;
    lazyimg_loader *loader;
    lazyimg_status st = lazyimg_loader_create(&cfg, &loader);
    if (st < 0) {
        fprintf(stderr, "lazyimg_loader_create: %s\n", lazyimg_strerror(st));
        return 1;
    }
    lazyimg_set_items(loader, (const char *const *)(argv + 1), n);
    for (size_t row = 0; row < n; row++) {
        lazyimg_image *img;
        uint64_t ticket;
        st = lazyimg_request(loader, row, &img, &ticket);
        if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED)
            continue; /* its callback counts it */
        pthread_mutex_lock(&r.lock);
        r.pending--;
        r.failed |= st != LAZYIMG_OK;
        pthread_mutex_unlock(&r.lock);
        lazyimg_image_release(img); /* NULL unless OK */
    }

    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&r.lock);
    while (r.pending > 0 && pthread_cond_timedwait(&r.changed, &r.lock, &deadline) == 0)
        ;
    size_t missing = r.pending;
    pthread_mutex_unlock(&r.lock);
    /* Waits for the delivery thread: no callback runs after this returns. */
    lazyimg_loader_destroy(loader);
    printf("thread_delivery: %zu images, %zu missing, %s\n", n, missing, r.failed ? "some failed" : "all arrived");
    return r.failed || missing > 0;
}

/* What the waking thread pays to wake a thread that is asleep. A UI thread's call
 * that finds the scheduler asleep wakes it with one eventfd write, so that write
 * must not become the new per-frame cost. Set beside it: a raw futex wake, the cheapest the kernel
 * offers, and pthread_cond_signal under a mutex, which is how the LazyTable
 * baseline wakes its network thread. The waker sleeps between wakes as a UI thread
 * does between frames, and the frames take the mechanisms in turn so that drift
 * and noise hit all three alike (make bench-wake). */
#define _GNU_SOURCE

#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { EVENTFD, FUTEX, COND, MECHANISMS };
static const char *const names[MECHANISMS] = {"eventfd write", "futex wake", "cond_signal + mutex"};

typedef struct {
    int kind;
    atomic_int asleep;      /* set just before the waiter blocks */
    atomic_uint woken;      /* wakes the waiter has returned from */
    atomic_uint_least64_t ran_ns; /* when it last returned */
    atomic_int stopping;
    int fd;                 /* EVENTFD */
    atomic_int word;        /* FUTEX */
    pthread_mutex_t lock;   /* COND, guarding pending */
    pthread_cond_t cond;
    int pending;
} waiter;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int pin(pthread_t thread, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(thread, sizeof set, &set);
}

static void *wait_loop(void *arg) {
    waiter *w = arg;
    if (pin(pthread_self(), 1) != 0) fprintf(stderr, "note: could not pin %s's waiter to CPU 1\n", names[w->kind]);
    while (!atomic_load(&w->stopping)) {
        if (w->kind == EVENTFD) {
            struct pollfd p = {.fd = w->fd, .events = POLLIN};
            atomic_store(&w->asleep, 1);
            while (poll(&p, 1, -1) != 1) continue;
            atomic_store(&w->ran_ns, now_ns());
            uint64_t value;
            ssize_t n = read(w->fd, &value, sizeof value); /* drain, as the scheduler does */
            (void)n;
        } else if (w->kind == FUTEX) {
            atomic_store(&w->asleep, 1);
            while (atomic_load(&w->word) == 0) syscall(SYS_futex, (int *)&w->word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
            atomic_store(&w->ran_ns, now_ns());
            atomic_store(&w->word, 0);
        } else {
            pthread_mutex_lock(&w->lock);
            while (!w->pending) {
                atomic_store(&w->asleep, 1);
                pthread_cond_wait(&w->cond, &w->lock);
            }
            atomic_store(&w->ran_ns, now_ns());
            w->pending = 0;
            pthread_mutex_unlock(&w->lock);
        }
        atomic_store(&w->asleep, 0);
        atomic_fetch_add(&w->woken, 1);
    }
    return NULL;
}

/* The whole of what the waker does, and all that is timed. */
static void wake(waiter *w) {
    if (w->kind == EVENTFD) {
        uint64_t one = 1;
        ssize_t n = write(w->fd, &one, sizeof one);
        (void)n;
    } else if (w->kind == FUTEX) {
        atomic_store(&w->word, 1);
        syscall(SYS_futex, (int *)&w->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    } else {
        /* Signalled with the lock held, as lazy_table_frame does. */
        pthread_mutex_lock(&w->lock);
        w->pending = 1;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);
    }
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double at(const uint64_t *sorted, int n, int percent) {
    int i = n * percent / 100;
    return (double)sorted[i < n ? i : n - 1] / 1e3;
}

/* One table: a row a mechanism, p50 set against the futex's and cond_signal's. */
static void table(const char *title, uint64_t *ns[MECHANISMS], const int count[MECHANISMS]) {
    double p50[MECHANISMS];
    for (int m = 0; m < MECHANISMS; m++) {
        qsort(ns[m], (size_t)count[m], sizeof ns[m][0], by_value);
        p50[m] = count[m] > 0 ? at(ns[m], count[m], 50) : 0;
    }
    printf("\n%s\n\n", title);
    printf("| mechanism | wakes | p50 us | p90 us | p99 us | max us | p50 / futex | p50 / cond_signal |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int m = 0; m < MECHANISMS; m++) {
        if (count[m] == 0) continue;
        int n = count[m];
        printf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2fx |\n", names[m], n, p50[m], at(ns[m], n, 90),
               at(ns[m], n, 99), (double)ns[m][n - 1] / 1e3, p50[m] / p50[FUTEX], p50[m] / p50[COND]);
    }
}

int main(int argc, char **argv) {
    int wakes = 2000, gap_ms = 4;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--wakes") == 0) wakes = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--gap-ms") == 0) gap_ms = atoi(argv[++i]);
        else wakes = 0;
    }
    if (wakes <= 0 || gap_ms <= 0) {
        fprintf(stderr, "usage: %s [--wakes N] [--gap-ms M]   (a UI frame is 16 ms)\n", argv[0]);
        return 2;
    }
    printf("command:");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\n%d wakes a mechanism, %d ms apart, waker on CPU 0 and waiters on CPU 1\n", wakes, gap_ms);
    if (pin(pthread_self(), 0) != 0) fprintf(stderr, "note: could not pin the waker to CPU 0\n");

    static waiter ws[MECHANISMS];
    pthread_t threads[MECHANISMS];
    uint64_t *call[MECHANISMS], *run[MECHANISMS];
    int count[MECHANISMS] = {0}, skipped[MECHANISMS] = {0};
    for (int m = 0; m < MECHANISMS; m++) {
        ws[m].kind = m;
        ws[m].fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); /* as lazyimg_eventfd_open */
        pthread_mutex_init(&ws[m].lock, NULL);
        pthread_cond_init(&ws[m].cond, NULL);
        call[m] = malloc((size_t)wakes * sizeof call[m][0]);
        run[m] = malloc((size_t)wakes * sizeof run[m][0]);
        if (ws[m].fd < 0 || !call[m] || !run[m] || pthread_create(&threads[m], NULL, wait_loop, &ws[m]) != 0) {
            perror("bench_wake setup");
            return 1;
        }
    }

    struct timespec gap = {gap_ms / 1000, (long)(gap_ms % 1000) * 1000000};
    for (int frame = 0; frame < MECHANISMS * wakes; frame++) {
        waiter *w = &ws[frame % MECHANISMS];
        int m = w->kind;
        clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, NULL);
        unsigned before = atomic_load(&w->woken);
        /* A waiter still running would make the wake a store, not a wake. */
        if (!atomic_load(&w->asleep)) {
            skipped[m]++;
            continue;
        }
        uint64_t start = now_ns();
        wake(w);
        uint64_t end = now_ns();
        while (atomic_load(&w->woken) == before) sched_yield();
        call[m][count[m]] = end - start;
        run[m][count[m]] = atomic_load(&w->ran_ns) - start;
        count[m]++;
    }

    for (int m = 0; m < MECHANISMS; m++) {
        atomic_store(&ws[m].stopping, 1);
        wake(&ws[m]);
        pthread_join(threads[m], NULL);
    }
    table("What the waker pays: the wake call alone", call, count);
    table("Wake to run: the wake call's start to the waiter's return", run, count);
    for (int m = 0; m < MECHANISMS; m++)
        if (skipped[m] > 0) printf("\n%s: %d wakes skipped, the waiter was not yet asleep\n", names[m], skipped[m]);
    for (int m = 0; m < MECHANISMS; m++) {
        free(call[m]);
        free(run[m]);
    }
    return 0;
}

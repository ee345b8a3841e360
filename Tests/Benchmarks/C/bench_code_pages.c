/* What a frame pays for the code pages it touches: a thread that sleeps 16 ms, as
 * a UI thread does between frames, then calls N tiny functions, each on a page of
 * its own or all of them packed 64 bytes apart. Same instructions, same calls;
 * only the number of code pages differs. Prints p50 and p90 per frame and the
 * ratio (make bench-code-pages; docs/performance.md, "Code pages"). */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FUNCTIONS 64
#define FRAMES 400

typedef uint64_t (*step_fn)(uint64_t);

/* Each function is x * k + k, k its number: too small to matter but for its place. */
#define STEP(name, align, k) \
    __attribute__((noinline, aligned(align))) static uint64_t name##k(uint64_t x) { return x * (k + 3) + k; }
#define STEPS8(name, align, b) STEP(name, align, b##0) STEP(name, align, b##1) STEP(name, align, b##2) \
    STEP(name, align, b##3) STEP(name, align, b##4) STEP(name, align, b##5) STEP(name, align, b##6) STEP(name, align, b##7)
#define STEPS64(name, align) STEPS8(name, align, 1) STEPS8(name, align, 2) STEPS8(name, align, 3) \
    STEPS8(name, align, 4) STEPS8(name, align, 5) STEPS8(name, align, 6) STEPS8(name, align, 7) STEPS8(name, align, 8)
#define LIST8(name, b) name##b##0, name##b##1, name##b##2, name##b##3, name##b##4, name##b##5, name##b##6, name##b##7
#define LIST64(name) LIST8(name, 1), LIST8(name, 2), LIST8(name, 3), LIST8(name, 4), \
    LIST8(name, 5), LIST8(name, 6), LIST8(name, 7), LIST8(name, 8)

STEPS64(paged, 4096)
STEPS64(packed, 64)

static const step_fn paged[FUNCTIONS] = {LIST64(paged)};
static const step_fn packed[FUNCTIONS] = {LIST64(packed)};

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* p50 and p90 of a frame that calls `calls` functions of `steps` after a 16 ms sleep. */
static void frames(const step_fn *steps, int calls, double *p50, double *p90, uint64_t *sink) {
    static uint64_t took[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        struct timespec pause = {0, 16000000};
        nanosleep(&pause, NULL);
        uint64_t start = now_ns();
        for (int i = 0; i < calls; i++) *sink = steps[(i * 37) % FUNCTIONS](*sink);
        took[f] = now_ns() - start;
    }
    qsort(took, FRAMES, sizeof took[0], by_value);
    *p50 = (double)took[FRAMES / 2] / 1e3;
    *p90 = (double)took[FRAMES * 9 / 10] / 1e3;
}

int main(void) {
    uint64_t sink = 1;
    printf("| calls | a page each p50 us | p90 | packed p50 us | p90 | p50 ratio |\n");
    printf("|---|---|---|---|---|---|\n");
    const int counts[] = {1, 8, 32, 64};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        double paged50, paged90, packed50, packed90;
        frames(paged, counts[c], &paged50, &paged90, &sink);
        frames(packed, counts[c], &packed50, &packed90, &sink);
        printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2fx |\n", counts[c], paged50, paged90, packed50, packed90,
               paged50 / packed50);
    }
    return sink == 0; /* keeps the calls */
}

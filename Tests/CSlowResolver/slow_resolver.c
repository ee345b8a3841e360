#define _GNU_SOURCE
#include "slow_resolver.h"

#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_NAMES 64
#define NAME_BYTES 256
#define LONGEST_DELAY_MS 60000

struct name_state {
    char name[NAME_BYTES];
    int delay_ms;
    int calls;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static struct name_state names[MAX_NAMES];
static int name_count;
/* Bumped by each release, so a lookup waiting across one stops waiting. */
static unsigned release_generation;
static int waiting;
static int most_waiting;

typedef int (*getaddrinfo_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);

static int is_test_name(const char *node) {
    static const char suffix[] = ".lazyimg.test";
    size_t length = strlen(node), suffix_length = sizeof suffix - 1;
    return length > suffix_length && strcasecmp(node + length - suffix_length, suffix) == 0;
}

/* With `lock` held. */
static struct name_state *find(const char *name, int create) {
    for (int i = 0; i < name_count; i++) {
        if (strcasecmp(names[i].name, name) == 0) return &names[i];
    }
    if (!create || name_count == MAX_NAMES || strlen(name) >= NAME_BYTES) return NULL;
    struct name_state *added = &names[name_count++];
    memset(added, 0, sizeof *added);
    strcpy(added->name, name);
    return added;
}

void lazyimg_slow_resolver_set_delay(const char *name, int delay_ms) {
    pthread_mutex_lock(&lock);
    struct name_state *state = find(name, 1);
    if (state) state->delay_ms = delay_ms < 0 ? 0 : (delay_ms > LONGEST_DELAY_MS ? LONGEST_DELAY_MS : delay_ms);
    pthread_mutex_unlock(&lock);
}

void lazyimg_slow_resolver_release(void) {
    pthread_mutex_lock(&lock);
    release_generation++;
    for (int i = 0; i < name_count; i++) {
        names[i].delay_ms = 0;
        names[i].calls = 0;
    }
    most_waiting = waiting;
    pthread_cond_broadcast(&released);
    pthread_mutex_unlock(&lock);
}

int lazyimg_slow_resolver_calls(const char *name) {
    pthread_mutex_lock(&lock);
    struct name_state *state = find(name, 0);
    int calls = state ? state->calls : 0;
    pthread_mutex_unlock(&lock);
    return calls;
}

int lazyimg_slow_resolver_waiting(void) {
    pthread_mutex_lock(&lock);
    int now = waiting;
    pthread_mutex_unlock(&lock);
    return now;
}

int lazyimg_slow_resolver_most_waiting(void) {
    pthread_mutex_lock(&lock);
    int most = most_waiting;
    pthread_mutex_unlock(&lock);
    return most;
}

/* Waits out the name's delay, or until a release. */
static void delay(const char *node) {
    pthread_mutex_lock(&lock);
    struct name_state *state = find(node, 1);
    int delay_ms = 0;
    if (state) {
        state->calls++;
        delay_ms = state->delay_ms;
    }
    if (delay_ms > 0) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += delay_ms / 1000;
        deadline.tv_nsec += (long)(delay_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        unsigned generation = release_generation;
        waiting++;
        if (waiting > most_waiting) most_waiting = waiting;
        while (generation == release_generation) {
            if (pthread_cond_timedwait(&released, &lock, &deadline) == ETIMEDOUT) break;
        }
        waiting--;
    }
    pthread_mutex_unlock(&lock);
}

static getaddrinfo_fn next;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void find_next(void) {
    next = (getaddrinfo_fn)dlsym(RTLD_NEXT, "getaddrinfo");
}

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
    pthread_once(&next_once, find_next);
    if (!next) return EAI_SYSTEM;
    if (node && is_test_name(node)) {
        delay(node);
        /* A list libc made, so libc's freeaddrinfo frees it. */
        struct addrinfo numeric = {0};
        if (hints) numeric = *hints;
        numeric.ai_flags |= AI_NUMERICHOST;
        numeric.ai_family = AF_INET;
        return next("127.0.0.1", service, &numeric, res);
    }
    return next(node, service, hints, res);
}

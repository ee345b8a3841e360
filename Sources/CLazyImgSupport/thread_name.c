#define _GNU_SOURCE
#include "lazyimg_support.h"

#include <pthread.h>
#include <string.h>

void lazyimg_thread_set_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = '\0';
    pthread_setname_np(pthread_self(), shortened);
}

#include "lazyimg_support.h"

#include <stddef.h>

/* The calling thread's innermost callback frame. Thread-local, so entering and
 * leaving a callback take no lock: before, a list of the threads inside a
 * callback, under a lock, cost every dispatch two holds of it. */
static _Thread_local lazyimg_callback_frame *innermost;

void lazyimg_callback_enter(lazyimg_callback_frame *frame) {
    frame->outer = innermost;
    innermost = frame;
}

void lazyimg_callback_leave(lazyimg_callback_frame *frame) {
    innermost = frame->outer;
}

int lazyimg_callback_running(const void *owner) {
    for (const lazyimg_callback_frame *frame = innermost; frame != NULL; frame = frame->outer) {
        if (frame->owner == owner) return 1;
    }
    return 0;
}

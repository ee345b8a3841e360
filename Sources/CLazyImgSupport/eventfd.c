#include "lazyimg_support.h"

#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

int lazyimg_eventfd_open(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

void lazyimg_eventfd_signal(int fd) {
    uint64_t one = 1;
    /* Only fails when the counter would overflow, which leaves it readable anyway. */
    ssize_t n = write(fd, &one, sizeof one);
    (void)n;
}

void lazyimg_eventfd_drain(int fd) {
    uint64_t value;
    /* EAGAIN means it was already zero. */
    ssize_t n = read(fd, &value, sizeof value);
    (void)n;
}

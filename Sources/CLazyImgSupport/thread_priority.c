#define _GNU_SOURCE
#include "lazyimg_support.h"

#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int lazyimg_thread_lower_priority(int steps) {
    /* On Linux the nice value belongs to the thread (the task), so a worker can
     * lower its own priority and leave the host's threads as they are. */
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, tid);
    if (nice == -1 && errno != 0) return -1;
    int wanted = nice + steps;
    if (wanted > 19) wanted = 19;
    if (setpriority(PRIO_PROCESS, tid, wanted) != 0) return -1;
    return lazyimg_thread_set_batch();
}

int lazyimg_thread_set_batch(void) {
    /* SCHED_BATCH keeps the nice value and tells the kernel the thread is not
     * interactive: woken by the host (a job queued), it does not preempt the
     * host's thread, which would otherwise wait out the worker's time slice
     * inside the call that woke it. */
    struct sched_param param = {0};
    return sched_setscheduler(0, SCHED_BATCH, &param);
}

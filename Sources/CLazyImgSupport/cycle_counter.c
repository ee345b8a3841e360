#include "lazyimg_support.h"

#include <stdio.h>
#include <string.h>

int lazyimg_cycles_keep_time(void) {
#if defined(__x86_64__)
    /* The kernel keeps time by the TSC only when it found it constant, running in
     * every power state and in step on every core: then so may we. */
    FILE *file = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (file == NULL) return 0;
    char name[32] = {0};
    int tsc = fgets(name, sizeof name, file) != NULL && strcmp(name, "tsc\n") == 0;
    fclose(file);
    return tsc;
#else
    return 0;
#endif
}

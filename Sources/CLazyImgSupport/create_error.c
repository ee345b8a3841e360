#include "lazyimg_support.h"

#include <stdio.h>

/* Per thread, so a create on one thread never overwrites another's reason. */
static _Thread_local char create_error[512];

void lazyimg_create_error_set(const char *text) {
    snprintf(create_error, sizeof create_error, "%s", text ? text : "");
}

const char *lazyimg_create_error_get(void) {
    return create_error;
}

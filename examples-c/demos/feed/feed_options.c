/*
 * feed_options.c: the feed demos' common options (feed_options.h).
 */
#include "feed_options.h"

#include <stdlib.h>
#include <string.h>

#define WAIT_MS 60000 /* a script's `wait`: a stuck run fails, a slow machine does not */
#define GRACE_MS 200  /* most requests take a millisecond to reach the server; the
                         connection limit per host queues some behind its slow first
                         answers */

void feed_options_init(struct feed_options *o)
{
    memset(o, 0, sizeof *o);
    o->photos = "../shared/corpus/photos";
    o->wait_ms = WAIT_MS;
    o->grace_ms = GRACE_MS;
}

int feed_options_take(struct feed_options *o, int argc, char **argv, int *i)
{
    static const char *const numbers[] = {"--latency-ms", "--page-size", "--pages", "--wait-ms", "--grace-ms"};
    unsigned *const targets[] = {&o->latency_ms, &o->page_size, &o->pages, &o->wait_ms, &o->grace_ms};
    const char *arg = argv[*i], *value = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(arg, "--quiet") == 0) {
        o->quiet = 1;
        return 1;
    }
    const char **text = strcmp(arg, "--script") == 0 ? &o->script : strcmp(arg, "--photos") == 0 ? &o->photos : NULL;
    unsigned *number = NULL;
    for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; k++)
        if (strcmp(arg, numbers[k]) == 0)
            number = targets[k];
    if (text == NULL && number == NULL)
        return 0;
    if (value == NULL)
        return -1;
    if (text != NULL)
        *text = value;
    else
        *number = (unsigned)strtoul(value, NULL, 10);
    ++*i;
    return 1;
}

struct feed_server *feed_options_start_server(const struct feed_options *o)
{
    struct feed_server_options so = {o->photos, o->latency_ms, o->page_size, o->pages};
    return feed_server_start(&so);
}

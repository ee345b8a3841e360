/*
 * feed_options.h: the command-line options both feed demos take (termlist,
 * gtk-feed): their feed server's, and their scripted run's.
 */
#ifndef FEED_OPTIONS_H
#define FEED_OPTIONS_H

#include "feed_server.h"

struct feed_options {
    const char *script;       /* --script FILE|builtin: replay it, check, exit; NULL = none */
    const char *photos;       /* --photos DIR: the server's kodimNN.png */
    unsigned latency_ms;      /* --latency-ms N: added to every response */
    unsigned page_size, pages; /* --page-size N, --pages N: as feed_server_options */
    unsigned wait_ms;         /* --wait-ms N: the longest a script's `wait` may take */
    unsigned grace_ms;        /* --grace-ms N: a request may reach the server this long after
                                 the loader started it (feed_checks_downloads) */
    int quiet;                /* --quiet: no figures, only failures and the verdict */
};

/* The defaults: ../shared/corpus/photos, a minute's wait, 200 ms of grace. */
void feed_options_init(struct feed_options *o);

/* Takes argv[*i], and its value, when it is one of these options, moving *i
 * past them: 1. 0 when it is another option; -1 when its value is missing. */
int feed_options_take(struct feed_options *o, int argc, char **argv, int *i);

/* Starts the feed server these options describe; NULL (with a message) on failure. */
struct feed_server *feed_options_start_server(const struct feed_options *o);

#endif

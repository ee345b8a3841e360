/* bench_list.c: see bench_list.h. */
#include "bench_list.h"

#include <stdio.h>

void bench_jpeg_rows(const image_server *server, int count, char (*urls)[64], const char **rows) {
    for (int i = 0; i < count; i++) {
        image_server_jpeg_url(server, i, urls[i], sizeof urls[i]);
        rows[i] = urls[i];
    }
}

lazyimg_loader *bench_thumbnail_loader(const char *const *rows, size_t count) {
    lazyimg_config cfg;
    lazyimg_config_init(&cfg);
    cfg.target_width = 64;
    cfg.target_height = 64;
    lazyimg_loader *loader = NULL;
    lazyimg_status status = lazyimg_loader_create(&cfg, &loader);
    if (status == LAZYIMG_OK && count > 0) status = lazyimg_set_items(loader, rows, count);
    if (status != LAZYIMG_OK) {
        fprintf(stderr, "bench: %s\n", lazyimg_strerror(status));
        lazyimg_loader_destroy(loader);
        return NULL;
    }
    return loader;
}

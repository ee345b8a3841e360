/* bench_list.c: see bench_list.h. */
#include "bench_list.h"

#include <stdint.h>
#include <stdio.h>

lazyimg_loader *bench_open_list(image_server **server, int count, char (*urls)[64], const char **rows) {
    *server = image_server_start();
    if (!*server) return NULL;
    for (int i = 0; i < count; i++) {
        image_server_jpeg_url(*server, i, urls[i], sizeof urls[i]);
        rows[i] = urls[i];
    }
    lazyimg_loader *loader = bench_thumbnail_loader(rows, (size_t)count);
    if (!loader) {
        image_server_stop(*server);
        *server = NULL;
    }
    return loader;
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

void bench_request_rows(lazyimg_loader *loader, size_t count) {
    for (size_t row = 0; row < count; row++) {
        lazyimg_image *image = NULL;
        uint64_t ticket = 0;
        lazyimg_request(loader, row, &image, &ticket);
        lazyimg_image_release(image);
    }
}

int bench_wait_cached(lazyimg_loader *loader, size_t count) {
    lazyimg_stats stats = {.struct_size = sizeof stats};
    for (int waits = 0; waits < 1000; waits++) {
        lazyimg_get_stats(loader, &stats);
        if (stats.memory_cache_count >= count) return 0;
        lazyimg_wait(loader, 1000);
        lazyimg_dispatch(loader, 0);
    }
    fprintf(stderr, "bench: only %llu of %zu images cached\n", (unsigned long long)stats.memory_cache_count, count);
    return -1;
}

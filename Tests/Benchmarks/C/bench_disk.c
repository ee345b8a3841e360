/*
 * bench_disk.c: what the disk cache buys. Prints milliseconds and images per
 * second next to baselines measured in the same run:
 *   - warm start: from lazyimg_loader_create to every row of the first screen
 *     delivered, with the thumbnails for this box on disk (the restart case);
 *   - cold from disk: the same with only the original files on disk (a box not
 *     used before), so each row is read and decoded;
 *   - network: the same with an empty cache directory (loopback HTTP + decode),
 *     the baseline the two above are compared with;
 *   - disk-hit throughput: every row of a 256-row list through one loader, from
 *     thumbnails and from originals, against the floor of reading the same
 *     original files with plain read() and decoding them with TurboJPEG at the
 *     DCT scale that covers the box, one thread, no resampling.
 * A benchmark, not a test: it prints numbers and never fails on them.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "image_server.h"
#include "lazyimg.h"

#define ROWS 256
#define SCREEN 12
#define RUNS 7

static char urls[ROWS][64];
static const char *rows[ROWS];

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Creates a loader on `dir` for a box, shows the first `count` rows, waits for
 * their events and destroys it. Returns the milliseconds from create to the last
 * event; *disk_answers counts events whose source was DISK. */
static double show_rows(const char *dir, uint32_t box, size_t count, int *disk_answers) {
    double start = now_ms();
    lazyimg_config cfg;
    lazyimg_config_init(&cfg);
    cfg.target_width = box;
    cfg.target_height = box;
    cfg.disk_cache_dir = dir;
    cfg.max_concurrent_downloads = 16;
    cfg.prefetch_rows = 0; /* only the rows shown: the figures are per row */
    lazyimg_loader *loader = NULL;
    if (lazyimg_loader_create(&cfg, &loader) != LAZYIMG_OK) {
        fprintf(stderr, "bench-disk: cannot create a loader on %s\n", dir);
        exit(1);
    }
    lazyimg_set_items(loader, rows, ROWS);
    lazyimg_set_visible_range(loader, 0, count);
    size_t waiting = 0;
    for (size_t row = 0; row < count; row++) {
        lazyimg_image *image = NULL;
        uint64_t ticket = 0;
        if (lazyimg_request(loader, row, &image, &ticket) == LAZYIMG_PENDING) waiting++;
        lazyimg_image_release(image);
    }
    lazyimg_stats stats;
    while (waiting > 0) {
        lazyimg_wait(loader, 5000);
        waiting -= lazyimg_dispatch(loader, 0);
    }
    double elapsed = now_ms() - start;
    stats.struct_size = sizeof stats;
    lazyimg_get_stats(loader, &stats);
    *disk_answers = (int)stats.disk_hits + (int)stats.disk_revalidations;
    lazyimg_loader_destroy(loader);
    return elapsed;
}

/* The original files in a cache directory, read as plain files, each decoded by
 * TurboJPEG at the smallest DCT scale whose larger side still covers the box. */
static double floor_images_per_second(const char *dir, uint32_t box, int *files) {
    tjhandle tj = tjInitDecompress();
    int factor_count = 0;
    tjscalingfactor *factors = tjGetScalingFactors(&factor_count);
    unsigned char *pixels = malloc(4096 * 4096 * 4);
    unsigned char *file = malloc(64 << 20);
    double start = now_ms();
    *files = 0;
    for (int shard = 0; shard < 256; shard++) {
        char shard_path[4200];
        snprintf(shard_path, sizeof shard_path, "%s/%02x", dir, shard);
        DIR *d = opendir(shard_path);
        if (!d) continue;
        struct dirent *entry;
        while ((entry = readdir(d)) != NULL) {
            if (entry->d_name[0] == '.') continue;
            char path[4600];
            snprintf(path, sizeof path, "%s/%s", shard_path, entry->d_name);
            int fd = open(path, O_RDONLY);
            if (fd < 0) continue;
            ssize_t size = read(fd, file, 64 << 20);
            close(fd);
            if (size < 48) continue;
            /* The entry's last `body length` bytes are the file as downloaded. */
            uint64_t body_length = 0;
            for (int i = 0; i < 8; i++) body_length |= (uint64_t)file[12 + i] << (8 * i);
            if (body_length > (uint64_t)size || body_length < 2) continue;
            unsigned char *body = file + (size - (ssize_t)body_length);
            if (body[0] != 0xFF || body[1] != 0xD8) continue; /* a thumbnail */
            int width, height, subsampling, colorspace;
            if (tjDecompressHeader3(tj, body, (unsigned long)body_length, &width, &height, &subsampling, &colorspace) != 0) continue;
            tjscalingfactor best = {1, 1};
            int best_side = width > height ? width : height;
            for (int i = 0; i < factor_count; i++) {
                int w = TJSCALED(width, factors[i]), h = TJSCALED(height, factors[i]);
                int side = w > h ? w : h;
                if ((uint32_t)side >= box && side < best_side) {
                    best = factors[i];
                    best_side = side;
                }
            }
            int w = TJSCALED(width, best), h = TJSCALED(height, best);
            if (w > 4096 || h > 4096) continue;
            tjDecompress2(tj, body, (unsigned long)body_length, pixels, w, 0, h, TJPF_RGBA, 0);
            (*files)++;
        }
        closedir(d);
    }
    double elapsed = now_ms() - start;
    free(file);
    free(pixels);
    tjDestroy(tj);
    return *files / (elapsed / 1e3);
}

static void make_temp_dir(char *path, size_t size) {
    snprintf(path, size, "/tmp/lazyimg-bench-disk-XXXXXX");
    if (!mkdtemp(path)) {
        perror("mkdtemp");
        exit(1);
    }
}

static void remove_tree(const char *path) {
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", path);
    if (system(command) != 0) fprintf(stderr, "bench-disk: could not remove %s\n", path);
}

int main(void) {
    image_server *server = image_server_start();
    if (!server) return 1;
    for (int i = 0; i < ROWS; i++) {
        image_server_jpeg_url(server, i, urls[i], sizeof urls[i]);
        rows[i] = urls[i];
    }
    char root[64], dir[128];
    make_temp_dir(root, sizeof root);
    int answers = 0;

    /* Every list row on disk as an original, with the thumbnails of box 96. The
     * server generates each image on its first request: done here, untimed. */
    snprintf(dir, sizeof dir, "%s/cache", root);
    show_rows(dir, 96, ROWS, &answers);

    double network[RUNS], warm[RUNS], cold[RUNS];
    int warm_disk = 0, cold_disk = 0;
    for (int run = 0; run < RUNS; run++) {
        char empty[128];
        snprintf(empty, sizeof empty, "%s/empty%d", root, run);
        network[run] = show_rows(empty, 96, SCREEN, &answers);
        warm[run] = show_rows(dir, 96, SCREEN, &answers);
        warm_disk += answers;
        cold[run] = show_rows(dir, (uint32_t)(40 + run), SCREEN, &answers); /* a box never used */
        cold_disk += answers;
    }
    qsort(network, RUNS, sizeof network[0], compare_doubles);
    qsort(warm, RUNS, sizeof warm[0], compare_doubles);
    qsort(cold, RUNS, sizeof cold[0], compare_doubles);

    double thumbs_start = now_ms();
    show_rows(dir, 96, ROWS, &answers);
    double thumbs_rate = ROWS / ((now_ms() - thumbs_start) / 1e3);
    int thumbs_disk = answers;
    double originals_start = now_ms();
    show_rows(dir, 80, ROWS, &answers);
    double originals_rate = ROWS / ((now_ms() - originals_start) / 1e3);
    int originals_disk = answers;
    int files = 0;
    double floor_rate = floor_images_per_second(dir, 80, &files);

    printf("disk cache benchmark: %d-row list of 320x240 JPEGs from a loopback server, first screen %d rows,\n", ROWS, SCREEN);
    printf("median of %d runs; liblazyimg with its default decode threads\n\n", RUNS);
    printf("%-52s %10s %12s\n", "first screen, create to last row shown", "ms", "vs network");
    printf("%-52s %10.2f %12.2f   (%d/%d rows from disk)\n", "warm start: thumbnails on disk", warm[RUNS / 2],
           warm[RUNS / 2] / network[RUNS / 2], warm_disk, RUNS * SCREEN);
    printf("%-52s %10.2f %12.2f   (%d/%d rows from disk)\n", "cold from disk: originals only, decoded", cold[RUNS / 2],
           cold[RUNS / 2] / network[RUNS / 2], cold_disk, RUNS * SCREEN);
    printf("%-52s %10.2f %12.2f\n", "baseline: empty cache, loopback HTTP + decode", network[RUNS / 2], 1.0);
    printf("\n%-52s %10s %12s\n", "disk-hit throughput, whole list", "images/s", "vs floor");
    printf("%-52s %10.0f %12.2f   (%d/%d from disk)\n", "lazyimg: thumbnails on disk", thumbs_rate,
           thumbs_rate / floor_rate, thumbs_disk, ROWS);
    printf("%-52s %10.0f %12.2f   (%d/%d from disk)\n", "lazyimg: originals on disk, decoded to 80x80", originals_rate,
           originals_rate / floor_rate, originals_disk, ROWS);
    printf("%-52s %10.0f %12.2f   (%d files)\n", "floor: read() + TurboJPEG at DCT scale, 1 thread", floor_rate, 1.0, files);

    image_server_stop(server);
    remove_tree(root);
    return 0;
}

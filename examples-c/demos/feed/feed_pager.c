/*
 * feed_pager.c: the paged feed's rows (feed_pager.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "feed_pager.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRY_MS 1000

int feed_pager_start(struct feed_pager *p, lazyimg_loader *loader, const char *first_page,
                     size_t paging_distance, struct feed_checks *checks)
{
    memset(p, 0, sizeof *p);
    p->next_page = strdup(first_page);
    p->paging_distance = paging_distance;
    if (p->next_page == NULL)
        return -1;
    lazyimg_status st = lazyimg_set_paging(loader, paging_distance, 1);
    feed_expect(checks, st == LAZYIMG_OK, "lazyimg_set_paging: %s", lazyimg_strerror(st));
    return 0;
}

/* NEED_PAGE: fetch the next page unless one is on the way or the feed ended. */
static void fetch_next_page(struct feed_pager *p, lazyimg_loader *loader, struct feed_checks *checks)
{
    if (p->ticket != 0 || p->next_page == NULL)
        return;
    uint64_t ticket;
    lazyimg_status st = lazyimg_fetch(loader, p->next_page, &ticket);
    if (st < 0) {
        snprintf(p->error, sizeof p->error, "feed: %s", lazyimg_strerror(st));
        p->retry_at = feed_now_ms() + RETRY_MS;
        return;
    }
    feed_checks_ticket(checks, ticket);
    p->ticket = ticket;
    p->fetches++;
}

/* The path of an absolute URL, as a server logs it: from the first '/' after
 * the host, without the query. malloc'd; NULL when there is none. */
static char *url_path(const char *url)
{
    const char *scheme = strstr(url, "://");
    const char *path = scheme ? strchr(scheme + 3, '/') : NULL;
    return path ? strndup(path, strcspn(path, "?#")) : NULL;
}

/* A page arrived: append its items and tell the loader whether more follow. */
static void page_arrived(struct feed_pager *p, lazyimg_loader *loader, struct feed_checks *checks,
                         const uint8_t *data, size_t size)
{
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(root, "items");
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(root, "next");
    const cJSON *item;
    size_t n = (size_t)cJSON_GetArraySize(items), added = 0;
    const char **urls = malloc((n ? n : 1) * sizeof *urls);
    const char **hashes = malloc((n ? n : 1) * sizeof *hashes);
    if (root == NULL || !cJSON_IsArray(items) || urls == NULL || hashes == NULL) {
        snprintf(p->error, sizeof p->error, "feed: not a page (%zu bytes)", size);
        p->retry_at = feed_now_ms() + RETRY_MS;
        cJSON_Delete(root);
        free(urls);
        free(hashes);
        return;
    }
    if (p->count + n > p->capacity) {
        size_t capacity = (p->count + n) * 2;
        struct feed_item *grown = realloc(p->items, capacity * sizeof *grown);
        if (grown == NULL)
            n = 0;
        else
            p->items = grown, p->capacity = capacity;
    }
    cJSON_ArrayForEach(item, items) {
        const cJSON *title = cJSON_GetObjectItemCaseSensitive(item, "title");
        const cJSON *image = cJSON_GetObjectItemCaseSensitive(item, "image");
        const cJSON *width = cJSON_GetObjectItemCaseSensitive(item, "width");
        const cJSON *height = cJSON_GetObjectItemCaseSensitive(item, "height");
        const cJSON *blurhash = cJSON_GetObjectItemCaseSensitive(item, "blurhash");
        if (added == n)
            break;
        struct feed_item *it = &p->items[p->count + added];
        it->title = strdup(cJSON_IsString(title) ? title->valuestring : "(untitled)");
        it->image_path = cJSON_IsString(image) ? url_path(image->valuestring) : NULL;
        it->width = cJSON_IsNumber(width) && width->valuedouble > 0 ? (unsigned)width->valuedouble : 0;
        it->height = cJSON_IsNumber(height) && height->valuedouble > 0 ? (unsigned)height->valuedouble : 0;
        hashes[added] = cJSON_IsString(blurhash) ? blurhash->valuestring : NULL; /* copied, as the URLs */
        p->hashes_given += hashes[added] != NULL;
        urls[added++] = cJSON_IsString(image) ? image->valuestring : NULL; /* copied by the loader */
    }
    /* The last page: stop the NEED_PAGE events before the rows go in. Otherwise
     * appending re-arms paging by itself. */
    if (!cJSON_IsString(next))
        lazyimg_set_paging(loader, p->paging_distance, 0);
    double told_at = feed_now_ms(); /* the loader may start downloads before the call returns */
    lazyimg_status st = lazyimg_append_items(loader, urls, added);
    feed_expect(checks, st == LAZYIMG_OK, "lazyimg_append_items: %s", lazyimg_strerror(st));
    /* The feed's hashes for the rows just added: a bad one costs only its row. */
    size_t bad_row;
    const char *why;
    st = lazyimg_set_placeholders(loader, p->count, LAZYIMG_PLACEHOLDER_BLURHASH, hashes, added, &bad_row, &why);
    feed_expect(checks, st == LAZYIMG_OK, "lazyimg_set_placeholders: %s (row %zu: %s)", lazyimg_strerror(st), bad_row,
                why);
    p->count += added;
    scroll_windows_told_rows(&checks->windows, told_at, p->count);
    p->pages++;
    free(p->next_page);
    p->next_page = cJSON_IsString(next) ? strdup(next->valuestring) : NULL;
    p->error[0] = '\0';
    free(urls);
    free(hashes);
    cJSON_Delete(root);
}

int feed_pager_event(struct feed_pager *p, lazyimg_loader *loader, struct feed_checks *checks,
                     const lazyimg_event *ev)
{
    if (ev->type == LAZYIMG_EVENT_NEED_PAGE) {
        feed_expect(checks, ev->ticket == 0 && ev->row == p->count, "NEED_PAGE: ticket %" PRIu64 ", row %zu of %zu",
                    ev->ticket, ev->row, p->count);
        p->need_page_events++;
        fetch_next_page(p, loader, checks);
        return 1;
    }
    if (ev->ticket == 0 || ev->ticket != p->ticket)
        return 0;
    feed_checks_event(checks, ev->ticket);
    p->ticket = 0;
    if (ev->type == LAZYIMG_EVENT_DATA) {
        page_arrived(p, loader, checks, ev->data, ev->data_size);
    } else if (ev->status != LAZYIMG_E_CANCELLED) { /* cancelled: by destroy, at the end */
        p->failures++;
        snprintf(p->error, sizeof p->error, "feed: %s", ev->message);
        p->retry_at = feed_now_ms() + RETRY_MS;
    }
    return 1;
}

void feed_pager_poll(struct feed_pager *p, lazyimg_loader *loader, double now_ms)
{
    if (p->retry_at > 0 && now_ms >= p->retry_at) {
        p->retry_at = 0;
        lazyimg_set_paging(loader, p->paging_distance, p->next_page != NULL); /* re-arms: asks again */
    }
}

void feed_pager_free(struct feed_pager *p)
{
    for (size_t i = 0; i < p->count; i++) {
        free(p->items[i].title);
        free(p->items[i].image_path);
    }
    free(p->items);
    free(p->next_page);
    memset(p, 0, sizeof *p);
}

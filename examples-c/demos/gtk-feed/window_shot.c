/*
 * window_shot.c: a widget rendered to pixels (window_shot.h).
 */
#include "window_shot.h"

#include <math.h>
#include <string.h>

int window_shot_take(struct window_shot *shot, GtkWidget *widget)
{
    int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    GtkNative *native = gtk_widget_get_native(widget);
    GskRenderer *renderer = native != NULL ? gtk_native_get_renderer(native) : NULL;
    memset(shot, 0, sizeof *shot);
    if (width <= 0 || height <= 0 || renderer == NULL)
        return -1;
    GdkPaintable *paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, GDK_SNAPSHOT(snapshot), width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    graphene_rect_t viewport = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
    if (node != NULL)
        shot->texture = gsk_renderer_render_texture(renderer, node, &viewport);
    if (node != NULL)
        gsk_render_node_unref(node);
    g_object_unref(paintable);
    if (shot->texture == NULL)
        return -1;
    shot->width = gdk_texture_get_width(shot->texture);
    shot->height = gdk_texture_get_height(shot->texture);
    shot->stride = (gsize)shot->width * 4;
    shot->pixels = g_malloc(shot->stride * (gsize)shot->height);
    gdk_texture_download(shot->texture, shot->pixels, shot->stride);
    return 0;
}

unsigned window_shot_colours(const struct window_shot *shot, const graphene_rect_t *area, unsigned enough)
{
    guint32 seen[256];
    unsigned count = 0;
    int x0 = (int)ceil(area->origin.x), y0 = (int)ceil(area->origin.y);
    int x1 = (int)floor(area->origin.x + area->size.width), y1 = (int)floor(area->origin.y + area->size.height);
    if (enough > sizeof seen / sizeof seen[0])
        enough = sizeof seen / sizeof seen[0];
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > shot->width ? shot->width : x1;
    y1 = y1 > shot->height ? shot->height : y1;
    for (int y = y0; y < y1 && count < enough; y++)
        for (int x = x0; x < x1 && count < enough; x++) {
            guint32 px;
            unsigned k = 0;
            memcpy(&px, shot->pixels + (gsize)y * shot->stride + (gsize)x * 4, 4);
            while (k < count && seen[k] != px)
                k++;
            if (k == count)
                seen[count++] = px;
        }
    return count;
}

int window_shot_save(const struct window_shot *shot, const char *path)
{
    return shot->texture != NULL && gdk_texture_save_to_png(shot->texture, path) ? 0 : -1;
}

void window_shot_free(struct window_shot *shot)
{
    if (shot->texture != NULL)
        g_object_unref(shot->texture);
    g_free(shot->pixels);
    memset(shot, 0, sizeof *shot);
}

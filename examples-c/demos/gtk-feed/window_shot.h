/*
 * window_shot.h: a widget as it is on screen, as pixels: its render nodes
 * (GtkWidgetPaintable) rendered to a texture by its window's own renderer.
 */
#ifndef WINDOW_SHOT_H
#define WINDOW_SHOT_H

#include <gtk/gtk.h>

struct window_shot {
    GdkTexture *texture; /* +1 reference */
    guchar *pixels;      /* gdk_texture_download's layout: Cairo ARGB32 (B,G,R,A bytes
                            on little-endian), premultiplied */
    gsize stride;
    int width, height;
};

/* Renders `widget` (drawn at least once). 0, or -1 when it has no size or renderer. */
int window_shot_take(struct window_shot *shot, GtkWidget *widget);

/* How many distinct colours the area holds (clipped to the shot), counting up
 * to `enough`: 1 for a flat fill, 2 for a checker, hundreds for a photo. */
unsigned window_shot_colours(const struct window_shot *shot, const graphene_rect_t *area, unsigned enough);

/* Writes the shot as a PNG. 0 or -1. */
int window_shot_save(const struct window_shot *shot, const char *path);

void window_shot_free(struct window_shot *shot);

#endif

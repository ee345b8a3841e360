/*
 * gtk_feed.c: a GTK 4 photo feed driven by lazyimg, the terminal demo's paged
 * feed (examples-c/demos/feed) in a GtkListView.
 *
 * Each row shows a thumbnail, a GdkMemoryTexture over the loader's own pixels
 * (no copy: the texture holds a reference to the lazyimg image), in the memory
 * format GTK 4.8's renderers take as it is, with a checker while it loads.
 * The loader's event fd is a GLib source; the scroll state comes from GTK's own
 * scrolling (scroll_observer.h), read on every frame-clock tick. Animated GIF
 * and WebP rows play: on each tick the visible cells ask lazyimg_frame_at for
 * the frame due since they appeared, and get a new texture when it changed.
 *
 * With --script it replays a scripted wheel drag and flings into GTK's scroll
 * controllers (scripted_input.h), checks what the terminal demo checks
 * (feed_checks.h) and that the thumbnails on screen are not blank, read from a
 * screenshot of the window that --screenshot writes, that an animated cell
 * advanced while visible and no frame was decoded while none was
 * (animation_watch.h), and that every lazyimg image a texture held was released. It exits non-zero when an expectation
 * fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <glib-unix.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animation_watch.h"
#include "feed_checks.h"
#include "feed_options.h"
#include "feed_pager.h"
#include "feed_server.h"
#include "lazyimg.h"
#include "scripted_input.h"
#include "scroll_observer.h"
#include "window_shot.h"

#define THUMB_W 160       /* the thumbnail box, in pixels; images are cropped to fill it */
#define THUMB_H 120
#define WINDOW_W 520
#define WINDOW_H 780
#define NOMINAL_ROW_H (THUMB_H + 8) /* until the list has rows to measure */
#define PHOTO_COLOURS 64  /* a thumbnail area with fewer colours is blank */
#define MIN_SHOWN_PX 8    /* rows showing less of their thumbnail are not judged */
#define ANIMATION_BUFFER (1 << 20) /* decoded frames an animation keeps ahead */

/* The pixel format of the loader's images and of their textures: the same four
 * bytes. GTK 4.8 uploads B8G8R8A8_PREMULTIPLIED to desktop GL as it is (GL_BGRA)
 * and the cairo renderer draws through Cairo ARGB32, which is that layout on
 * little-endian, so neither converts; a straight-alpha format (lazyimg's
 * default RGBA8) would be premultiplied on every upload. */
#define TEXTURE_FORMAT GDK_MEMORY_B8G8R8A8_PREMULTIPLIED
#define LOADER_FORMAT LAZYIMG_PIXEL_BGRA8_PREMULTIPLIED

static const char builtin_script[] =
    "wait\n"
    "idle 60         # a second at the top: rows 1 and 2 play their animations\n"
    "wheel 5         # about four rows down, no animated row on screen: their decoding stops\n"
    "wait\n"
    "idle 60\n"
    "wheel -5\n"
    "wait\n"
    "wheel 4         # four wheel steps down, a frame each: DRAGGING; the next page is asked for\n"
    "wait\n"
    "fling 240       # a fast release: GTK decelerates past the loaded rows; DEFERRED while fast\n"
    "wait\n"
    "fling -90       # back up a little\n"
    "wait\n"
    "fling 400       # and down again, into the pages that follow\n"
    "wait\n";

/* A row widget, as the list's factory made it; shows one row at a time. */
struct cell {
    GtkWidget *root, *picture, *title, *detail;
    size_t row;           /* SIZE_MAX = unbound */
    uint64_t ticket;      /* 0 = none */
    int has_image;        /* the picture shows the row's thumbnail */
    int deferred;         /* the request answered DEFERRED */
    int ask_again;        /* its ticket was cancelled while it still shows the row */
    lazyimg_status error; /* LAZYIMG_OK = none */
    /* An animated image: its frames, since when the cell shows it (the
     * animation's clock), the frame shown and how often it changed. */
    uint32_t frames;
    double shown_since;
    uint32_t frame_index;
    unsigned advances;
};

struct options {
    struct feed_options run; /* the server's and the script's */
    const char *screenshot;
};

struct app {
    struct options opt;
    lazyimg_loader *loader;
    struct feed_server *server;
    struct feed_pager pager;
    struct feed_checks checks;
    struct animation_watch watch;
    GMainLoop *loop;
    GtkWidget *window, *status;
    GtkScrolledWindow *scrolled;
    GtkStringList *model;   /* a title per row */
    GHashTable *bound;      /* row -> struct cell *, the rows the list has bound */
    GdkTexture *loading, *failed; /* placeholders */
    struct scroll_observer observer;
    double row_height;      /* pixels */
    size_t first, visible;  /* what lazyimg_set_visible_range was told */
    int has_range;
    unsigned images_held;   /* lazyimg images that textures hold now */
    unsigned long textures_made;
    unsigned long coasting_frames; /* frames GTK moved the list with no input */
    double coasted_rows;
    struct scripted_input *script;
    int finished;           /* the script ran out, or the window closed */
    char status_text[256];
};

/* -------------------------------------------------------------- textures */

/* What a texture's pixel buffer keeps alive: the lazyimg image it points into. */
struct held_image {
    struct app *app;
    lazyimg_image *image; /* +1 reference */
};

static void held_image_release(gpointer data)
{
    struct held_image *held = data;
    lazyimg_image_release(held->image);
    held->app->images_held--;
    g_free(held);
}

/* A texture over the image's own pixels; it takes its own reference. */
static GdkTexture *texture_for(struct app *a, lazyimg_image *image)
{
    struct held_image *held = g_new(struct held_image, 1);
    size_t stride = lazyimg_image_stride(image);
    uint32_t height = lazyimg_image_height(image);
    held->app = a;
    held->image = lazyimg_image_retain(image);
    a->images_held++;
    a->textures_made++;
    GBytes *bytes = g_bytes_new_with_free_func(lazyimg_image_pixels(image), stride * height, held_image_release, held);
    GdkTexture *texture = gdk_memory_texture_new((int)lazyimg_image_width(image), (int)height, TEXTURE_FORMAT, bytes,
                                                 stride);
    g_bytes_unref(bytes);
    return texture;
}

/* A flat or checkered THUMB_W x THUMB_H placeholder, in the same format. */
static GdkTexture *placeholder(guint8 light, guint8 dark, guint8 red)
{
    gsize stride = THUMB_W * 4;
    guint8 *px = g_malloc(stride * THUMB_H);
    for (int y = 0; y < THUMB_H; y++)
        for (int x = 0; x < THUMB_W; x++) {
            guint8 v = ((x / 16) + (y / 16)) % 2 ? light : dark;
            guint8 *p = px + (gsize)y * stride + (gsize)x * 4;
            p[0] = v, p[1] = v, p[2] = (guint8)(v > red ? v : red), p[3] = 255; /* B, G, R, A */
        }
    GBytes *bytes = g_bytes_new_take(px, stride * THUMB_H);
    GdkTexture *texture = gdk_memory_texture_new(THUMB_W, THUMB_H, TEXTURE_FORMAT, bytes, stride);
    g_bytes_unref(bytes);
    return texture;
}

/* ----------------------------------------------------------------- cells */

static void cell_describe(struct app *a, struct cell *c)
{
    const struct feed_item *it = &a->pager.items[c->row];
    char text[160];
    const char *state = c->has_image ? "loaded" : c->error != LAZYIMG_OK ? lazyimg_strerror(c->error)
                        : c->deferred ? "deferred while the list moves" : "loading...";
    snprintf(text, sizeof text, "row %zu  \xc2\xb7  %ux%u\n%s", c->row, it->width, it->height, state);
    gtk_label_set_text(GTK_LABEL(c->detail), text);
}

static void cell_show_image(struct app *a, struct cell *c, lazyimg_image *image)
{
    GdkTexture *texture = texture_for(a, image);
    feed_expect(&a->checks, lazyimg_image_pixel_format(image) == LOADER_FORMAT, "row %zu: pixel format %d", c->row,
                (int)lazyimg_image_pixel_format(image));
    gtk_picture_set_paintable(GTK_PICTURE(c->picture), GDK_PAINTABLE(texture));
    g_object_unref(texture);
    if (!c->has_image) {
        c->frames = lazyimg_image_frame_count(image);
        c->shown_since = feed_now_ms();
    }
    c->has_image = 1;
    cell_describe(a, c);
}

static void cell_show_error(struct app *a, struct cell *c, lazyimg_status error)
{
    c->error = error;
    gtk_picture_set_paintable(GTK_PICTURE(c->picture), GDK_PAINTABLE(a->failed));
    cell_describe(a, c);
}

/* The feed's BlurHash of the row, drawn by the loader at a small size: GtkPicture
 * scales it to the cell until the image's event comes. */
static void cell_show_placeholder(struct app *a, struct cell *c, lazyimg_image *image)
{
    GdkTexture *texture = texture_for(a, image);
    gtk_picture_set_paintable(GTK_PICTURE(c->picture), GDK_PAINTABLE(texture));
    g_object_unref(texture);
}

/* cellForRow: memory hit now, or a ticket whose one event follows, with the row's
 * placeholder to show meanwhile when the feed gave one. */
static void cell_request(struct app *a, struct cell *c)
{
    lazyimg_image *image = NULL;
    uint64_t ticket = 0;
    lazyimg_status st = feed_request(&a->checks, a->loader, c->row, &image, &ticket);
    c->ask_again = 0;
    if (st == LAZYIMG_OK) {
        cell_show_image(a, c, image);
        lazyimg_image_release(image);
    } else if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED || st == LAZYIMG_PLACEHOLDER) {
        c->ticket = ticket;
        c->deferred = st == LAZYIMG_DEFERRED;
        if (st == LAZYIMG_PLACEHOLDER) {
            cell_show_placeholder(a, c, image);
            lazyimg_image_release(image);
        }
        cell_describe(a, c);
    } else {
        cell_show_error(a, c, st);
    }
}

static int row_visible(const struct app *a, size_t row)
{
    return a->has_range && row >= a->first && row < a->first + a->visible;
}

static void on_setup(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
    struct app *a = user_data;
    struct cell *c = g_new0(struct cell, 1);
    GtkWidget *text = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    (void)factory;
    c->row = SIZE_MAX;
    c->root = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 14);
    gtk_widget_set_margin_start(c->root, 8);
    gtk_widget_set_margin_top(c->root, 4);
    gtk_widget_set_margin_bottom(c->root, 4);
    c->picture = gtk_picture_new_for_paintable(GDK_PAINTABLE(a->loading));
    gtk_widget_set_size_request(c->picture, THUMB_W, THUMB_H);
    gtk_picture_set_can_shrink(GTK_PICTURE(c->picture), TRUE);
    c->title = gtk_label_new("");
    c->detail = gtk_label_new("");
    gtk_widget_add_css_class(c->title, "heading");
    gtk_widget_add_css_class(c->detail, "dim-label");
    gtk_label_set_xalign(GTK_LABEL(c->title), 0);
    gtk_label_set_xalign(GTK_LABEL(c->detail), 0);
    gtk_widget_set_valign(text, GTK_ALIGN_CENTER);
    gtk_box_append(GTK_BOX(text), c->title);
    gtk_box_append(GTK_BOX(text), c->detail);
    gtk_box_append(GTK_BOX(c->root), c->picture);
    gtk_box_append(GTK_BOX(c->root), text);
    gtk_list_item_set_child(item, c->root);
    g_object_set_data(G_OBJECT(item), "cell", c);
}

/* The cell shows no row now. */
static void cell_forget(struct app *a, struct cell *c)
{
    if (c->row != SIZE_MAX)
        g_hash_table_remove(a->bound, GSIZE_TO_POINTER(c->row));
    c->row = SIZE_MAX;
    c->ticket = 0; /* its event, if one is to come, finds no cell: stale */
    c->has_image = c->deferred = c->ask_again = 0;
    c->error = LAZYIMG_OK;
    c->frames = c->frame_index = c->advances = 0;
}

/* The list binds rows around the visible ones too: those show what memory
 * holds; only visible rows ask the loader. */
static void on_bind(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
    struct app *a = user_data;
    struct cell *c = g_object_get_data(G_OBJECT(item), "cell");
    lazyimg_image *image = NULL;
    (void)factory;
    c->row = gtk_list_item_get_position(item);
    g_hash_table_insert(a->bound, GSIZE_TO_POINTER(c->row), c);
    gtk_label_set_text(GTK_LABEL(c->title), a->pager.items[c->row].title);
    if (row_visible(a, c->row)) {
        cell_request(a, c);
    } else if (lazyimg_lookup(a->loader, c->row, &image) == LAZYIMG_OK) {
        cell_show_image(a, c, image);
        lazyimg_image_release(image);
    } else {
        cell_describe(a, c);
    }
}

static void on_unbind(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
    struct app *a = user_data;
    struct cell *c = g_object_get_data(G_OBJECT(item), "cell");
    (void)factory;
    cell_forget(a, c);
    gtk_picture_set_paintable(GTK_PICTURE(c->picture), GDK_PAINTABLE(a->loading)); /* drops the texture */
}

static void on_teardown(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
    struct cell *c = g_object_get_data(G_OBJECT(item), "cell");
    (void)factory;
    cell_forget(user_data, c); /* its widgets go with the item */
    g_object_set_data(G_OBJECT(item), "cell", NULL);
    g_free(c);
}

/* ---------------------------------------------------------------- events */

static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct app *a = user_data;
    if (feed_pager_event(&a->pager, a->loader, &a->checks, ev)) {
        for (guint row = g_list_model_get_n_items(G_LIST_MODEL(a->model)); row < a->pager.count; row++)
            gtk_string_list_append(a->model, a->pager.items[row].title);
        return;
    }
    feed_checks_event(&a->checks, ev->ticket);
    struct cell *c = a->bound != NULL ? g_hash_table_lookup(a->bound, GSIZE_TO_POINTER(ev->row)) : NULL;
    if (c == NULL || c->ticket != ev->ticket)
        return; /* the row is not shown now, or shows another ticket: stale */
    c->ticket = 0;
    c->deferred = 0;
    if (ev->type == LAZYIMG_EVENT_IMAGE)
        cell_show_image(a, c, ev->image);
    else if (ev->status == LAZYIMG_E_CANCELLED)
        c->ask_again = 1;
    else
        cell_show_error(a, c, ev->status);
}

/* The event fd is readable: run the callbacks here, on GTK's thread. */
static gboolean on_events_ready(gint fd, GIOCondition condition, gpointer user_data)
{
    struct app *a = user_data;
    (void)fd;
    (void)condition;
    lazyimg_dispatch(a->loader, 0);
    return G_SOURCE_CONTINUE;
}

/* ------------------------------------------------------------------ view */

/* Every row has the same height; the list's adjustment spans them all. */
static void on_adjustment_changed(GtkAdjustment *adjustment, gpointer user_data)
{
    struct app *a = user_data;
    guint rows = g_list_model_get_n_items(G_LIST_MODEL(a->model));
    if (rows > 0 && gtk_adjustment_get_upper(adjustment) > 0)
        a->row_height = gtk_adjustment_get_upper(adjustment) / rows;
}

static size_t paging_distance(const struct app *a)
{
    return 2 * (a->visible + 1); /* two screens ahead */
}

/* Tells the loader the visible rows when they changed, and asks for the ones
 * still without a thumbnail. */
static void update_view(struct app *a)
{
    double value = gtk_adjustment_get_value(a->observer.adjustment);
    double page = gtk_adjustment_get_page_size(a->observer.adjustment);
    size_t first = (size_t)(value / a->row_height);
    size_t last = (size_t)((value + (page > 0 ? page : WINDOW_H) - 1) / a->row_height);
    if (!a->has_range || first != a->first || last - first + 1 != a->visible) {
        a->first = first;
        a->visible = last - first + 1;
        a->has_range = 1;
        a->pager.paging_distance = paging_distance(a);
        feed_tell_visible(&a->checks, a->loader, first, a->visible);
    }
    for (size_t row = first; row <= last && row < a->pager.count; row++) {
        struct cell *c = g_hash_table_lookup(a->bound, GSIZE_TO_POINTER(row));
        if (c != NULL && ((!c->has_image && c->ticket == 0 && c->error == LAZYIMG_OK) || c->ask_again))
            cell_request(a, c);
    }
}

static const char *state_name(lazyimg_scroll_state s)
{
    return s == LAZYIMG_SCROLL_DRAGGING ? "DRAGGING" : s == LAZYIMG_SCROLL_DECELERATING ? "DECELERATING" : "IDLE";
}

static void update_status(struct app *a)
{
    lazyimg_stats s = feed_stats(a->loader);
    char text[sizeof a->status_text];
    snprintf(text, sizeof text,
             "%s %+.1f rows/s  \xc2\xb7  %zu rows, %u pages%s\nin flight %" G_GUINT64_FORMAT "  \xc2\xb7  deferred %"
             G_GUINT64_FORMAT "  \xc2\xb7  downloads %" G_GUINT64_FORMAT ", %.1f MB",
             state_name(a->checks.state), a->checks.velocity, a->pager.count, a->pager.pages,
             a->pager.ticket != 0 ? ", loading more" : "", s.in_flight, s.deferred, s.downloads_started,
             s.bytes_downloaded / 1e6);
    if (strcmp(text, a->status_text) != 0) {
        memcpy(a->status_text, text, sizeof text);
        gtk_label_set_text(GTK_LABEL(a->status), text);
    }
}

/* Settled: at rest, no page on the way, every visible row shows its thumbnail
 * or its error, and no transfer runs. */
static int settled(struct app *a)
{
    if (a->observer.state != LAZYIMG_SCROLL_IDLE || a->pager.ticket != 0 || a->pager.count == 0)
        return 0;
    for (size_t row = a->first; row < a->first + a->visible && row < a->pager.count; row++) {
        const struct cell *c = g_hash_table_lookup(a->bound, GSIZE_TO_POINTER(row));
        if (c == NULL || (!c->has_image && c->error == LAZYIMG_OK))
            return 0;
    }
    return feed_stats(a->loader).in_flight == 0;
}

/* The visible cells' animations: a texture of the frame due for each when it
 * changed; the last one stays while the next is not decoded yet. */
static void animate(struct app *a, double now)
{
    unsigned shown = 0, advances = 0;
    for (size_t row = a->first; row < a->first + a->visible && row < a->pager.count; row++) {
        struct cell *c = g_hash_table_lookup(a->bound, GSIZE_TO_POINTER(row));
        if (c == NULL || !c->has_image || c->frames < 2)
            continue;
        shown++;
        lazyimg_image *frame = animation_next_frame(a->loader, row, now - c->shown_since, &c->frame_index);
        if (frame != NULL) {
            GdkTexture *texture = texture_for(a, frame);
            gtk_picture_set_paintable(GTK_PICTURE(c->picture), GDK_PAINTABLE(texture));
            g_object_unref(texture);
            lazyimg_image_release(frame);
            c->advances++;
        }
        advances = c->advances > advances ? c->advances : advances;
    }
    if (a->script != NULL)
        animation_watch_frame(&a->watch, &a->checks, a->loader, shown, advances);
}

/* Once a frame, after the observer read GTK's scrolling. */
static void on_frame(void *user_data, const struct scroll_observer *o)
{
    struct app *a = user_data;
    if (a->finished)
        return;
    feed_pager_poll(&a->pager, a->loader, feed_now_ms());
    feed_tell_scroll(&a->checks, a->loader, o->state, o->velocity / a->row_height);
    if (o->state == LAZYIMG_SCROLL_DECELERATING) {
        a->coasting_frames++;
        a->coasted_rows += fabs(o->moved) / a->row_height;
    }
    update_view(a);
    animate(a, feed_now_ms());
    update_status(a);
    if (a->script != NULL &&
        !scripted_input_frame(a->script, settled(a), feed_now_ms(), a->opt.run.wait_ms, &a->checks.failures)) {
        a->finished = 1;
        g_main_loop_quit(a->loop);
    }
}

static void on_close(GtkWidget *window, gpointer user_data)
{
    struct app *a = user_data;
    (void)window;
    a->window = NULL;
    a->finished = 1;
    g_main_loop_quit(a->loop);
}

static void build_window(struct app *a)
{
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    a->model = gtk_string_list_new(NULL);
    g_signal_connect(factory, "setup", G_CALLBACK(on_setup), a);
    g_signal_connect(factory, "bind", G_CALLBACK(on_bind), a);
    g_signal_connect(factory, "unbind", G_CALLBACK(on_unbind), a);
    g_signal_connect(factory, "teardown", G_CALLBACK(on_teardown), a);
    /* the view takes the model and the factory */
    GtkWidget *list = gtk_list_view_new(GTK_SELECTION_MODEL(gtk_no_selection_new(G_LIST_MODEL(g_object_ref(a->model)))),
                                factory);
    gtk_list_view_set_show_separators(GTK_LIST_VIEW(list), TRUE);
    a->scrolled = GTK_SCROLLED_WINDOW(gtk_scrolled_window_new());
    gtk_scrolled_window_set_policy(a->scrolled, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(a->scrolled, list);
    gtk_widget_set_vexpand(GTK_WIDGET(a->scrolled), TRUE);
    a->status = gtk_label_new("");
    gtk_label_set_xalign(GTK_LABEL(a->status), 0);
    gtk_label_set_ellipsize(GTK_LABEL(a->status), PANGO_ELLIPSIZE_END); /* not wider than the list */
    gtk_widget_add_css_class(a->status, "monospace");
    gtk_widget_set_margin_start(a->status, 10);
    gtk_widget_set_margin_end(a->status, 10);
    gtk_widget_set_margin_top(a->status, 6);
    gtk_widget_set_margin_bottom(a->status, 6);
    gtk_box_append(GTK_BOX(box), a->status);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(a->scrolled));
    a->window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(a->window), "lazyimg: GTK 4 photo feed");
    gtk_window_set_default_size(GTK_WINDOW(a->window), WINDOW_W, WINDOW_H);
    gtk_window_set_child(GTK_WINDOW(a->window), box);
    g_signal_connect(a->window, "destroy", G_CALLBACK(on_close), a);
    scroll_observer_attach(&a->observer, a->window, a->scrolled, on_frame, a);
    g_signal_connect(a->observer.adjustment, "changed", G_CALLBACK(on_adjustment_changed), a);
}

/* --------------------------------------------------------------- checks */

/* The thumbnails of the rows on screen, read from a screenshot of the window:
 * each row showing MIN_SHOWN_PX of its picture must show a photo there. */
static void check_screenshot(struct app *a)
{
    struct window_shot shot;
    graphene_rect_t view;
    unsigned judged = 0, photos = 0;
    if (window_shot_take(&shot, a->window) != 0 ||
        !gtk_widget_compute_bounds(GTK_WIDGET(a->scrolled), a->window, &view)) {
        feed_expect(&a->checks, 0, "no screenshot of the window");
        return;
    }
    for (size_t row = a->first; row < a->first + a->visible && row < a->pager.count; row++) {
        const struct cell *c = g_hash_table_lookup(a->bound, GSIZE_TO_POINTER(row));
        graphene_rect_t picture, shown;
        if (c == NULL || !gtk_widget_compute_bounds(c->picture, a->window, &picture) ||
            !graphene_rect_intersection(&picture, &view, &shown) || shown.size.height < MIN_SHOWN_PX)
            continue;
        judged++;
        unsigned colours = window_shot_colours(&shot, &shown, PHOTO_COLOURS);
        photos += colours >= PHOTO_COLOURS;
        feed_expect(&a->checks, colours >= PHOTO_COLOURS, "row %zu: its thumbnail on screen is blank (%u colours)",
                    row, colours);
    }
    if (!a->opt.run.quiet)
        printf("screenshot: %u of %u thumbnail(s) on screen show a photo (rows %zu..%zu)\n", photos, judged, a->first,
               a->first + a->visible - 1);
    feed_expect(&a->checks, judged > 0, "no thumbnail on screen");
    if (a->opt.screenshot != NULL)
        feed_expect(&a->checks, window_shot_save(&shot, a->opt.screenshot) == 0, "cannot write %s",
                    a->opt.screenshot);
    window_shot_free(&shot);
}

/* --------------------------------------------------------------- running */

static void usage(void)
{
    fprintf(stderr,
            "usage: gtk-feed [--latency-ms N] [--photos DIR] [--page-size N] [--pages N]\n"
            "                [--script FILE|builtin] [--screenshot OUT.png] [--wait-ms N] [--grace-ms N] [--quiet]\n"
            "Opens the feed in a window; with --script, replays it, checks it and exits.\n");
}

static int parse_options(int argc, char **argv, struct options *opt)
{
    feed_options_init(&opt->run);
    for (int i = 1; i < argc; i++) {
        int taken = feed_options_take(&opt->run, argc, argv, &i);
        if (taken < 0)
            return -1;
        if (taken > 0)
            continue;
        if (strcmp(argv[i], "--screenshot") != 0 || i + 1 == argc)
            return -1;
        opt->screenshot = argv[++i];
    }
    return 0;
}

/* The script's text: "builtin" or a file's. g_free it. */
static char *load_script(const char *name)
{
    char *text = NULL;
    if (strcmp(name, "builtin") == 0)
        return g_strdup(builtin_script);
    return g_file_get_contents(name, &text, NULL, NULL) ? text : NULL;
}

static int start_script(struct app *a)
{
    const char *error = NULL;
    char *text = load_script(a->opt.run.script);
    if (text == NULL) {
        fprintf(stderr, "gtk-feed: cannot read script %s\n", a->opt.run.script);
        return -1;
    }
    a->script = scripted_input_new(text, a->scrolled, a->observer.scroll, &error);
    g_free(text);
    if (a->script == NULL) {
        fprintf(stderr, "gtk-feed: %s\n", error);
        return -1;
    }
    return 0;
}

/* Lets GTK finish what closing the window began (textures freed with their
 * widgets and render nodes), without waiting for anything new. */
static void drain_main_context(void)
{
    while (g_main_context_iteration(NULL, FALSE))
        ;
}

int main(int argc, char **argv)
{
    struct app a;
    lazyimg_config cfg;
    memset(&a, 0, sizeof a);
    if (parse_options(argc, argv, &a.opt) != 0) {
        usage();
        return 2;
    }
    if (!gtk_init_check()) {
        fprintf(stderr, "gtk-feed: no display (DISPLAY or WAYLAND_DISPLAY); the scripted run works under Xvfb: "
                        "make run-gtk-feed\n");
        return 1;
    }
    if ((a.server = feed_options_start_server(&a.opt.run)) == NULL)
        return 1;
    lazyimg_config_init(&cfg);
    cfg.on_event = on_event;
    cfg.user_data = &a;
    cfg.target_width = THUMB_W;
    cfg.target_height = THUMB_H;
    cfg.fit = LAZYIMG_FIT_FILL;
    cfg.pixel_format = LOADER_FORMAT;
    cfg.animation_buffer_bytes = ANIMATION_BUFFER;
    lazyimg_status st = lazyimg_loader_create(&cfg, &a.loader);
    if (st < 0) {
        fprintf(stderr, "gtk-feed: lazyimg_loader_create: %s\n", lazyimg_strerror(st));
        feed_server_stop(a.server);
        return 1;
    }
    a.loop = g_main_loop_new(NULL, FALSE);
    a.bound = g_hash_table_new(g_direct_hash, g_direct_equal);
    a.loading = placeholder(58, 46, 0);
    a.failed = placeholder(40, 40, 120);
    a.row_height = NOMINAL_ROW_H;
    build_window(&a);
    guint events = g_unix_fd_add(lazyimg_event_fd(a.loader), G_IO_IN, on_events_ready, &a);
    /* An empty list at its end: the first page comes through NEED_PAGE too. */
    update_view(&a);
    if (feed_pager_start(&a.pager, a.loader, feed_server_first_page(a.server), paging_distance(&a), &a.checks) != 0)
        feed_expect(&a.checks, 0, "out of memory");
    int rc = a.opt.run.script != NULL && start_script(&a) != 0;
    if (rc == 0) {
        gtk_window_present(GTK_WINDOW(a.window));
        g_main_loop_run(a.loop);
    }

    lazyimg_stats ended = feed_stats(a.loader); /* before destroy cancels the rest */
    double ended_at = feed_now_ms();
    if (a.script != NULL) {
        check_screenshot(&a);
        feed_checks_run(&a.checks, a.loader, &a.pager, a.server, a.opt.run.quiet);
        animation_watch_check(&a.watch, &a.checks, a.opt.run.quiet);
        if (!a.opt.run.quiet)
            printf("script %s: %lu frames; %u release(s): GTK decelerated the list for %lu frames, %.1f rows\n",
                   a.opt.run.script, scripted_input_frames(a.script), a.observer.decelerations, a.coasting_frames,
                   a.coasted_rows);
        feed_expect(&a.checks, a.coasted_rows >= 2 * a.visible, "GTK's kinetic scrolling moved the list only %.1f rows",
                    a.coasted_rows);
    }
    if (a.window != NULL)
        gtk_window_destroy(GTK_WINDOW(a.window));
    drain_main_context();
    g_hash_table_remove_all(a.bound); /* no cell is shown any more */
    g_source_remove(events);
    st = lazyimg_loader_destroy(a.loader); /* delivers every outstanding ticket's event: all stale now */
    feed_expect(&a.checks, st == LAZYIMG_OK, "lazyimg_loader_destroy: %s", lazyimg_strerror(st));
    g_object_unref(a.loading);
    g_object_unref(a.failed);
    g_object_unref(a.model);
    g_hash_table_destroy(a.bound);
    feed_expect(&a.checks, a.images_held == 0, "%u lazyimg image(s) still held by textures", a.images_held);
    if (a.script != NULL) {
        feed_checks_answered(&a.checks);
        feed_server_close(a.server); /* every transfer's outcome final */
        feed_checks_downloads(&a.checks, a.server, &a.pager, a.opt.run.grace_ms, &ended, ended_at, a.opt.run.quiet);
        if (!a.opt.run.quiet)
            printf("images: %lu texture(s) made over lazyimg pixels, %u still held\n", a.textures_made,
                   a.images_held);
        if (a.checks.failures)
            printf("FAILED: %u expectation(s) not met\n", a.checks.failures);
        else
            printf("OK: every expectation met (%zu tickets, one event each)\n", a.checks.ticket_count);
    }
    unsigned failures = a.checks.failures;
    scripted_input_free(a.script);
    feed_pager_free(&a.pager);
    feed_checks_free(&a.checks);
    feed_server_stop(a.server);
    g_main_loop_unref(a.loop);
    return rc != 0 ? rc : failures ? 1 : 0;
}

/*
 * glib_loop.c: lazyimg in a GLib main loop.
 *
 * The loader's event fd is watched with g_unix_fd_add; whenever it is
 * readable, lazyimg_dispatch runs the waiting callbacks on the main loop's
 * thread. The fd is level-triggered (readable while events wait), so a
 * dispatch that leaves events behind simply runs again on the next turn. The
 * loop quits when every ticket has had its event; exits non-zero when an
 * image failed. usage: glib_loop URL...
 */
#include <glib-unix.h>
#include <glib.h>
#include <stdio.h>

#include <lazyimg.h>

struct app {
    GMainLoop *loop;
    lazyimg_loader *loader;
    size_t pending; /* tickets still waiting for their event */
    int failed;
};

static void on_event(void *user_data, const lazyimg_event *ev)
{
    struct app *app = user_data;
    if (ev->type == LAZYIMG_EVENT_IMAGE) {
        printf("%s: %ux%u\n", ev->url, lazyimg_image_width(ev->image), lazyimg_image_height(ev->image));
    } else {
        printf("%s: %s (%s)\n", ev->url, lazyimg_strerror(ev->status), ev->message);
        app->failed = 1;
    }
    if (--app->pending == 0)
        g_main_loop_quit(app->loop);
}

static gboolean on_readable(gint fd, GIOCondition condition, gpointer user_data)
{
    struct app *app = user_data;
    (void)fd;
    (void)condition;
    lazyimg_dispatch(app->loader, 0);
    return G_SOURCE_CONTINUE;
}

static gboolean on_timeout(gpointer user_data)
{
    struct app *app = user_data;
    fprintf(stderr, "glib_loop: %zu events still missing after 30 s\n", app->pending);
    app->failed = 1;
    g_main_loop_quit(app->loop);
    return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
    struct app app = {g_main_loop_new(NULL, FALSE), NULL, 0, 0};
    size_t n = argc > 1 ? (size_t)argc - 1 : 0;

    lazyimg_config cfg;
    lazyimg_config_init(&cfg);
    cfg.on_event = on_event;
    cfg.user_data = &app;
    cfg.target_width = 128;
    cfg.target_height = 128;
    lazyimg_status st = lazyimg_loader_create(&cfg, &app.loader);
    if (st < 0) {
        fprintf(stderr, "lazyimg_loader_create: %s\n", lazyimg_strerror(st));
        return 1;
    }
    lazyimg_set_items(app.loader, (const char *const *)(argv + 1), n);
    for (size_t row = 0; row < n; row++) {
        lazyimg_image *img;
        uint64_t ticket;
        st = lazyimg_request(app.loader, row, &img, &ticket);
        if (st == LAZYIMG_PENDING || st == LAZYIMG_DEFERRED)
            app.pending++;
        else if (st == LAZYIMG_OK)
            lazyimg_image_release(img);
        else
            app.failed = 1;
    }

    guint watch = g_unix_fd_add(lazyimg_event_fd(app.loader), G_IO_IN, on_readable, &app);
    guint timeout = g_timeout_add_seconds(30, on_timeout, &app);
    if (app.pending > 0)
        g_main_loop_run(app.loop);
    g_source_remove(watch);
    if (app.pending == 0)
        g_source_remove(timeout);
    lazyimg_loader_destroy(app.loader);
    g_main_loop_unref(app.loop);
    printf("glib_loop: %zu images, %s\n", n, app.failed ? "some failed" : "all arrived");
    return app.failed;
}

/*
 * scroll_observer.c: lazyimg's scroll state from GTK's scrolling (scroll_observer.h).
 */
#include "scroll_observer.h"

#include <math.h>

#define DRAG_IDLE_MS 120   /* a wheel drag ends when no delta came for this long */
#define DRAG_WINDOW_MS 250 /* a drag's speed: its travel over this long; a single
                              wheel step is not a fast move, a spin is */
#define STILL_FRAMES 2     /* GTK's kinetic tick may run after ours in a frame:
                              one frame without motion is not yet rest */
#define REST_PX_PER_S 20.0 /* slower is at rest: GTK 4.8's deceleration creeps on
                              down to 1 px/s, a second longer, moving a few pixels */

/* Wheel and touchpad deltas are input. The observer only watches: the event
 * goes on to the scrolled window, which scrolls. */
static gboolean on_scroll(GtkEventControllerScroll *controller, double dx, double dy, gpointer user_data)
{
    struct scroll_observer *o = user_data;
    (void)controller;
    (void)dx;
    if (dy != 0)
        o->last_input_us = g_get_monotonic_time();
    return FALSE;
}

static void on_scroll_begin(GtkEventControllerScroll *controller, gpointer user_data)
{
    struct scroll_observer *o = user_data;
    (void)controller;
    o->fingers = 1;
}

static void on_scroll_end(GtkEventControllerScroll *controller, gpointer user_data)
{
    struct scroll_observer *o = user_data;
    (void)controller;
    o->fingers = 0;
}

/* The fingers left the touchpad (or a script released a fling): with a
 * velocity, GTK's kinetic scrolling now moves the list without input. */
static void on_decelerate(GtkEventControllerScroll *controller, double vx, double vy, gpointer user_data)
{
    struct scroll_observer *o = user_data;
    (void)controller;
    (void)vx;
    o->release_velocity = vy;
    o->decelerations += vy != 0;
    o->last_input_us = 0; /* the drag is over now, not DRAG_IDLE_MS later */
}

/* Buttons (the scrollbar, a mouse drag) and touches (a finger on the list) down
 * anywhere in the window. Seen in the capture phase, before any widget. */
static gboolean on_event(GtkEventControllerLegacy *controller, GdkEvent *event, gpointer user_data)
{
    struct scroll_observer *o = user_data;
    (void)controller;
    switch (gdk_event_get_event_type(event)) {
    case GDK_BUTTON_PRESS:
    case GDK_TOUCH_BEGIN:
        o->pressed++;
        break;
    case GDK_BUTTON_RELEASE:
    case GDK_TOUCH_END:
    case GDK_TOUCH_CANCEL:
        if (o->pressed > 0)
            o->pressed--;
        break;
    default:
        break;
    }
    return FALSE;
}

/* The adjustment's travel over the last DRAG_WINDOW_MS, per second. */
static double drag_velocity(const struct scroll_observer *o, gint64 now_us, double value)
{
    gint64 since = now_us - (gint64)DRAG_WINDOW_MS * 1000;
    double from = value;
    for (unsigned k = 1; k <= o->sample_count; k++) {
        unsigned i = (o->next_sample + SCROLL_OBSERVER_SAMPLES - k) % SCROLL_OBSERVER_SAMPLES;
        if (o->samples[i].at_us < since)
            break;
        from = o->samples[i].value;
    }
    /* Over the whole window, however few frames it holds: one step reads as a
     * step per DRAG_WINDOW_MS. */
    return (value - from) * 1000.0 / DRAG_WINDOW_MS;
}

static gboolean on_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
    struct scroll_observer *o = user_data;
    gint64 now = gdk_frame_clock_get_frame_time(clock);
    double value = gtk_adjustment_get_value(o->adjustment);
    double dt = o->last_frame_us > 0 ? (now - o->last_frame_us) / 1e6 : 0;
    double moved = value - o->last_value;
    int input = o->pressed > 0 || o->fingers ||
                (o->last_input_us > 0 && now - o->last_input_us < (gint64)DRAG_IDLE_MS * 1000);
    (void)widget;
    o->still_frames = dt <= 0 || fabs(moved) / dt < REST_PX_PER_S ? o->still_frames + 1 : 0;
    if (input) {
        o->state = LAZYIMG_SCROLL_DRAGGING;
        o->velocity = drag_velocity(o, now, value);
    } else if (o->still_frames == 0) { /* it moves, and nothing touches it */
        o->state = LAZYIMG_SCROLL_DECELERATING;
        o->velocity = dt > 0 ? moved / dt : 0;
    } else if (o->still_frames >= STILL_FRAMES) {
        o->state = LAZYIMG_SCROLL_IDLE;
        o->velocity = 0;
    } /* else one still frame: as before */
    o->samples[o->next_sample].at_us = now;
    o->samples[o->next_sample].value = value;
    o->next_sample = (o->next_sample + 1) % SCROLL_OBSERVER_SAMPLES;
    if (o->sample_count < SCROLL_OBSERVER_SAMPLES)
        o->sample_count++;
    o->moved = moved;
    o->last_value = value;
    o->last_frame_us = now;
    o->frame(o->user_data, o);
    return G_SOURCE_CONTINUE;
}

void scroll_observer_attach(struct scroll_observer *o, GtkWidget *window, GtkScrolledWindow *scrolled,
                            scroll_frame_fn frame, void *user_data)
{
    GtkEventController *legacy = gtk_event_controller_legacy_new();
    o->adjustment = gtk_scrolled_window_get_vadjustment(scrolled);
    o->state = LAZYIMG_SCROLL_IDLE;
    o->frame = frame;
    o->user_data = user_data;
    o->last_value = gtk_adjustment_get_value(o->adjustment);
    /* On the window, in the capture phase: it sees the input before the
     * scrolled window's own controllers take it. */
    o->scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL | GTK_EVENT_CONTROLLER_SCROLL_KINETIC);
    gtk_event_controller_set_propagation_phase(o->scroll, GTK_PHASE_CAPTURE);
    g_signal_connect(o->scroll, "scroll", G_CALLBACK(on_scroll), o);
    g_signal_connect(o->scroll, "scroll-begin", G_CALLBACK(on_scroll_begin), o);
    g_signal_connect(o->scroll, "scroll-end", G_CALLBACK(on_scroll_end), o);
    g_signal_connect(o->scroll, "decelerate", G_CALLBACK(on_decelerate), o);
    gtk_widget_add_controller(window, o->scroll);
    gtk_event_controller_set_propagation_phase(legacy, GTK_PHASE_CAPTURE);
    g_signal_connect(legacy, "event", G_CALLBACK(on_event), o);
    gtk_widget_add_controller(window, legacy);
    gtk_widget_add_tick_callback(GTK_WIDGET(scrolled), on_tick, o, NULL);
}

/*
 * scroll_observer.h: lazyimg's scroll state, read from GTK's own scrolling.
 *
 * GTK 4.8 tells an application where a GtkScrolledWindow is (its vertical
 * GtkAdjustment) and what input arrives (event controllers), but not whether
 * its kinetic deceleration runs, how fast, or where it will stop. So, on
 * every frame-clock tick, the observer takes the motion from the adjustment
 * and infers the state:
 *   DRAGGING      input moves the list: a button or touch is down in the window
 *                 (GtkEventControllerLegacy), a touchpad scroll is under way
 *                 (GtkEventControllerScroll's scroll-begin .. scroll-end), or a
 *                 wheel or touchpad delta came less than DRAG_IDLE_MS ago;
 *                 velocity: the adjustment's travel over the last DRAG_WINDOW_MS
 *                 (a wheel moves it in steps);
 *   DECELERATING  it moves with no input: kinetic scrolling once the
 *                 controller's `decelerate` signal gave a release velocity (it
 *                 also ends the drag at once), or GTK's own scroll animations
 *                 (keys, the scrollbar's trough); velocity: the last frame's travel;
 *   IDLE          neither (slower than REST_PX_PER_S), for STILL_FRAMES frames
 *                 in a row.
 * The host gets each frame's state and velocity in pixels per second (positive
 * = down, toward higher rows) in its frame callback, after the observer's
 * tick. There is no resting target to give the loader: GTK keeps it private.
 */
#ifndef SCROLL_OBSERVER_H
#define SCROLL_OBSERVER_H

#include <gtk/gtk.h>

#include "lazyimg.h"

#define SCROLL_OBSERVER_SAMPLES 32 /* frames of motion kept: more than DRAG_WINDOW_MS at 60 Hz */

struct scroll_observer;

/* Called once a frame, after the observer read the adjustment. */
typedef void (*scroll_frame_fn)(void *user_data, const struct scroll_observer *o);

struct scroll_observer {
    /* what the host reads */
    GtkAdjustment *adjustment;     /* the scrolled window's vertical one */
    lazyimg_scroll_state state;
    double velocity;               /* pixels per second; positive = down */
    double moved;                  /* pixels, this frame */
    double release_velocity;       /* the last `decelerate` signal's, in the
                                      controller's scroll unit per second */
    unsigned decelerations;        /* `decelerate` signals with a velocity */
    GtkEventController *scroll;    /* the observer's own scroll controller */
    /* its own */
    scroll_frame_fn frame;
    void *user_data;
    int fingers;                   /* between scroll-begin and scroll-end */
    int pressed;                   /* buttons and touches down in the window */
    gint64 last_input_us;          /* the last wheel or touchpad delta; 0 = none since release */
    unsigned still_frames;
    gint64 last_frame_us;
    double last_value;
    struct { gint64 at_us; double value; } samples[SCROLL_OBSERVER_SAMPLES]; /* the last frames, a ring */
    unsigned sample_count, next_sample;
};

/* Watches `scrolled`, inside `window`, and calls `frame` on every tick.
 * The observer must stay where it is while the widgets live. */
void scroll_observer_attach(struct scroll_observer *o, GtkWidget *window, GtkScrolledWindow *scrolled,
                            scroll_frame_fn frame, void *user_data);

#endif

/*
 * scripted_input.h: a scripted scroll, replayed into GTK's own scrolling.
 *
 * GTK 4 offers no public way to make input events (the GdkEvent constructors
 * are private), and an X server (Xvfb) sends no touchpad scroll-stop, so no
 * real input there ever starts GTK's kinetic deceleration. The script emits
 * instead the signals that input makes GTK's event controllers emit, on the
 * scrolled window's own controllers, whose handlers then do what they do for
 * real input: a wheel step ("scroll" on the bubble-phase controller) moves the
 * adjustment by GTK's wheel step; a release ("decelerate" on the capture-phase
 * controller, which runs the kinetic scrolling in 4.8) starts GTK's friction
 * curve, frame by frame on its frame clock. Each signal also goes to the
 * observer's own controller, as the event would have.
 *
 * Lines: `wait` (frames until the host says it is settled), `wheel N` (N steps,
 * one a frame; negative = up), `fling V` (release at V scroll units per second,
 * positive = down), `idle N` (N frames); `#` starts a comment.
 */
#ifndef SCRIPTED_INPUT_H
#define SCRIPTED_INPUT_H

#include <gtk/gtk.h>

struct scripted_input;

/* `text` is copied. NULL with a message in *error (static text) when the
 * scrolled window lacks the controllers GTK 4.8 gives it, or out of memory. */
struct scripted_input *scripted_input_new(const char *text, GtkScrolledWindow *scrolled,
                                          GtkEventController *observer, const char **error);

/* Runs the script on for one frame; `settled` is the host's say for `wait`.
 * Returns 1 while lines remain. A `wait` longer than wait_ms, or a line it
 * cannot read, is counted in *failures with a message on stderr. */
int scripted_input_frame(struct scripted_input *s, int settled, double now_ms, double wait_ms,
                         unsigned *failures);

/* Frames run so far. */
unsigned long scripted_input_frames(const struct scripted_input *s);

void scripted_input_free(struct scripted_input *s);

#endif

/*
 * scripted_input.c: a scripted scroll into GTK's controllers (scripted_input.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "scripted_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scripted_input {
    char *text, *line, *rest;     /* the script; the line running; what follows it */
    GtkEventController *wheel;    /* the scrolled window's bubble-phase scroll controller */
    GtkEventController *kinetic;  /* its capture-phase one */
    GtkEventController *observer;
    long remaining;               /* wheel steps or idle frames left on this line */
    double wait_started;          /* ms; 0 = not waiting */
    unsigned long frames;
};

/* The scrolled window's two GtkEventControllerScroll, told apart by phase. */
static void find_controllers(struct scripted_input *s, GtkScrolledWindow *scrolled)
{
    GListModel *controllers = gtk_widget_observe_controllers(GTK_WIDGET(scrolled));
    for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
        GtkEventController *c = g_list_model_get_item(controllers, i);
        if (GTK_IS_EVENT_CONTROLLER_SCROLL(c)) {
            GtkPropagationPhase phase = gtk_event_controller_get_propagation_phase(c);
            if (phase == GTK_PHASE_CAPTURE)
                s->kinetic = c;
            else if (phase == GTK_PHASE_BUBBLE)
                s->wheel = c;
        }
        g_object_unref(c); /* the widget keeps it */
    }
    g_object_unref(controllers); /* and its bookkeeping for the list stops */
}

struct scripted_input *scripted_input_new(const char *text, GtkScrolledWindow *scrolled,
                                          GtkEventController *observer, const char **error)
{
    struct scripted_input *s = calloc(1, sizeof *s);
    if (s == NULL || (s->text = strdup(text)) == NULL) {
        free(s);
        *error = "out of memory";
        return NULL;
    }
    find_controllers(s, scrolled);
    if (s->wheel == NULL || s->kinetic == NULL) {
        *error = "the scrolled window has not the two scroll controllers of GTK 4.8";
        scripted_input_free(s);
        return NULL;
    }
    s->observer = observer;
    s->rest = s->text;
    return s;
}

/* The next line with something on it, comment cut off; NULL at the end. */
static char *next_line(struct scripted_input *s)
{
    while (s->rest != NULL && *s->rest != '\0') {
        char *line = s->rest, *end = strchr(line, '\n');
        s->rest = end != NULL ? end + 1 : NULL;
        if (end != NULL)
            *end = '\0';
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        line += strspn(line, " \t");
        if (*line != '\0')
            return line;
    }
    return NULL;
}

static void emit_wheel(struct scripted_input *s, double dy)
{
    gboolean handled = FALSE;
    g_signal_emit_by_name(s->observer, "scroll", 0.0, dy, &handled);
    g_signal_emit_by_name(s->wheel, "scroll", 0.0, dy, &handled);
}

/* Fingers on the touchpad stop what still coasts (GTK cancels its deceleration
 * on any scroll its capture-phase controller sees), then leave it. */
static void emit_release(struct scripted_input *s, double velocity)
{
    gboolean handled = FALSE;
    g_signal_emit_by_name(s->kinetic, "scroll", 0.0, 0.0, &handled);
    g_signal_emit_by_name(s->observer, "decelerate", 0.0, velocity);
    g_signal_emit_by_name(s->kinetic, "decelerate", 0.0, velocity);
}

int scripted_input_frame(struct scripted_input *s, int settled, double now_ms, double wait_ms,
                         unsigned *failures)
{
    s->frames++;
    for (;;) {
        char word[16] = "";
        double arg = 0;
        if (s->line == NULL && (s->line = next_line(s)) == NULL)
            return 0;
        int fields = sscanf(s->line, "%15s %lf", word, &arg);
        if (strcmp(word, "wait") == 0) {
            if (s->wait_started == 0)
                s->wait_started = now_ms;
            if (!settled && now_ms - s->wait_started < wait_ms)
                return 1;
            if (!settled) {
                fprintf(stderr, "expectation failed: script: not settled after %.0f ms\n", wait_ms);
                ++*failures;
            }
            s->wait_started = 0;
        } else if ((strcmp(word, "wheel") == 0 || strcmp(word, "idle") == 0) && fields == 2) {
            if (s->remaining == 0)
                s->remaining = (long)(arg < 0 ? -arg : arg);
            if (s->remaining > 0) {
                if (word[0] == 'w')
                    emit_wheel(s, arg < 0 ? -1 : 1);
                if (--s->remaining > 0)
                    return 1;
                s->line = NULL;
                return 1; /* the last step's frame */
            }
        } else if (strcmp(word, "fling") == 0 && fields == 2) {
            emit_release(s, arg);
            s->line = NULL;
            return 1; /* GTK decelerates from the next frame on */
        } else {
            fprintf(stderr, "expectation failed: script: cannot read \"%s\"\n", s->line);
            ++*failures;
        }
        s->line = NULL;
    }
}

unsigned long scripted_input_frames(const struct scripted_input *s)
{
    return s->frames;
}

void scripted_input_free(struct scripted_input *s)
{
    if (s == NULL)
        return;
    free(s->text);
    free(s);
}

/*
 * animation_watch.h: what the feed demos (termlist, gtk-feed) share about
 * animated rows: the frame a cell shows next, and what a scripted run checks,
 * the same way for every host: a cell's frames advanced while its row was
 * visible, and the loader decoded no frame while no animated row was
 * (lazyimg_stats.frames_decoded stood still).
 *
 * The host reports each frame how many animated rows it showed and the most
 * frames any shown cell has advanced. A spell without animated rows is judged
 * after a grace of GRACE_FRAMES, for the frame a decode thread may still be
 * finishing when the last one left.
 */
#ifndef ANIMATION_WATCH_H
#define ANIMATION_WATCH_H

#include <stdint.h>

#include "feed_checks.h"
#include "lazyimg.h"

#define ANIMATION_WATCH_GRACE_FRAMES 20
#define ANIMATION_WATCH_SPELL_FRAMES 30 /* judged frames a spell needs to count */

/* Zero it to start. */
struct animation_watch {
    unsigned quiet_frames;   /* frames in a row without an animated row shown */
    uint64_t quiet_decoded;  /* frames_decoded when the spell's grace ended */
    unsigned quiet_spells;   /* spells judged for long enough */
    int quiet_failed;        /* this spell already failed */
    unsigned most_advances;  /* the most frames a shown cell advanced */
    int started;             /* first_decoded holds the first frame's reading */
    uint64_t first_decoded, last_decoded;
};

/* The frame of `row` due `elapsed_ms` after its cell began to show the row, when
 * it differs from frame *shown: +1 reference, and *shown set to its index. NULL
 * while frame *shown is still due, or the next is not decoded yet (the cell
 * keeps showing what it shows). */
lazyimg_image *animation_next_frame(lazyimg_loader *loader, size_t row, double elapsed_ms, uint32_t *shown);

/* One frame of the host: `animated_shown` animated rows on screen, the cell
 * among them that advanced most did so `advances` times since it appeared. */
void animation_watch_frame(struct animation_watch *w, struct feed_checks *c, lazyimg_loader *loader,
                           unsigned animated_shown, unsigned advances);

/* The end of the run: a cell advanced at least twice, frames were decoded, and
 * a spell without animated rows was judged. Prints the figures unless quiet. */
void animation_watch_check(const struct animation_watch *w, struct feed_checks *c, int quiet);

#endif

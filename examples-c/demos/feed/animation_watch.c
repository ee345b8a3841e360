/* animation_watch.c: see animation_watch.h. */
#include "animation_watch.h"

#include <inttypes.h>
#include <stdio.h>

lazyimg_image *animation_next_frame(lazyimg_loader *loader, size_t row, double elapsed_ms, uint32_t *shown)
{
    lazyimg_image *frame = NULL;
    uint32_t index = 0;
    if (lazyimg_frame_at(loader, row, (uint64_t)elapsed_ms, &frame, &index, NULL) == LAZYIMG_OK && index != *shown) {
        *shown = index;
        return frame;
    }
    lazyimg_image_release(frame);
    return NULL;
}

void animation_watch_frame(struct animation_watch *w, struct feed_checks *c, lazyimg_loader *loader,
                           unsigned animated_shown, unsigned advances)
{
    uint64_t decoded = feed_stats(loader).frames_decoded;
    /* From the run's first frame, not its first frame with a decode: a short
     * animation may decode whole in one batch before the next stats read. */
    if (!w->started) {
        w->first_decoded = decoded;
        w->started = 1;
    }
    w->last_decoded = decoded;
    if (advances > w->most_advances)
        w->most_advances = advances;
    if (animated_shown > 0) {
        if (w->quiet_frames >= ANIMATION_WATCH_GRACE_FRAMES + ANIMATION_WATCH_SPELL_FRAMES)
            w->quiet_spells++;
        w->quiet_frames = 0;
        w->quiet_failed = 0;
        return;
    }
    if (++w->quiet_frames == ANIMATION_WATCH_GRACE_FRAMES)
        w->quiet_decoded = decoded;
    if (w->quiet_frames > ANIMATION_WATCH_GRACE_FRAMES && decoded != w->quiet_decoded && !w->quiet_failed) {
        feed_expect(c, 0, "%" PRIu64 " animation frame(s) decoded while no animated row was on screen",
                    decoded - w->quiet_decoded);
        w->quiet_failed = 1;
    }
}

void animation_watch_check(const struct animation_watch *w, struct feed_checks *c, int quiet)
{
    unsigned spells = w->quiet_spells + (w->quiet_frames >= ANIMATION_WATCH_GRACE_FRAMES + ANIMATION_WATCH_SPELL_FRAMES);
    if (!quiet)
        printf("animations: a cell advanced %u frames on screen; %" PRIu64 " frames decoded; "
               "%u spell(s) without animated rows on screen, no frame decoded in them\n",
               w->most_advances, w->last_decoded - w->first_decoded, spells);
    feed_expect(c, w->most_advances >= 2, "no animated cell advanced two frames on screen (at most %u)",
                w->most_advances);
    feed_expect(c, w->last_decoded > w->first_decoded, "no animation frame decoded");
    feed_expect(c, spells > 0, "no spell without animated rows on screen to judge");
}

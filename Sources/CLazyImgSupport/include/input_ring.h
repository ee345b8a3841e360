#ifndef LAZYIMG_INPUT_RING_H
#define LAZYIMG_INPUT_RING_H
/* The host's per-frame inputs to the scheduler (scroll states, visible ranges,
 * targets, requests) in a bounded ring of fixed slots: any thread writes, one
 * thread reads. In C because Swift's atomics cannot stand in an array.
 *
 * A slot is claimed by moving `tail` on and published by storing its sequence
 * number (a bounded queue after Dmitry Vyukov's): a frame's inputs lie side by
 * side, two to a cache line, and a host's call writes the line of its slot and
 * the line of `tail`, which only the host's threads write. No call waits: with
 * every slot taken, a push fails and the caller goes another way. The slots'
 * fields are read and written here only, in C, beside the atomics that order
 * them. */

#include <stdatomic.h>
#include <stdint.h>

typedef struct lazyimg_input_slot {
    /* Its position + 1 once published; position + capacity once read. */
    _Atomic uint64_t sequence;
    /* What the input is and its small fields; the reader knows the layout. */
    uint64_t word;
    uint64_t a, b;
} lazyimg_input_slot;

typedef struct lazyimg_input_ring {
    /* What a writer reads and writes, on one line that only the host's threads
     * write. Positions claimed so far: */
    _Atomic uint64_t tail;
    /* Inputs the host's threads sent another way (`lazyimg_input_ring_count_other`),
     * beside `tail`, so that counting every input reads this line alone. */
    _Atomic uint64_t others;
    uint64_t mask;
    lazyimg_input_slot *slots;
    char tail_line[32];
    /* The reader's next position, on its own line. */
    uint64_t head;
    char head_line[56];
} lazyimg_input_ring;

/* A ring of `capacity` slots (a power of two), or NULL. */
lazyimg_input_ring *lazyimg_input_ring_create(uint64_t capacity);
void lazyimg_input_ring_destroy(lazyimg_input_ring *ring);

/* Queues an input (what it is and its two fields, which only the reader reads)
 * in the next slot; 0 with every slot taken, else 1. The slot is published by
 * a sequentially consistent store: a writer that then reads whether the reader
 * sleeps, and a reader that looks for work after saying it sleeps, cannot both
 * miss each other. */
static inline int lazyimg_input_ring_push(lazyimg_input_ring *ring, uint64_t word, uint64_t a, uint64_t b) {
    uint64_t at = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    for (;;) {
        lazyimg_input_slot *slot = &ring->slots[at & ring->mask];
        uint64_t sequence = atomic_load_explicit(&slot->sequence, memory_order_acquire);
        int64_t ahead = (int64_t)(sequence - at);
        if (ahead == 0) {
            if (atomic_compare_exchange_weak_explicit(&ring->tail, &at, at + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                slot->word = word;
                slot->a = a;
                slot->b = b;
                atomic_store_explicit(&slot->sequence, at + 1, memory_order_seq_cst);
                return 1;
            }
        } else if (ahead < 0) {
            return 0;
        } else {
            at = atomic_load_explicit(&ring->tail, memory_order_relaxed);
        }
    }
}

/* An input sent another way than the ring, counted for `lazyimg_input_ring_inputs`. */
static inline void lazyimg_input_ring_count_other(lazyimg_input_ring *ring) {
    atomic_fetch_add_explicit(&ring->others, 1, memory_order_seq_cst);
}

/* Inputs given so far, both ways. */
static inline uint64_t lazyimg_input_ring_inputs(lazyimg_input_ring *ring) {
    return atomic_load_explicit(&ring->tail, memory_order_acquire)
        + atomic_load_explicit(&ring->others, memory_order_acquire);
}

/* Positions claimed so far: inputs sent another way after them come after them. */
static inline uint64_t lazyimg_input_ring_claimed(lazyimg_input_ring *ring) {
    return atomic_load_explicit(&ring->tail, memory_order_seq_cst);
}

/* The reader: whether an input waits at its next position. */
static inline int lazyimg_input_ring_ready(lazyimg_input_ring *ring) {
    const lazyimg_input_slot *slot = &ring->slots[ring->head & ring->mask];
    return atomic_load_explicit(&slot->sequence, memory_order_seq_cst) == ring->head + 1;
}

/* The reader: takes the input at its next position into `word`, `a` and `b`,
 * frees its slot and returns 1; 0 when none is published there. */
static inline int lazyimg_input_ring_take(lazyimg_input_ring *ring, uint64_t *word, uint64_t *a, uint64_t *b) {
    if (!lazyimg_input_ring_ready(ring)) return 0;
    lazyimg_input_slot *slot = &ring->slots[ring->head & ring->mask];
    *word = slot->word;
    *a = slot->a;
    *b = slot->b;
    atomic_store_explicit(&slot->sequence, ring->head + ring->mask + 1, memory_order_release);
    ring->head += 1;
    return 1;
}

/* The reader's next position: the positions before it are taken. */
static inline uint64_t lazyimg_input_ring_head(const lazyimg_input_ring *ring) {
    return ring->head;
}

#endif

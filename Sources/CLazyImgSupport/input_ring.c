#include "input_ring.h"

#include <stdlib.h>

lazyimg_input_ring *lazyimg_input_ring_create(uint64_t capacity) {
    if (capacity == 0 || (capacity & (capacity - 1)) != 0) return NULL;
    /* posix_memalign: aligned_alloc wants a size that is a multiple of the
     * alignment. Both on whole lines: the ring's are laid out by hand. */
    void *ring_memory = NULL, *slots_memory = NULL;
    if (capacity > UINT64_MAX / sizeof(lazyimg_input_slot)
        || posix_memalign(&ring_memory, 64, sizeof(lazyimg_input_ring)) != 0
        || posix_memalign(&slots_memory, 64, capacity * sizeof(lazyimg_input_slot)) != 0) {
        free(ring_memory);
        return NULL;
    }
    lazyimg_input_ring *ring = ring_memory;
    lazyimg_input_slot *slots = slots_memory;
    atomic_init(&ring->tail, 0);
    atomic_init(&ring->others, 0);
    ring->head = 0;
    ring->mask = capacity - 1;
    ring->slots = slots;
    for (uint64_t i = 0; i < capacity; i++) {
        atomic_init(&slots[i].sequence, i);
        slots[i].word = slots[i].a = slots[i].b = 0;
    }
    return ring;
}

void lazyimg_input_ring_destroy(lazyimg_input_ring *ring) {
    if (ring == NULL) return;
    free(ring->slots);
    free(ring);
}

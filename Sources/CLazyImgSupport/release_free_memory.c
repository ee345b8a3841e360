#include "lazyimg_support.h"

#include <malloc.h>

/* glibc keeps freed blocks in its arenas: images below the mmap threshold (which
 * rises to the largest block freed so far, up to 32 MiB) live there, and each decode
 * thread has an arena of its own. After the cache lets go of its images that memory
 * stays resident until malloc_trim hands the free pages back. */
void lazyimg_release_free_memory(void) {
    malloc_trim(0);
}

"""Stats: lazyimg_stats as a frozen dataclass (Loader.get_stats())."""
from __future__ import annotations

import dataclasses

from ._structs import StatsStruct


@dataclasses.dataclass(frozen=True)
class Stats:
    """The loader's counters since creation, and its caches' sizes now.
    Each field is the lazyimg_stats field of the same name (include/lazyimg.h
    says what it counts); tests/test_header_match.py keeps the two equal."""

    requests: int              #: request() calls that got past validation
    memory_hits: int           #: requests answered OK from memory
    downloads_started: int     #: transfers handed to libcurl
    downloads_coalesced: int   #: tickets that joined a download already wanted
    downloads_cancelled: int   #: transfers stopped before they finished
    downloads_failed: int      #: transfers that ended in an error
    deferred: int              #: requests answered DEFERRED
    bytes_downloaded: int      #: response body bytes received
    images_decoded: int        #: decodes done
    events_delivered: int      #: callbacks run
    memory_cache_bytes: int    #: now
    memory_cache_count: int    #: now
    in_flight: int             #: transfers running now
    prefetch_hits: int         #: requests answered with an image fetched ahead
    prefetch_wasted: int       #: images fetched ahead whose rows left unrequested
    prefetch_waste_bytes: int  #: their downloaded bytes
    downloads_retried: int     #: failed transfers started again after a backoff
    disk_hits: int             #: jobs answered from the disk cache without the network
    disk_revalidations: int    #: stale disk copies the server confirmed (304)
    disk_cache_bytes: int      #: now: the disk entries' bytes
    disk_cache_count: int      #: now: the disk entries
    disk_evictions: int        #: disk entries evicted to stay within the limit
    disk_write_errors: int     #: disk writes that failed (full, read-only)
    decodes_skipped: int       #: downloads not decoded because their rows left first
    bytes_resumed: int         #: body bytes not downloaded again (Range after an early stop)
    frames_decoded: int        #: animation frames decoded into a buffer
    animation_bytes: int       #: now: the animations' frames and canvases (in memory_cache_bytes)

    @classmethod
    def from_struct(cls, stats: StatsStruct) -> Stats:
        """The dataclass of a filled lazyimg_stats."""
        return cls(**{field.name: int(getattr(stats, field.name)) for field in dataclasses.fields(cls)})

"""The versioned structs of lazyimg.h as ctypes Structures.

A field added to the header is one line appended here, in the header's order;
tests/test_header_match.py compiles the header and reports any field whose
name, offset or size differs. Enum-typed fields are C ints.
"""
import ctypes


class EventStruct(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("type", ctypes.c_int),
        ("row", ctypes.c_size_t),
        ("ticket", ctypes.c_uint64),
        ("status", ctypes.c_int),
        ("http_status", ctypes.c_int32),
        ("source", ctypes.c_int),
        ("url", ctypes.c_char_p),
        ("image", ctypes.c_void_p),
        # Since 0.2.0:
        ("message", ctypes.c_char_p),
        # Since 0.3.0:
        ("data", ctypes.c_void_p),
        ("data_size", ctypes.c_size_t),
    ]


EVENT_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(EventStruct))


class ConfigStruct(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("on_event", EVENT_FN),
        ("user_data", ctypes.c_void_p),
        ("delivery", ctypes.c_int),
        ("target_width", ctypes.c_uint32),
        ("target_height", ctypes.c_uint32),
        ("memory_cache_bytes", ctypes.c_uint64),
        ("max_concurrent_downloads", ctypes.c_uint32),
        ("prefetch_rows", ctypes.c_int32),
        ("timeout_ms", ctypes.c_uint32),
        ("max_response_bytes", ctypes.c_uint64),
        ("max_pixels", ctypes.c_uint64),
        ("user_agent", ctypes.c_char_p),
        ("http_headers", ctypes.POINTER(ctypes.c_char_p)),
        ("retry_after_ms", ctypes.c_uint32),
        # Since 0.2.0:
        ("fit", ctypes.c_int),
        ("pixel_format", ctypes.c_int),
        ("output", ctypes.c_int),
        # Since 0.3.0:
        ("slow_scroll_rows_per_second", ctypes.c_double),
        ("prefetch_waste_bytes", ctypes.c_uint64),
        ("max_host_connections", ctypes.c_uint32),
        ("allow_file_urls", ctypes.c_int32),
        ("http_headers_origins", ctypes.POINTER(ctypes.c_char_p)),
        ("proxy", ctypes.c_char_p),
        ("ca_file", ctypes.c_char_p),
        ("decode_queue_bytes", ctypes.c_uint64),
        ("disk_cache_dir", ctypes.c_char_p),
        ("disk_cache_bytes", ctypes.c_uint64),
        ("disk_cache_serve_stale", ctypes.c_uint32),
        ("session", ctypes.c_void_p),
        ("max_decode_bytes", ctypes.c_uint64),
        ("animation_buffer_bytes", ctypes.c_uint64),
        ("fetch_first_pass_only", ctypes.c_uint32),
        ("preview_interval_ms", ctypes.c_uint32),
    ]


class StatsStruct(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32)] + [
        (name, ctypes.c_uint64) for name in (
            "requests", "memory_hits", "downloads_started", "downloads_coalesced",
            "downloads_cancelled", "downloads_failed", "deferred", "bytes_downloaded",
            "images_decoded", "events_delivered", "memory_cache_bytes",
            "memory_cache_count", "in_flight",
            # Since 0.3.0:
            "prefetch_hits", "prefetch_wasted", "prefetch_waste_bytes", "downloads_retried",
            "disk_hits", "disk_revalidations", "disk_cache_bytes", "disk_cache_count",
            "disk_evictions", "disk_write_errors", "decodes_skipped",
            # Since 0.4.0:
            "bytes_resumed", "frames_decoded", "animation_bytes",
        )
    ]


CONFIG_P = ctypes.POINTER(ConfigStruct)
STATS_P = ctypes.POINTER(StatsStruct)

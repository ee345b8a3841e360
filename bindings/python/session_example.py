"""A list and its detail view on one Session: each URL is downloaded once for
both boxes, and kept in a disk cache so that the next run reads it from disk.
Prints where each image came from (NETWORK on a first run, DISK after); exit
status 1 if any failed.

    python3 session_example.py CACHE_DIR URL...
"""
import sys

from lazyimg import Event, Loader, Session


def request_all(loader: Loader, urls: list[str]) -> dict[int, int]:
    """Shows `urls` and requests every row; returns {ticket: row}."""
    loader.set_items(urls)
    return {loader.request(row).ticket: row for row in range(len(urls))}


def events_by_row(loader: Loader, tickets: dict[int, int]) -> dict[int, Event]:
    """Dispatches until each ticket had its one event; returns {row: Event}."""
    events: dict[int, Event] = {}
    while len(events) < len(tickets):
        loader.wait()
        for event in loader.dispatch():
            events[tickets[event.ticket]] = event
    return events


def show(urls: list[str], cache_dir: str) -> list[tuple[Event, Event]]:
    """[(list Event, detail Event)] for each URL."""
    with Session(disk_cache_dir=cache_dir, disk_cache_bytes=64 << 20) as session, \
            Loader(session=session, target_width=64, target_height=64) as list_view, \
            Loader(session=session, target_width=256, target_height=256) as detail_view:
        # Both ask before either waits: one download answers both boxes.
        list_tickets = request_all(list_view, urls)
        detail_tickets = request_all(detail_view, urls)
        thumbnails = events_by_row(list_view, list_tickets)
        details = events_by_row(detail_view, detail_tickets)
    return [(thumbnails[row], details[row]) for row in range(len(urls))]


def main(argv: list[str]) -> bool:
    cache_dir, urls = argv[0], argv[1:]
    failed = False
    for url, (thumbnail, detail) in zip(urls, show(urls, cache_dir)):
        if thumbnail.image is None or detail.image is None:
            failed = True
            print(f"{url}: {thumbnail.error() or detail.error()}")
            continue
        print(f"{url}: {thumbnail.image.width}x{thumbnail.image.height} and "
              f"{detail.image.width}x{detail.image.height} from {thumbnail.source.name}")
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

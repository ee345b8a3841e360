"""Waiting for a loader's events the way a host does (lazyimg_wait, then
dispatch), never with sleeps."""
from lazyimg import Status

WAIT_S = 30.0


def events_for(loader, tickets):
    """Dispatches until each of `tickets` had its event; returns {ticket: Event}."""
    tickets = set(tickets)
    events = {}
    while len(events) < len(tickets):
        assert loader.wait(timeout=WAIT_S), "no event within 30 s"
        for event in loader.dispatch():
            assert event.ticket in tickets, event
            events[event.ticket] = event
    return events


def events_until(loader, ticket):
    """Dispatches until `ticket` had its event; returns every event dispatched
    meanwhile, in order, that one last."""
    events = []
    while not events or events[-1].ticket != ticket:
        assert loader.wait(timeout=WAIT_S), "no event within 30 s"
        for event in loader.dispatch():
            if not events or events[-1].ticket != ticket:
                events.append(event)
    return events


def load(loader, rows):
    """Requests `rows` (none may be in memory) and dispatches until each
    ticket had its event; returns {row: Event}."""
    tickets = {}
    for row in rows:
        result = loader.request(row)
        assert result.status in (Status.PENDING, Status.DEFERRED), result
        tickets[result.ticket] = row
    events = events_for(loader, tickets)
    for ticket, event in events.items():
        assert tickets[ticket] == event.row
    return {event.row: event for event in events.values()}

"""session_example.py (the README's session excerpt) against the loopback
server: the first run downloads each URL once for both boxes, the second reads
everything from the disk cache."""
import time

import session_example
from lazyimg import Source
from session_example import main, show


def hold_responses_until_both_loaders_started(monkeypatch, server, count):
    """Both loaders' first run must report NETWORK: the second loader's downloads
    join the first's while they are in flight. On loopback the first download can
    end, and even reach the disk cache, before the second loader asks; it would
    then be answered by the session's kept response or from disk (one download
    either way, but DISK for a source). So the server holds the responses
    (/slow/ paths) until both loaders have started `count` downloads each, then
    lets them go."""
    loaders = []
    request_all = session_example.request_all
    events_by_row = session_example.events_by_row

    def recording(loader, urls):
        loaders.append(loader)
        return request_all(loader, urls)

    def releasing(loader, tickets):
        deadline = time.monotonic() + 10
        while not server.release.is_set():
            if all(each.get_stats().downloads_started >= count for each in loaders) or time.monotonic() > deadline:
                server.release.set()
            else:
                time.sleep(0.001)
        return events_by_row(loader, tickets)

    monkeypatch.setattr(session_example, "request_all", recording)
    monkeypatch.setattr(session_example, "events_by_row", releasing)


def test_one_download_per_url_then_a_run_from_disk(server, tmp_path, capsys, monkeypatch):
    urls = [server.url("/slow/red.png"), server.url("/slow/blue.png")]
    hold_responses_until_both_loaders_started(monkeypatch, server, len(urls))
    for run, source in enumerate((Source.NETWORK, Source.DISK)):
        shown = show(urls, tmp_path)
        assert [(list_event.source, detail_event.source) for list_event, detail_event in shown] == [(source, source)] * 2
        assert [list_event.image.size for list_event, _ in shown] == [(40, 20), (10, 10)]
        assert server.hits("/slow/red.png") == server.hits("/slow/blue.png") == 1, f"run {run}"
    assert main([str(tmp_path), server.url("/slow/red.png"), server.url("/missing.png")]) is True
    printed = capsys.readouterr().out
    assert "40x20 and 40x20 from DISK" in printed and "E_HTTP" in printed

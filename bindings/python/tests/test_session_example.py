"""session_example.py (the README's session excerpt) against the loopback
server: the first run downloads each URL once for both boxes, the second reads
everything from the disk cache."""
from lazyimg import Source
from session_example import main, show


def test_one_download_per_url_then_a_run_from_disk(server, tmp_path, capsys):
    urls = [server.url("/red.png"), server.url("/blue.png")]
    for run, source in enumerate((Source.NETWORK, Source.DISK)):
        shown = show(urls, tmp_path)
        assert [(list_event.source, detail_event.source) for list_event, detail_event in shown] == [(source, source)] * 2
        assert [list_event.image.size for list_event, _ in shown] == [(40, 20), (10, 10)]
        assert server.hits("/red.png") == server.hits("/blue.png") == 1, f"run {run}"
    assert main([str(tmp_path), server.url("/red.png"), server.url("/missing.png")]) is True
    printed = capsys.readouterr().out
    assert "40x20 and 40x20 from DISK" in printed and "E_HTTP" in printed

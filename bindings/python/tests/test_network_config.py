"""The 0.3 network settings of lazyimg_config, passed as Loader keywords, act
on the loopback server."""
import pytest

from lazyimg import EventType, LazyImgError, Loader, Status
from waiting import events_for, load


def file_url(path):
    return "file://" + str(path)


def test_file_urls_are_refused_unless_allowed(server, tmp_path):
    picture = tmp_path / "green.png"
    picture.write_bytes(server.files["/green.png"])
    with Loader() as loader:  # allow_file_urls = 0 by default
        loader.set_items([file_url(picture)])
        with pytest.raises(LazyImgError) as raised:
            loader.request(0)
        assert raised.value.status == Status.E_BAD_URL
        with pytest.raises(LazyImgError) as raised:
            loader.fetch(file_url(picture))
        assert raised.value.status == Status.E_BAD_URL
    with Loader(allow_file_urls=1) as loader:
        loader.set_items([file_url(picture)])
        assert load(loader, [0])[0].image.size == (16, 16)
    with pytest.raises(ValueError, match="allow_file_urls must be True or False, got 2"):
        Loader(allow_file_urls=2)


def test_max_host_connections_one_carries_every_download_on_one_connection(server):
    with Loader(max_host_connections=1) as loader:
        loader.set_items([server.url(path) for path in ("/red.png", "/green.png", "/blue.png", "/missing.png")])
        events = load(loader, range(4))
        assert [events[row].type for row in range(4)] == [EventType.IMAGE] * 3 + [EventType.FAILED]
    assert len(server.client_ports) == 4 and len(set(server.client_ports)) == 1
    with pytest.raises(ValueError, match="max_host_connections must be between 0 and 64, got 65"):
        Loader(max_host_connections=65)


@pytest.mark.parametrize("origins, sent", [(None, True), (["http://elsewhere.example"], False), ("own", True)])
def test_http_headers_go_only_to_the_named_origins(server, origins, sent):
    if origins == "own":
        origins = [server.url("").encode()]  # bytes are accepted as well as str
    with Loader(http_headers=["X-Test: yes"], http_headers_origins=origins) as loader:
        loader.set_items([server.url("/green.png")])
        assert load(loader, [0])[0].ok
    assert ("X-Test" in server.headers[0]) == sent


def test_a_malformed_origin_or_a_single_string_is_refused():
    with pytest.raises(ValueError, match=r"http_headers_origins\[0\] must be an origin"):
        Loader(http_headers=["X-Test: yes"], http_headers_origins=["not an origin"])
    with pytest.raises(TypeError, match="list"):
        Loader(http_headers_origins="http://127.0.0.1")


def test_proxy_carries_the_requests(server):
    with Loader(proxy=server.url("")) as loader:
        url = "http://images.example.invalid/green.png"
        loader.set_items([url])
        assert load(loader, [0])[0].image.size == (16, 16)
        ticket = loader.fetch("http://feeds.example.invalid/feed.json")
        assert events_for(loader, [ticket])[ticket].data == server.files["/feed.json"]
    assert server.proxied == [url, "http://feeds.example.invalid/feed.json"]


def test_an_unreadable_ca_file_is_refused_at_create(tmp_path):
    with pytest.raises(ValueError, match="ca_file must be a readable file"):
        Loader(ca_file=tmp_path / "missing.pem")  # a path object is accepted


def test_budgets_are_accepted_and_get_stats_has_the_new_counters(server):
    with Loader(prefetch_waste_bytes=1 << 20, decode_queue_bytes=1 << 20) as loader:
        loader.set_items([server.url("/green.png")])
        assert load(loader, [0])[0].ok
        stats = loader.get_stats()
        assert stats.downloads_started == 1 and stats.downloads_retried == 0
        assert (stats.prefetch_hits, stats.prefetch_wasted, stats.prefetch_waste_bytes) == (0, 0, 0)


@pytest.mark.parametrize("first_pass_only", [True, False])
def test_fetch_first_pass_only_stops_a_progressive_jpeg_at_its_dc_scans(server, first_pass_only):
    # A progressive JPEG (Pillow writes libjpeg's default scans, the DC first) in a
    # box an eighth of its size: on a server not known yet the file is asked for
    # whole, and with the field on its body stops once the DC scans have come.
    import io
    import os

    import PIL.Image
    encoded = io.BytesIO()
    PIL.Image.frombytes("RGB", (768, 512), os.urandom(768 * 512 * 3)).save(
        encoded, "JPEG", quality=80, progressive=True)
    server.files["/p.jpg"] = encoded.getvalue()
    with Loader(target_width=64, target_height=64, fetch_first_pass_only=first_pass_only) as loader:
        loader.set_items([server.url("/p.jpg")])
        assert load(loader, [0])[0].ok
        received = loader.get_stats().bytes_downloaded
    assert "Range" not in server.headers[0]
    if first_pass_only:
        assert received < len(server.files["/p.jpg"]) // 2
    else:
        assert received == len(server.files["/p.jpg"])

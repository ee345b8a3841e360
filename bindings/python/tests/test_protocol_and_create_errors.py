"""E_PROTOCOL is a ProtocolError, and a refused create says why
(lazyimg_create_error)."""
import pytest

from lazyimg import InvalidArgumentError, LazyImgError, Loader, NetworkError, ProtocolError, Status
from waiting import load


def test_a_redirect_loop_is_a_protocol_error(server):
    with Loader() as loader:
        loader.set_items([server.url("/loop")])
        error = load(loader, [0])[0].error()
        assert isinstance(error, ProtocolError) and not isinstance(error, NetworkError)
        assert error.status == Status.E_PROTOCOL
        with pytest.raises(ProtocolError):
            raise error


def test_a_ca_file_without_a_certificate_is_refused_with_the_reason(tmp_path):
    not_pem = tmp_path / "ca.pem"
    not_pem.write_text("this holds no certificate\n")
    with pytest.raises(InvalidArgumentError) as raised:
        Loader(ca_file=not_pem)
    text = str(raised.value)
    assert "lazyimg_loader_create refused the configuration: " in text
    assert "certificate" in raised.value.message.split("configuration: ", 1)[1]


def test_a_refusal_without_a_reason_says_only_that(tmp_path):
    # A disk cache directory that is a file: IO, and no create_error text.
    plain = tmp_path / "file"
    plain.write_text("x")
    with pytest.raises(LazyImgError) as raised:
        Loader(disk_cache_dir=plain)
    assert raised.value.message == "lazyimg_loader_create refused the configuration"

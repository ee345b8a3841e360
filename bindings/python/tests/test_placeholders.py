"""Placeholders from a feed's hashes (lazyimg_set_placeholders): request()
answers PLACEHOLDER with the drawn blur and a ticket whose event brings the
real image; hashes that do not parse are a BadPlaceholderError naming the
row."""
import asyncio

import pytest

from lazyimg import (BadPlaceholderError, EventType, Loader, OutOfRangeError, PlaceholderKind, Status)
from lazyimg.aio import AsyncLoader
from waiting import events_for

# The BlurHash of the format's README, and a ThumbHash (base64) of a
# portrait picture.
BLURHASH = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
THUMBHASH = "1QcSHQRnh493V4dIh4eXh1h4kJUI"


def test_a_row_with_a_hash_answers_its_placeholder_then_its_image(server):
    with Loader(target_width=48, target_height=48) as loader:
        loader.set_items([server.url("/slow/0.png"), server.url("/slow/1.png")])
        loader.set_placeholders(0, [BLURHASH])
        answer = loader.request(0)
        assert answer.status == Status.PLACEHOLDER
        assert answer.image is not None and answer.image.is_placeholder
        assert answer.image.size == (48, 48)  # a BlurHash fills the box
        assert answer.ticket != 0
        other = loader.request(1)  # no hash: as before
        assert other.status == Status.PENDING and other.image is None
        server.release.set()
        event = events_for(loader, [answer.ticket, other.ticket])[answer.ticket]
        assert event.type == EventType.IMAGE
        assert not event.image.is_placeholder and event.image.size == (8, 8)
        assert loader.request(0).status == Status.OK  # from memory now


def test_lookup_placeholder_draws_a_thumbhash_at_its_own_aspect(server):
    with Loader(target_width=64, target_height=64) as loader:
        loader.set_items([server.url("/slow/0.png"), server.url("/slow/1.png")])
        loader.set_placeholders(0, [None, THUMBHASH], kind=PlaceholderKind.THUMBHASH)
        assert loader.lookup_placeholder(0) is None
        image = loader.lookup_placeholder(1)
        assert image is not None and image.is_placeholder
        assert image.height == 64 and 0 < image.width < 64  # portrait, fitted inside
        loader.set_placeholders(1, [None])  # None removes it
        assert loader.lookup_placeholder(1) is None


def test_a_bad_hash_names_its_row_and_the_other_rows_are_set(server):
    with Loader() as loader:
        loader.set_items([server.url(f"/slow/{n}.png") for n in range(3)])
        with pytest.raises(BadPlaceholderError) as raised:
            loader.set_placeholders(0, [BLURHASH, "not a blurhash!", BLURHASH])
        assert raised.value.status == Status.E_BAD_PLACEHOLDER
        assert raised.value.row == 1 and raised.value.message
        assert isinstance(raised.value, ValueError)
        assert loader.lookup_placeholder(0) is not None
        assert loader.lookup_placeholder(1) is None
        assert loader.lookup_placeholder(2) is not None


def test_placeholder_arguments_are_checked(server):
    with Loader() as loader:
        loader.set_items([server.url("/slow/0.png")])
        with pytest.raises(OutOfRangeError):
            loader.set_placeholders(1, [BLURHASH])
        assert loader.lookup_placeholder(0) is None  # nothing was set
        with pytest.raises(TypeError, match="hashes must be a list of hashes"):
            loader.set_placeholders(0, BLURHASH)
        with pytest.raises(ValueError, match="first_row must not be negative"):
            loader.set_placeholders(-1, [BLURHASH])
        with pytest.raises(TypeError, match="kind must be a PlaceholderKind"):
            loader.set_placeholders(0, [BLURHASH], kind="blurhash")


def test_asyncio_awaits_the_image_not_the_placeholder(server):
    async def main():
        async with AsyncLoader() as loader:
            loader.set_items([server.url("/slow/2.png")])
            loader.set_placeholders(0, [BLURHASH])
            assert loader.request(0).status == Status.PLACEHOLDER
            server.release.set()
            return await asyncio.wait_for(loader.image(0), 30)

    image = asyncio.run(main())
    assert not image.is_placeholder and image.size == (8, 8)

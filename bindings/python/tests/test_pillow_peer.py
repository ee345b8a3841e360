"""lazyimg against a peer: every file of the test corpus (../shared/corpus next
to the repository), decoded by the library through this binding and by Pillow
(Debian's python3-pil). Where one shows an image and the other refuses the
file, or they disagree about its size, that is a disagreement; every one is
printed, and each must be in pillow_disagreements.txt with the reason it is
right (issue 20, section 5). Files in formats lazyimg does not claim (BMP,
PPM, PGM, TIFF) count as agreeing when lazyimg calls them UNSUPPORTED.
"""
import os

import pytest

from lazyimg import EventType, Loader, Status
from waiting import events_for

PIL = pytest.importorskip("PIL.Image")
# The documented list is Debian 12's Pillow's verdicts (9.4, with its libjpeg-turbo
# and libpng); a Pillow from PyPI bundles other decoder versions, which disagree
# elsewhere (the wheel's venv has one).
PEER_VERSION = "9.4."
if not PIL.__version__.startswith(PEER_VERSION):
    pytest.skip(f"the disagreements are documented against Debian's Pillow {PEER_VERSION}x, "
                f"not Pillow {PIL.__version__}", allow_module_level=True)

HERE = os.path.dirname(__file__)
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "shared", "corpus"))
DOCUMENTED = os.path.join(HERE, "pillow_disagreements.txt")
# Pillow's names for the formats lazyimg decodes (MPO: a JPEG with more pictures).
CLAIMED = {"JPEG", "MPO", "PNG", "GIF", "WEBP"}
NOT_IMAGES = (".md", ".txt", "SHA256SUMS", "LICENSE", "README", ".ijg")


def corpus_files():
    paths = []
    for root, _dirs, names in os.walk(CORPUS):
        for name in names:
            if not name.endswith(NOT_IMAGES) and "LICENSE" not in name and "README" not in name:
                paths.append(os.path.relpath(os.path.join(root, name), CORPUS))
    return sorted(paths)


def pillow_verdict(path):
    """('ok', (w, h), format) or ('refused', error name, format or None)."""
    try:
        with PIL.open(path) as image:
            image.load()
            return "ok", image.size, image.format
    except Exception as error:  # noqa: BLE001 (any refusal is an answer)
        return "refused", type(error).__name__, None


def lazyimg_verdicts(paths):
    """{path: ('ok', (w, h), damaged) or ('refused', status name, message)}."""
    urls = ["file://" + os.path.join(CORPUS, path) for path in paths]
    verdicts = {}
    with Loader(allow_file_urls=1, target_width=64, target_height=64) as loader:
        loader.set_items(urls)
        loader.set_visible_range(0, len(urls))
        tickets = {}
        for row in range(len(urls)):
            result = loader.request(row)
            assert result.status in (Status.PENDING, Status.DEFERRED), result
            tickets[result.ticket] = row
        for event in events_for(loader, tickets).values():
            path = paths[event.row]
            if event.type == EventType.IMAGE:
                size = (event.image.source_width, event.image.source_height)
                verdicts[path] = ("ok", size, event.image.is_damaged)
            else:
                verdicts[path] = ("refused", event.status.name, event.message)
    return verdicts


def documented():
    """{path: (kind, reason)} from pillow_disagreements.txt: "path | kind | reason"."""
    entries = {}
    with open(DOCUMENTED) as lines:
        for line in lines:
            if line.strip() and not line.startswith("#"):
                path, kind, reason = (part.strip() for part in line.split("|", 2))
                entries[path] = (kind, reason)
    return entries


def test_every_disagreement_with_pillow_is_documented():
    if not os.path.isdir(CORPUS):
        pytest.skip(f"no test corpus at {CORPUS}")
    paths = corpus_files()
    assert len(paths) > 600
    ours = lazyimg_verdicts(paths)
    found = {}
    damaged = []
    for path in paths:
        theirs = pillow_verdict(os.path.join(CORPUS, path))
        mine = ours[path]
        if mine[0] == "ok" and mine[2]:
            damaged.append(path)
        if theirs[0] == "ok" and mine[0] == "refused":
            if theirs[2] not in CLAIMED and mine[1] == "E_UNSUPPORTED":
                continue
            found[path] = ("lazyimg refuses", f"Pillow {theirs[1][0]}x{theirs[1][1]}; lazyimg {mine[1]}: {mine[2]}")
        elif theirs[0] == "refused" and mine[0] == "ok":
            found[path] = ("Pillow refuses", f"Pillow {theirs[1]}; lazyimg {mine[1][0]}x{mine[1][1]}"
                           + (" damaged" if mine[2] else ""))
        elif theirs[0] == "ok" and sorted(theirs[1]) != sorted(mine[1]):
            found[path] = ("sizes differ", f"Pillow {theirs[1]}, lazyimg {mine[1]}")
    print(f"\n{len(paths)} files; {len(found)} disagreements; {len(damaged)} shown as damaged")
    for path, (kind, detail) in sorted(found.items()):
        print(f"  {kind}: {path}: {detail}")
    expected = documented()
    unexplained = {path: found[path] for path in found if found[path][0] != expected.get(path, ("",))[0]}
    gone = sorted(set(expected) - set(found))
    assert not unexplained, f"disagreements not in {os.path.basename(DOCUMENTED)}: {unexplained}"
    assert not gone, f"documented disagreements that no longer happen: {gone}"

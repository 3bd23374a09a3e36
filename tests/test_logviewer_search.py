"""The logviewer's search, paging and file checks (``pynimbus.logviewer``'s pure modules) on
real files: what 1.2.4 logviewer.clj's ``substring-search``, ``find-n-matches``,
``page-file`` and ``pager-links`` compute, including on Storm's own search test files (read
from the Storm mirror when it is there)."""

import gzip
import os
import subprocess

import pytest

from pynimbus.logviewer import listing, pages, paths
from pynimbus.logviewer.search import (
    DEFAULT_BYTES_PER_PAGE, InvalidRequest, LinkMaker, find_n_matches, hiccup_url,
    substring_search)

MIRROR = "/work/.mirror/apache+storm/repo"
LINKS = LinkMaker("host.invalid", 8000)


def storm_dev_file(tmp_path, name):
    """One of 1.2.4's ``storm-core/src/dev`` search test files, read from the mirror."""
    try:
        data = subprocess.run(["git", "-C", MIRROR, "show",
                               "v1.2.4:storm-core/src/dev/" + name],
                              capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the Storm mirror is not on this machine")
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def offsets(answer):
    return [m["byteOffset"] for m in answer["matches"]]


@pytest.mark.parametrize("wanted,found,next_offset", [
    (1, 1, 11), (2, 2, 2042), (3, 3, 2052), (4, 4, 3078), (5, 5, 3196), (6, 6, 3202),
    (7, 7, 6252), (8, 8, 6321), (9, 9, 6397), (10, 10, 6476), (11, 11, 6554), (12, 12, None),
    (13, 12, None)])
def test_next_byte_offsets_on_storms_test_file(tmp_path, wanted, found, next_offset):
    """Each number of matches asked on Storm's test-worker.log gives Storm's count and
    nextByteOffset (matches across the 1024-byte halves of the buffer included)."""
    path = storm_dev_file(tmp_path, "test-worker.log.test")
    answer = substring_search(path, "needle", LINKS, num_matches=wanted)
    assert len(answer["matches"]) == found
    assert answer.get("nextByteOffset") == next_offset


def test_contexts_are_the_128_bytes_around_each_match(tmp_path):
    """Before and after strings are the file's bytes around the match, whichever buffer
    half they fell in."""
    path = storm_dev_file(tmp_path, "test-worker.log.test")
    data = open(path, "rb").read()
    answer = substring_search(path, "needle", LINKS, num_matches=7)
    assert offsets(answer) == [5, 2036, 2046, 3072, 3190, 3196, 6246]
    for m in answer["matches"]:
        at = m["byteOffset"]
        assert m["beforeString"] == data[max(0, at - 128):at].decode("utf-8", "replace")
        assert m["afterString"] == data[at + 6:at + 6 + 128].decode("utf-8", "replace")
        assert m["matchString"] == "needle"


def test_a_1024_byte_search_string_and_multibyte_characters(tmp_path):
    """The longest search string (half the buffer) and a search of 4-byte characters are
    found where Storm finds them."""
    path = storm_dev_file(tmp_path, "test-worker.log.test")
    answer = substring_search(path, "X" * 1024, LINKS, num_matches=2)
    assert (offsets(answer), answer["nextByteOffset"]) == ([4075, 5159], 6183)
    answer = substring_search(path, "\U00010100\U00010101\U00010102", LINKS, num_matches=1)
    assert (offsets(answer), answer["nextByteOffset"]) == ([7164], 7176)


def test_skipping_bytes_and_the_end_of_file(tmp_path):
    """A start offset skips matches before it; a file that ends on the buffer's edge gives
    no next offset; an unseen string gives no match and no next offset."""
    path = storm_dev_file(tmp_path, "test-worker.log.test")
    answer = substring_search(path, "needle", LINKS, num_matches=1, start_byte_offset=3197)
    assert (answer["startByteOffset"], offsets(answer), answer["nextByteOffset"]) == (
        3197, [6246], 6252)
    assert substring_search(path, "Not There", LINKS) == {
        "isDaemon": "no", "searchString": "Not There", "startByteOffset": 0, "matches": []}
    edge = storm_dev_file(tmp_path, "test-3072.log.test")
    answer = substring_search(edge, "needle", LINKS)
    assert offsets(answer) == [3066] and "nextByteOffset" not in answer
    assert answer["matches"][0]["afterString"] == ""


def test_searching_past_the_end_is_an_invalid_request(tmp_path):
    path = tmp_path / "worker.log"
    path.write_bytes(b"abc needle\n")
    with pytest.raises(InvalidRequest, match="past the end"):
        substring_search(str(path), "needle", LINKS, start_byte_offset=12)


def test_gzipped_log_is_searched_as_its_text(tmp_path):
    """A rotated ``.gz`` log answers the same matches as the same text uncompressed."""
    text = b"".join(b"line %06d %s\n" % (i, b"needle" if i % 97 == 0 else b"hay")
                    for i in range(3000))
    plain = tmp_path / "a" / "6700" / "worker.log"
    plain.parent.mkdir(parents=True)
    plain.write_bytes(text)
    zipped = tmp_path / "a" / "6700" / "worker.log.1.gz"
    with gzip.open(str(zipped), "wb") as f:
        f.write(text)
    one = substring_search(str(plain), "needle", LINKS, num_matches=20)
    other = substring_search(str(zipped), "needle", LINKS, num_matches=20)
    assert len(one["matches"]) == 20 and one["nextByteOffset"] == other["nextByteOffset"]
    for a, b in zip(one["matches"], other["matches"]):
        assert a["byteOffset"] == b["byteOffset"]
        assert (a["beforeString"], a["afterString"]) == (b["beforeString"], b["afterString"])
    assert other["matches"][0]["logviewerURL"] == hiccup_url(
        "http://host.invalid:8000/log", [("file", "a/6700/worker.log.1.gz"), ("start", 0),
                                         ("length", DEFAULT_BYTES_PER_PAGE)])


def test_link_centers_the_match_in_a_page():
    """``url-to-match-centered-in-log-page``: half a page before the match, plus half the
    needle; the file named by its last three parts, URL-encoded as hiccup encodes."""
    url = LINKS.centered(b"x" * 42, "/root/t-1-1/6700/worker.log", 27526)
    assert url == ("http://host.invalid:8000/log?file=t-1-1%2F6700%2Fworker.log"
                   "&start=1947&length=51200")
    assert LINKS.centered(b"x", "/logs/nimbus.log", 5, is_daemon=True) == (
        "http://host.invalid:8000/daemonlog?file=nimbus.log&start=0&length=51200")


def test_find_n_matches_goes_through_the_files_until_n(tmp_path):
    """``find-n-matches``: per file its matches with fileName and port; a start offset in
    the first file only; the file offset skips files."""
    port_dir = tmp_path / "t-1-1" / "6700"
    port_dir.mkdir(parents=True)
    first, second = port_dir / "worker.log", port_dir / "worker.log.1"
    first.write_bytes(b"needle " * 4 + b"\n")
    second.write_bytes(b"hay needle\n" * 4)
    logs = [str(first), str(second)]
    answer = find_n_matches(logs, 20, 0, 0, "needle", LINKS)
    assert answer["fileOffset"] == 0 and answer["searchString"] == "needle"
    assert [(m["fileName"], m["port"], len(m["matches"])) for m in answer["matches"]] == [
        ("t-1-1/6700/worker.log", "6700", 4), ("t-1-1/6700/worker.log.1", "6700", 4)]
    assert [len(m["matches"]) for m in find_n_matches(logs, 20, 0, 8, "needle",
                                                      LINKS)["matches"]] == [2, 4]
    assert [len(m["matches"]) for m in find_n_matches(logs, 5, 0, 0, "needle",
                                                      LINKS)["matches"]] == [4, 1]
    assert [m["fileName"] for m in find_n_matches(logs, 20, 1, 0, "needle",
                                                  LINKS)["matches"]] == [
        "t-1-1/6700/worker.log.1"]
    # an offset past the first file's end skips it, as Storm's InvalidRequestException does
    assert [m["fileName"] for m in find_n_matches(logs, 20, 0, 1000, "needle",
                                                  LINKS)["matches"]] == [
        "t-1-1/6700/worker.log.1"]


def test_page_file_and_pager_links(tmp_path):
    """``page-file``: ``length`` bytes from ``start``, or the last ``length`` bytes; the
    pager's Prev/First/Last/Next starts as Storm computes them."""
    path = tmp_path / "worker.log"
    path.write_bytes(bytes(range(48, 58)) * 100)
    assert pages.page_file(str(path), 10, 5) == "01234"
    assert pages.page_file(str(path), None, 3) == "789"
    with pytest.raises(InvalidRequest, match="past the end"):
        pages.page_file(str(path), 1000, 5)
    links = pages.pager_links("t/1/worker.log", 100, 300, 1000, "log")
    assert "start=0&amp;length=300\">Prev" in links.replace(
        'class="btn btn-default enabled" ', "")
    assert "file=t%2F1%2Fworker.log&amp;start=400&amp;length=300" in links
    assert "btn btn-default disabled" not in links
    first_page = pages.pager_links("t/1/worker.log", 0, 300, 1000, "log")
    assert first_page.count("disabled") == 1  # Prev
    last_page = pages.pager_links("t/1/worker.log", 700, 300, 1000, "log")
    assert last_page.count("disabled") == 1 and "start=700&amp;length=300" in last_page


@pytest.mark.parametrize("fname", [
    "../nimbus.log", "t/../../nimbus.log", "/etc/passwd", "t/6700/../../../x", "t/./6700/w",
    "t/6700/worker.log\0.txt", "", ".", "t//6700/worker.log"])
def test_names_that_leave_or_bend_the_root_are_refused(tmp_path, fname):
    """Traversal, absolute, dotted and NUL names are never turned into a path."""
    (tmp_path / "t" / "6700").mkdir(parents=True)
    (tmp_path / "t" / "6700" / "worker.log").write_text("x")
    assert paths.servable_file(str(tmp_path), fname) is None
    assert paths.worker_log_file(str(tmp_path), fname) is None
    metadata = paths.worker_metadata_path(str(tmp_path), fname)
    assert metadata is None or paths.is_under(os.path.realpath(metadata), str(tmp_path))


def test_symlinks_are_served_only_when_they_stay_in_the_root(tmp_path):
    root = tmp_path / "root"
    (root / "t" / "6700").mkdir(parents=True)
    (root / "t" / "6700" / "worker.log").write_text("x")
    (tmp_path / "secret").write_text("s")
    os.symlink(str(tmp_path / "secret"), str(root / "t" / "6700" / "worker.log.out"))
    os.symlink(str(root / "t" / "6700" / "worker.log"), str(root / "t" / "6700" / "w.log"))
    assert paths.servable_file(str(root), "t/6700/worker.log.out") is None
    assert paths.worker_log_file(str(root), "t/6700/w.log") == os.path.realpath(
        str(root / "t" / "6700" / "worker.log"))
    # listed by the canonical name, as Storm's get-topo-port-workerlog names it; the link
    # out of the root not at all
    assert listing.list_log_files(str(root)) == ["t/6700/worker.log", "t/6700/worker.log"]


@pytest.mark.parametrize("name", ["answers", "authorization", "cleanup", "files", "listing",
                                  "pages", "paths", "search"])
def test_the_logic_modules_import_no_twisted(name):
    """Only the server is Twisted: the answers, checks, search, paging and cleanup choices
    are plain functions the server calls in threads."""
    import importlib

    from purity import imported_modules

    module = importlib.import_module("pynimbus.logviewer." + name)
    assert not {m for m in imported_modules(module) if m.split(".")[0] in ("twisted", "kazoo")}

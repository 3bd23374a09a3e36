"""Topology ids are <name>-<counter>-<secs> (pynimbus.clojure_port.storm_id)."""
# test-case-name: tests.test_port_storm_id

from pynimbus.clojure_port.storm_id import make_storm_id


def test_storm_id_joins_name_counter_and_seconds():
    """The id is the name, the submission counter and the Unix time in seconds, joined by '-'."""
    assert make_storm_id("wordcount", 1, 1700000000) == "wordcount-1-1700000000"


def test_storm_id_truncates_fractional_seconds():
    """A float clock reading is cut to whole seconds, as current-time-secs does."""
    assert make_storm_id("t", 12, 1700000000.999) == "t-12-1700000000"


def test_storm_id_keeps_dashes_in_the_name():
    """Names may contain dashes; the id simply appends the counter and time."""
    assert make_storm_id("my-topo", 3, 5) == "my-topo-3-5"

"""What the topology conf's ports share (clojure_port.conf): ObjectReader's readings."""
# test-case-name: tests.test_port_conf

import pytest

from pynimbus.clojure_port.conf import get_int


def test_get_int_reads_like_object_reader():
    """ObjectReader.getInt: ints, numeric strings, the default for None; doubles refused."""
    assert get_int(3) == 3 and get_int("-4") == -4
    assert get_int(None, 7) == 7
    for bad in (2.0, True, 2 ** 31, "x"):
        with pytest.raises(ValueError):
            get_int(bad)

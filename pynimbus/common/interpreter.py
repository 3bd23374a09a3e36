"""The nimbus process's interpreter settings: how soon the reactor gets the GIL back from a
busy thread, and when the cyclic garbage collector walks the whole heap.

At 1,000 topologies a nimbus holds a few million objects (the read cache's decoded values,
the monitor's state, the memos of the queries).  CPython collects its oldest generation when
enough objects have aged into it, and the nimbus ages many: decoded heartbeats live a few
seconds, until the next one replaces them.  Each such collection walked the whole heap with
the GIL held, 100 to 250 ms, every second or two while topologies were submitted and every
few seconds after (measured with ``gc.callbacks`` on ``bench/bench_read_path.py``'s cluster),
and every call arriving meanwhile waited.  So the oldest generation is collected on a timer
instead (``pynimbus.nimbus.gc.full.secs``); the young ones stay Python's.  Only reference
cycles wait for it: everything else is freed when its last reference goes.
"""

import gc
import sys

from twisted.internet import task

from pynimbus.common.config import PYNIMBUS_DEFAULTS

SWITCH_INTERVAL_KEY = "pynimbus.nimbus.switch.interval.secs"
FULL_COLLECTION_KEY = "pynimbus.nimbus.gc.full.secs"
# A count of young collections the collector never reaches: no full collection of its own.
_NEVER = 1 << 30


def _setting(conf, key):
    return conf.get(key, PYNIMBUS_DEFAULTS[key])


def set_switch_interval(conf):
    """``sys.setswitchinterval`` from ``pynimbus.nimbus.switch.interval.secs``: how long a busy
    thread (a mk-assignments round, the read cache's reads) keeps the GIL while the reactor
    waits to answer a call."""
    sys.setswitchinterval(float(_setting(conf, SWITCH_INTERVAL_KEY)))


def schedule_full_collections(conf, clock):
    """Collect the oldest generation every ``pynimbus.nimbus.gc.full.secs`` seconds of
    ``clock`` (a reactor) and never on the collector's own count; returns the LoopingCall, or
    None when the setting is null (Python's own schedule, left as it is)."""
    secs = _setting(conf, FULL_COLLECTION_KEY)
    if secs is None:
        return None
    young, middle, _oldest = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)
    loop = task.LoopingCall(gc.collect)
    loop.clock = clock
    loop.start(float(secs), now=False)
    return loop

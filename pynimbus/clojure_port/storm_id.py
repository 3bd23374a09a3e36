"""Topology ids (pure).

Port of the storm-id line of nimbus.clj ``submitTopologyWithOpts`` (1.2.4); 2.8.8
``Nimbus.submitTopologyWithOpts``: ``<name>-<counter>-<secs>``, where the counter is nimbus's
in-memory count of submissions (1 for the first after start) and secs the current Unix time in
whole seconds.  Both are passed in.
"""


def make_storm_id(name, counter, now_secs):
    """Return ``"<name>-<counter>-<now_secs>"`` (``wordcount-1-1700000000``).

    ``now_secs`` may be a float; it is truncated to whole seconds as Storm's
    ``current-time-secs`` / ``Time.currentTimeSecs`` do.
    """
    return "%s-%d-%d" % (name, counter, int(now_secs))

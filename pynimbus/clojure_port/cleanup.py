"""Which topologies a 2.x Nimbus cleans up, and when (pure).

2.8.8 does not tear down what is left of a topology (heartbeats, errors, blobs) as soon as it is
gone from ``/storms``: each id is cleaned only once it has been a candidate for
``nimbus.topology.blobstore.deletion.delay.ms`` (5 minutes by default), so that a blob uploaded
just before its topology's StormBase is written is never taken for a leftover.
"""

DEFAULT_DELETION_DELAY_MS = 5 * 60 * 1000


class CleanupDetected:
    """Port of 2.8.8 ``Nimbus.topologyCleanupDetected`` (a two-bucket RotatingMap) and
    ``topologyCleanupRotationTime``: when each candidate was first seen."""

    def __init__(self, now_ms):
        self.buckets = [{}, {}]  # newest first
        self.rotation_time_ms = now_ms

    def detected_time(self, storm_id, now_ms):
        """Port of ``getTopologyCleanupDetectedTime``."""
        for bucket in self.buckets:
            if storm_id in bucket:
                return bucket[storm_id]
        self.buckets[0][storm_id] = now_ms
        return now_ms

    def rotate(self, deletion_delay_ms, now_ms):
        """Port of ``rotateTopologyCleanupMap``: the oldest bucket is dropped."""
        if now_ms - self.rotation_time_ms > deletion_delay_ms:
            self.buckets = [{}, self.buckets[0]]
            self.rotation_time_ms = now_ms


def expired_topology_ids(candidates, detected, conf, now_ms):
    """Port of 2.8.8 ``Nimbus.getExpiredTopologyIds``: the candidates first seen at least
    the deletion delay ago."""
    delay = conf.get("nimbus.topology.blobstore.deletion.delay.ms")
    delay = DEFAULT_DELETION_DELAY_MS if delay is None else int(delay)
    expired = {storm_id for storm_id in candidates
               if max(0, now_ms - detected.detected_time(storm_id, now_ms)) >= delay}
    detected.rotate(delay, now_ms)
    return expired

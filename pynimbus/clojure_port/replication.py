"""Whether a submission still waits for its code to be replicated (pure).

Port of the loop tests of nimbus.clj ``wait-for-desired-code-replication`` (1.2.4) and
``Nimbus.waitForDesiredCodeReplication`` (2.8.8).  The shell asks :func:`replication_wait_step`
before each one-second wait with the replication counts of the jar, code and conf blobs and how
many seconds it has waited; the generations differ:

* 1.2.4 waits while *any* count is below ``topology.min.replication.count``, for at most
  ``topology.max.replication.wait.time.sec`` seconds (negative: for ever; 0: not at all);
* 2.8.8 waits while *every* count is below it, and gives up once it has waited *more* than the
  maximum (0 or negative: for ever).
"""

WAIT = "wait"
ACHIEVED = "achieved"
GAVE_UP = "gave-up"


def replication_wait_step(compat, counts, min_count, max_wait_secs, waited_secs):
    """``WAIT`` (sleep a second, check leadership, count again), ``ACHIEVED`` or ``GAVE_UP``.

    :param counts: replication counts of the jar, code and conf blobs (a topology without a
        jar counts ``min_count`` for it, as Storm's local mode).
    """
    if compat == "2.x":
        if not all(count < min_count for count in counts):
            return ACHIEVED
        if max_wait_secs > 0 and waited_secs > max_wait_secs:
            return GAVE_UP
        return WAIT
    if all(count >= min_count for count in counts):
        return ACHIEVED
    if max_wait_secs < 0 or waited_secs < max_wait_secs:
        return WAIT
    return GAVE_UP

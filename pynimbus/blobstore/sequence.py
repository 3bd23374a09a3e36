"""The ZooKeeper sequence number of a blob key: how many times nimbus has stored it.

Port of ``KeySequenceNumber.getKeySequenceNumber`` (Storm 1.2.4), as a pure function of what
ZooKeeper holds.  The children of ``/blobstore/<key>`` are ``<host>:<port>-<seq>``, one per
nimbus holding the blob; ``/blobstoremaxkeysequencenumber/<key>`` holds the highest number
handed out.  The caller reads both, calls :func:`key_sequence_number`, writes the new maximum
it returns (if any), then registers ``<host>:<port>-<version>``.

Deliberate differences:

* A nimbus recognises its own child by the ``<host>:<port>-`` prefix; Storm looks for the host
  name anywhere in the child's name.
* No ``/blobstore/<key>`` children and no maximum is treated as a first creation (Storm would
  fail with KeyNotFoundException), so a state store that reports a missing node as an empty
  list still works.
* ``is_leader`` is whether this nimbus leads now (Storm passes a NimbusInfo whose leader flag
  is never set, so every nimbus counts as a follower there).
"""

from pynimbus.generated.storm.ttypes import KeyNotFoundException

INITIAL_SEQUENCE_NUMBER = 1


def parse_state_info(child):
    """Split a ``/blobstore/<key>`` child ``host:port-seq`` into ``("host:port", seq)``.

    :raises ValueError: when the child has no ``-<number>`` suffix.
    """
    host_port, sep, seq = child.rpartition("-")
    if not sep or not host_port:
        raise ValueError("blob state %r is not of the form host:port-sequence" % child)
    return host_port, int(seq)


def key_sequence_number(key, state_infos, max_sequence_number, nimbus_host_port,
                        is_leader=True):
    """Return ``(version, new_max)``: the version this nimbus registers for ``key``, and the
    value to write as the key's maximum sequence number (None: leave it).

    :param state_infos: children of ``/blobstore/<key>``, or None when that node is missing.
    :param max_sequence_number: the stored maximum, or None when missing.
    :raises KeyNotFoundException: when children exist but the maximum is missing (the key was
        deleted meanwhile), as Storm.
    """
    if state_infos is None or (not state_infos and max_sequence_number is None):
        return INITIAL_SEQUENCE_NUMBER, INITIAL_SEQUENCE_NUMBER
    if not state_infos:
        return max_sequence_number, None
    if max_sequence_number is None:
        raise KeyNotFoundException(msg=key)
    try:
        parsed = [parse_state_info(child) for child in state_infos]
    except ValueError:
        # Storm answers 0 for unreadable state, so that a later sync repairs it.
        return INITIAL_SEQUENCE_NUMBER - 1, None
    sequence_numbers = sorted({seq for _, seq in parsed})
    holds_it = any(host_port == nimbus_host_port for host_port, _ in parsed)
    current = max_sequence_number
    if not holds_it and not is_leader:
        if sequence_numbers[-1] < current:
            return current, None
        return INITIAL_SEQUENCE_NUMBER - 1, None
    if not holds_it and is_leader:
        return current + 1, current + 1
    if len(sequence_numbers) == 1:
        if sequence_numbers[0] < current:
            return current + 1, current + 1
        return sequence_numbers[0] + 1, current + 1
    return sequence_numbers[-1], None


def latest_sequence_number(state_infos):
    """Port of ``BlobStoreUtils.getLatestSequenceNumber``: the highest ``-<seq>`` among the
    children of ``/blobstore/<key>`` (0 when none).  Unreadable children are skipped."""
    latest = INITIAL_SEQUENCE_NUMBER - 1
    for child in state_infos or ():
        try:
            latest = max(latest, parse_state_info(child)[1])
        except ValueError:
            continue
    return latest


def nimbodes_with_latest_sequence_number(state_infos):
    """Port of ``BlobStoreUtils.getNimbodesWithLatestSequenceNumberOfBlob``: the sorted
    ``host:port`` of every nimbus holding the latest version, and that version."""
    latest = latest_sequence_number(state_infos)
    holders = set()
    for child in state_infos or ():
        try:
            host_port, seq = parse_state_info(child)
        except ValueError:
            continue
        if seq == latest:
            holders.add(host_port)
    return sorted(holders), latest

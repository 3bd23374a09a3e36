# -*- test-case-name: tests.test_zk_multi_read -*-
"""ZooKeeper's ``multiRead`` (server 3.6+) as a kazoo request: many node reads in one packet.

kazoo sends one request and handles one reply per ``get``: ~250 µs of CPU each in this
process (measured: 1,000 pipelined ``get_async`` calls cost 240-280 ms of CPU; the same reads
as four ``multiRead`` requests, 6-9 ms).  The read cache re-reads every heartbeat node each
poll (:mod:`.zk_tree_watch`), which at 1,000 workers and 1,000 supervisors would otherwise be
the busiest thing in Nimbus.

The wire format is ZooKeeper's ``MultiOperationRecord`` / ``MultiResponse`` (jute): a
``MultiHeader`` (type, done, err) before each operation and one ending the list; a
``getData`` result is the data buffer and the node's ``Stat``; an error result, its code.
Unlike ``multi``, each read succeeds or fails alone (a missing node does not fail the others).
A server that does not know the operation closes the connection (3.8 logs "unknown type";
some versions first reply ``UNIMPLEMENTED``); when that happens to the first ``multiRead``,
before any succeeded, :class:`MultiReader` reads one request per node from then on.

kazoo has no public call for a request type it does not define: the request goes through
``KazooClient._call``, the queue its own ``*_async`` methods use (so it is sent, answered and
failed on a lost connection as theirs are).
"""

import logging
from collections import namedtuple

from kazoo import exceptions as kz
from kazoo.protocol.serialization import (int_struct, multiheader_struct, read_buffer,
                                          stat_struct, write_string)

log = logging.getLogger(__name__)

MULTI_READ_OP = 22    # ZooDefs.OpCode.multiRead
GET_DATA_OP = 4       # ZooDefs.OpCode.getData
ERROR_RESULT = -1     # the type of an operation's header when it failed

# Nodes per request: a heartbeat with executor stats is a few KB; keep a reply far below
# ZooKeeper's default 1 MB packet limit.
CHUNK = 200


class MultiRead(namedtuple("MultiRead", "paths")):
    """One ``multiRead`` of the data of ``paths`` (absolute, chroot included), no watches.

    ``deserialize`` gives one entry per path: its bytes, or None when it does not exist.
    """

    type = MULTI_READ_OP

    def serialize(self):
        out = bytearray()
        for path in self.paths:
            out += multiheader_struct.pack(GET_DATA_OP, False, -1)
            out += write_string(path)
            out += b"\x00"  # no watch
        out += multiheader_struct.pack(-1, True, -1)
        return bytes(out)

    @classmethod
    def deserialize(cls, buffer, offset):
        results = []
        while True:
            op, done, _err = multiheader_struct.unpack_from(buffer, offset)
            offset += multiheader_struct.size
            if done:
                return results
            if op == GET_DATA_OP:
                data, offset = read_buffer(buffer, offset)
                offset += stat_struct.size
                results.append(data or b"")
            elif op == ERROR_RESULT:
                code = int_struct.unpack_from(buffer, offset)[0]
                offset += int_struct.size
                if code != kz.NoNodeError.code:
                    raise kz.EXCEPTIONS[code]()
                results.append(None)
            else:
                raise ValueError("unexpected operation %d in a multiRead reply" % op)


class MultiReader:
    """Reads many nodes' data through one kazoo client: ``multiRead`` while the server
    serves it, one pipelined ``get`` per node once it said it does not.

    :param request_type: the request class (tests pass one the server does not know).
    """

    def __init__(self, client, request_type=MultiRead):
        self._client = client
        self._request_type = request_type
        self.multi_read_served = None  # unknown until the first read

    def read(self, paths):
        """``{path: bytes or None}`` for ``paths`` (chroot-relative), read now.

        :raises kazoo.exceptions.KazooException: a connection error (the caller reads all
            again on reconnection).
        """
        paths = list(paths)
        if self.multi_read_served is False:
            return self._read_each(paths)
        try:
            found = self._read_multi(paths)
        except kz.UnimplementedError as e:
            self._refused(e)
            return self._read_each(paths)
        except (kz.ConnectionLoss, kz.ConnectionClosedError) as e:
            if self.multi_read_served is None:  # it dropped the connection on the operation
                self._refused(e)
            raise
        self.multi_read_served = True
        return found

    def _refused(self, error):
        log.warning("ZooKeeper refused multiRead (%s: servers before 3.6 do not know it); "
                    "reading heartbeats with one request per node from now on",
                    type(error).__name__)
        self.multi_read_served = False

    def _read_multi(self, paths):
        client = self._client
        prefix = client.chroot or ""
        pending = []
        for start in range(0, len(paths), CHUNK):
            chunk = paths[start:start + CHUNK]
            result = client.handler.async_result()
            client._call(self._request_type([prefix + p for p in chunk]), result)
            pending.append((chunk, result))
        found = {}
        for chunk, result in pending:
            found.update(zip(chunk, result.get()))
        return found

    def _read_each(self, paths):
        pending = [(path, self._client.get_async(path)) for path in paths]
        found = {}
        for path, result in pending:
            try:
                found[path] = result.get()[0] or b""
            except kz.NoNodeError:
                found[path] = None
        return found

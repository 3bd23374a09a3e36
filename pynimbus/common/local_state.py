# -*- test-case-name: tests.test_common_local_state -*-
"""Storm's LocalState on disk: a small key -> Thrift struct store, one file per version.

Port of ``LocalState.java`` and ``VersionedStore.java`` (1.2.4; 2.8.8 reads and writes the same
format), so a Java Nimbus started on the same ``storm.local.dir`` finds the history pynimbus
kept, and the other way round.  The directory holds version files named by a millisecond
timestamp and, for each complete version, an empty ``<version>.version`` token; the newest
version with a token is the state.  A version file is the Thrift binary encoding of
``LocalStateData`` (key -> ``ThriftSerializedObject(java class name, struct bytes)``).

Writes are atomic: the bytes go to a temporary file that is flushed, synced and renamed to the
version's name before its token is created, so a crash leaves the previous version current.
The four newest versions are kept, as Storm's ``put`` does.  Keys are constants of this
program, never user input, and file names are numbers made here.  Blocking: call from a thread.

The keys its users store under are here, as in Storm's ``LocalState`` (``LS_*``).
"""

import logging
import os
import tempfile
import time

from pynimbus.cluster.serialization import deserialize, serialize_plain
from pynimbus.generated.storm import ttypes

log = logging.getLogger(__name__)

FINISHED_VERSION_SUFFIX = ".version"
VERSIONS_KEPT = 4
# the keys Storm's LocalState names, which supervisors and workers store under
LS_WORKER_HEARTBEAT = "worker-heartbeat"  # LocalState.LS_WORKER_HEARTBEAT
LS_APPROVED_WORKERS = "approved-workers"  # LocalState.LS_APPROVED_WORKERS
LS_ID = "supervisor-id"  # LocalState.LS_ID
_JAVA_PACKAGE = "org.apache.storm.generated."
_OLD_JAVA_PACKAGE = "backtype.storm.generated."  # 0.10's name, which 2.8.8 still reads


def _java_class_name(value):
    return _JAVA_PACKAGE + type(value).__name__


def _struct_class(java_name):
    for prefix in (_JAVA_PACKAGE, _OLD_JAVA_PACKAGE):
        if java_name.startswith(prefix):
            cls = getattr(ttypes, java_name[len(prefix):], None)
            if isinstance(cls, type):
                return cls
    raise ValueError("LocalState holds a %s, which is not a Storm Thrift struct" % java_name)


class LocalState:
    """Port of ``LocalState`` over a ``VersionedStore`` directory.

    :param root: the directory (created if missing).
    :param clock: Unix seconds; version numbers are its milliseconds.
    """

    def __init__(self, root, clock=time.time):
        self.root = root
        self.clock = clock
        os.makedirs(root, exist_ok=True)

    # VersionedStore

    def _versions(self):
        """Port of ``getAllVersions``: complete versions, newest first."""
        versions = []
        for name in os.listdir(self.root):
            if name.endswith(FINISHED_VERSION_SUFFIX):
                number = name[:-len(FINISHED_VERSION_SUFFIX)]
                if number.isdigit() and os.path.exists(os.path.join(self.root, number)):
                    versions.append(int(number))
        return sorted(versions, reverse=True)

    def _new_version(self):
        """Port of ``createVersion``: now in ms, or one past the newest version."""
        versions = self._versions()
        version = int(self.clock() * 1000)
        if versions and version <= versions[0]:
            version = versions[0] + 1
        return version

    def _cleanup(self, keep=VERSIONS_KEPT):
        """Port of ``cleanup(keep)``: delete versions (and stray files) older than the kept."""
        keepers = set(self._versions()[:keep])
        for name in os.listdir(self.root):
            number = name[:-len(FINISHED_VERSION_SUFFIX)] \
                if name.endswith(FINISHED_VERSION_SUFFIX) else name
            if number.isdigit() and int(number) not in keepers:
                try:
                    os.remove(os.path.join(self.root, name))
                except FileNotFoundError:
                    pass

    # LocalState

    def _parts(self):
        """Port of ``partialDeserializeLatestVersion``: key -> ThriftSerializedObject."""
        versions = self._versions()
        if not versions:
            return {}
        with open(os.path.join(self.root, str(versions[0])), "rb") as f:
            data = f.read()
        if not data:  # Storm logs and starts afresh
            return {}
        return dict(deserialize(data, ttypes.LocalStateData).serialized_parts or {})

    def get(self, key):
        """Port of ``get``: the struct stored under ``key``, or None."""
        part = self._parts().get(key)
        if part is None:
            return None
        return deserialize(part.bits, _struct_class(part.name))

    def put(self, key, value):
        """Port of ``put(key, value, cleanup=true)``: write a new version with ``key`` set."""
        parts = self._parts()
        parts[key] = ttypes.ThriftSerializedObject(name=_java_class_name(value),
                                                   bits=serialize_plain(value))
        data = serialize_plain(ttypes.LocalStateData(serialized_parts=parts))
        version = self._new_version()
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.root)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, os.path.join(self.root, str(version)))
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        open(os.path.join(self.root, str(version) + FINISHED_VERSION_SUFFIX), "wb").close()
        self._cleanup()

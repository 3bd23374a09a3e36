"""A pystorm bolt for the fault tests: appends each id it receives to ``faulttest.received``
(a path in the topology conf), then pystorm acks it.

With ``faulttest.fault`` set, the first task to receive the id ``faulttest.fault.on`` claims
the marker file ``faulttest.marker`` (created exclusively, so only once in the whole run; it
holds the claimer's pid) and, instead of recording it, ``raise``s (pystorm reports the error
and exits) or ``hang``s (never answers again, heartbeats included).  Every later delivery of
that id, in this process or a relaunched one, is recorded as usual.
"""

import os
import time

from pystorm import Bolt

from wc_sentence_spout import append_line  # beside it in the jar


class IdSinkBolt(Bolt):
    def initialize(self, storm_conf, context):
        self.received_path = storm_conf["faulttest.received"]
        self.fault = storm_conf.get("faulttest.fault")
        self.fault_on = storm_conf.get("faulttest.fault.on")
        self.marker_path = storm_conf.get("faulttest.marker")

    def process(self, tup):
        [id_] = tup.values
        if self.fault and id_ == self.fault_on and self.claim_marker():
            if self.fault == "raise":
                raise RuntimeError("id_sink_bolt raises on id %d, as told" % id_)
            while True:  # hang: read nothing, answer nothing
                time.sleep(3600)
        append_line(self.received_path, str(id_))

    def claim_marker(self):
        """Create the marker with this pid in it; False if it exists (the fault happened)."""
        try:
            fd = os.open(self.marker_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, str(os.getpid()).encode())
        finally:
            os.close(fd)
        return True


if __name__ == "__main__":
    IdSinkBolt().run()

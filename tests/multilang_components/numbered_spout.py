"""A pystorm spout for the fault tests: emits the ids 0..``faulttest.count``-1 once each, at
most ``faulttest.ids.per.sec`` a second (so a test can act while it is still emitting), with
the id as message id; emits a failed id again before any new one.  Appends each acked id to
``faulttest.acked`` and each failed one to ``faulttest.failed``, and each emitted one (a
replay again) to ``faulttest.emitted`` when it is set (paths in the topology conf).
"""

import time

from pystorm import Spout

from wc_sentence_spout import append_line  # beside it in the jar


class NumberedSpout(Spout):
    def initialize(self, storm_conf, context):
        self.count = int(storm_conf["faulttest.count"])
        self.ids_per_sec = float(storm_conf.get("faulttest.ids.per.sec") or 0)
        self.acked_path = storm_conf["faulttest.acked"]
        self.failed_path = storm_conf["faulttest.failed"]
        self.emitted_path = storm_conf.get("faulttest.emitted")
        self.next_id = 0
        self.replays = []
        self.started = time.monotonic()

    def next_tuple(self):
        if self.replays:
            self.emit_id(self.replays.pop(0))
        elif self.next_id < self.count and self.on_schedule():
            self.emit_id(self.next_id)
            self.next_id += 1

    def emit_id(self, id_):
        self.emit([id_], tup_id=id_)
        if self.emitted_path:
            append_line(self.emitted_path, str(id_))

    def on_schedule(self):
        """True while the ids emitted so far are fewer than the rate allows by now."""
        if not self.ids_per_sec:
            return True
        return self.next_id < (time.monotonic() - self.started) * self.ids_per_sec

    def fail(self, tup_id):
        self.replays.append(tup_id)
        append_line(self.failed_path, str(tup_id))

    def ack(self, tup_id):
        append_line(self.acked_path, str(tup_id))


if __name__ == "__main__":
    NumberedSpout().run()

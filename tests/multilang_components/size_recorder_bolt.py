"""A pystorm bolt for the big-tuple test: appends ``<task> <length of the first value>`` for
each tuple to the file named by ``test.output`` in the topology conf."""

import os

from pystorm import Bolt


class SizeRecorderBolt(Bolt):
    def initialize(self, storm_conf, context):
        self.task = context["taskid"]
        self.output = storm_conf["test.output"]

    def process(self, tup):
        fd = os.open(self.output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, ("%d %d\n" % (self.task, len(tup.values[0]))).encode())
        finally:
            os.close(fd)


if __name__ == "__main__":
    SizeRecorderBolt().run()

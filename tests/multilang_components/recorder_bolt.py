"""A pystorm bolt for the worker grouping test: appends ``<component> <task> <value>`` for
each tuple to the file named by WORDCOUNT_OUTPUT."""

import os

from pystorm import Bolt


class RecorderBolt(Bolt):
    def initialize(self, storm_conf, context):
        self.prefix = "%s %d " % (context["componentid"], context["taskid"])
        self.output = os.environ["WORDCOUNT_OUTPUT"]

    def process(self, tup):
        fd = os.open(self.output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (self.prefix + "%s\n" % tup.values[0]).encode())
        finally:
            os.close(fd)


if __name__ == "__main__":
    RecorderBolt().run()

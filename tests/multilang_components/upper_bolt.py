"""A pystorm bolt for the multilang host tests: emits each word upper-cased, then acks it.

pystorm takes its serializer as a constructor argument (streamparse_run's ``-s``), never from
the topology conf; the host passes only ``[python, this file]``, so the test picks it through
MULTILANG_TEST_SERIALIZER in the child's environment.
"""

import os

from pystorm import Bolt


class UpperBolt(Bolt):
    def process(self, tup):
        self.emit([tup.values[0].upper()])


if __name__ == "__main__":
    UpperBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()

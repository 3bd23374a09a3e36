"""A pystorm bolt for the multilang host tests: emits each word upper-cased, then acks it.

For the word ``tasks?`` it asks for the emit's target task ids and emits them too.

pystorm takes its serializer as a constructor argument (streamparse_run's ``-s``), never from
the topology conf; the host passes only ``[python, this file]``, so the test picks it through
MULTILANG_TEST_SERIALIZER in the child's environment.
"""

import os

from pystorm import Bolt


class UpperBolt(Bolt):
    def process(self, tup):
        word = tup.values[0]
        if word == "tasks?":
            self.emit([self.emit([word.upper()], need_task_ids=True)])
        else:
            self.emit([word.upper()])


if __name__ == "__main__":
    UpperBolt(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()

"""The word count's sentence spout written against Storm's own ``storm.py`` (beside it in the
jar's resources/): emits each line of ``corpus.txt`` once with its line number as message id
(``storm.emit`` waits for the task ids), emits a failed line again, and appends acked and failed
ids to $WORDCOUNT_ACKED and $WORDCOUNT_FAILED as wc_sentence_spout.py does."""

import os

import storm
from wc_sentence_spout import append_line


class SentenceSpout(storm.Spout):
    def initialize(self, conf, context):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.txt")) as f:
            self.lines = [line.rstrip("\n") for line in f if line.strip()]
        self.next_index = 0
        self.replays = []
        self.acked_path = os.environ.get("WORDCOUNT_ACKED")
        self.failed_path = os.environ.get("WORDCOUNT_FAILED")

    def nextTuple(self):
        if self.replays:
            index = self.replays.pop(0)
        elif self.next_index < len(self.lines):
            index = self.next_index
            self.next_index += 1
        else:
            return
        storm.emit([self.lines[index]], id=index)

    def ack(self, id):
        if self.acked_path:
            append_line(self.acked_path, str(id))

    def fail(self, id):
        self.replays.append(id)
        if self.failed_path:
            append_line(self.failed_path, str(id))


if __name__ == "__main__":
    SentenceSpout().run()

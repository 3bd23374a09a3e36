"""A pystorm spout for the worker tests: emits each line of ``corpus.txt`` (beside it) once,
with the line number as message id, emits a failed line again, and appends each acked id to
the file named by WORDCOUNT_ACKED (and each failed one to WORDCOUNT_FAILED), if set."""

import os

from pystorm import Spout


class SentenceSpout(Spout):
    def initialize(self, storm_conf, context):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.txt")) as f:
            self.lines = [line.rstrip("\n") for line in f if line.strip()]
        self.next_index = 0
        self.replays = []
        self.acked_path = os.environ.get("WORDCOUNT_ACKED")
        self.failed_path = os.environ.get("WORDCOUNT_FAILED")

    def next_tuple(self):
        if self.replays:
            index = self.replays.pop(0)
            self.emit([self.lines[index]], tup_id=index)
        elif self.next_index < len(self.lines):
            self.emit([self.lines[self.next_index]], tup_id=self.next_index)
            self.next_index += 1

    def fail(self, tup_id):
        self.replays.append(tup_id)
        if self.failed_path:
            append_line(self.failed_path, str(tup_id))

    def ack(self, tup_id):
        if self.acked_path:
            append_line(self.acked_path, str(tup_id))


def append_line(path, line):
    """One O_APPEND write: lines from several processes never interleave.  The file stays
    open for the next line (a write is in the kernel at once, so a kill -9 loses none); a
    few paths at most are held open."""
    fd = _open_files.get(path)
    if fd is None:
        if len(_open_files) >= _MAX_OPEN_FILES:
            for open_fd in _open_files.values():
                os.close(open_fd)
            _open_files.clear()
        fd = _open_files[path] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (line + "\n").encode("utf-8"))


_open_files = {}
_MAX_OPEN_FILES = 8


if __name__ == "__main__":
    SentenceSpout(serializer=os.environ.get("MULTILANG_TEST_SERIALIZER", "json")).run()

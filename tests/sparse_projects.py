"""streamparse projects for the ``pynimbus submit`` and ``pynimbus.testing`` tests.

:func:`quickstart` is the project ``sparse quickstart`` generates (streamparse's own bundled
template, unchanged).  :func:`finite_word_count` is a project of the same shape whose spout
emits each word of a fixed corpus once, with a message id, and whose bolt appends
``<word> <count>`` to the file named by the topology conf's ``wordcount.output``;
:func:`final_counts` reads it back.
"""

import os
import textwrap
import warnings

from worker_topologies import CORPUS, expected_counts  # noqa: F401  (the word count's corpus)


def quickstart(directory, name="wordcount"):
    """Generate ``sparse quickstart name`` in ``directory``; return the project's path."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # paramiko's deprecation noise on import
        from streamparse.bootstrap import quickstart as sparse_quickstart
    cwd = os.getcwd()
    os.chdir(str(directory))
    try:
        sparse_quickstart(name)
    finally:
        os.chdir(cwd)
    return os.path.join(str(directory), name)


def write_files(root, files):
    for relative, text in files.items():
        path = os.path.join(str(root), relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text).lstrip())


def finite_word_count(directory, package="finite", corpus=CORPUS, count_par=2):
    """A streamparse project in ``directory/package`` whose modules live in the package
    ``package`` under src/ (distinct names keep projects apart in one test process)."""
    root = os.path.join(str(directory), package)
    write_files(root, {
        "config.json": """
            {"serializer": "json", "topology_specs": "topologies/",
             "envs": {"dev": {"nimbus": "", "workers": [], "options": {}}}}
            """,
        "src/%s/__init__.py" % package: "",
        "src/%s/corpus.py" % package: "CORPUS = %r\n" % list(corpus),
        "src/%s/spouts.py" % package: """
            from streamparse import Spout

            from .corpus import CORPUS


            class WordSpout(Spout):
                outputs = ["word"]

                def initialize(self, conf, context):
                    self.words = enumerate(w for line in CORPUS for w in line.split())

                def next_tuple(self):
                    for number, word in self.words:
                        self.emit([word], tup_id=number)
                        return
            """,
        "src/%s/bolts.py" % package: """
            import collections

            from streamparse import Bolt


            class CountBolt(Bolt):
                outputs = ["word", "count"]

                def initialize(self, conf, context):
                    self.counts = collections.Counter()
                    self.output = conf.get("wordcount.output")

                def process(self, tup):
                    word = tup.values[0]
                    self.counts[word] += 1
                    self.emit([word, self.counts[word]])
                    if self.output:
                        with open(self.output, "a") as f:
                            f.write("%s %d\\n" % (word, self.counts[word]))
            """,
        "topologies/%s_count.py" % package: """
            from streamparse import Grouping, Topology

            from {package}.bolts import CountBolt
            from {package}.spouts import WordSpout


            class FiniteWordCount(Topology):
                word_spout = WordSpout.spec()
                count_bolt = CountBolt.spec(inputs={{word_spout: Grouping.fields("word")}},
                                            par={count_par})
            """.format(package=package, count_par=count_par),
    })
    return root


def final_counts(path):
    """``{word: count}``: the last count written for each word."""
    counts = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    counts[parts[0]] = int(parts[1])
    return counts

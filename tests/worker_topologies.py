"""Topologies for the worker tests: a jar (zip) with the pystorm scripts under ``resources/``
and the ``StormTopology`` of shell components that runs them.

:func:`word_count` is the pystorm word count: the ``sentences`` spout emits each line of the
corpus once with a message id (and appends acked ids to ``$WORDCOUNT_ACKED``), ``split``
emits a word per tuple, ``count`` (fields grouping on ``word``) appends ``<task> <word>
<count>`` to ``$WORDCOUNT_OUTPUT``; :func:`final_counts` reads that file back.  The same
spout, split and count written against Storm's own ``storm.py`` (:data:`STORM_PY_SCRIPTS`)
write the same files; their jar needs ``storm.py`` beside them (``files`` of
:func:`word_count_jar`).
"""

import collections
import os
import sys

import pytest

from compat.oracle.maven import MavenUnavailable
from compat.topology_jars import storm_py
from test_supervisor_code import jar_bytes
from pynimbus.generated.storm.ttypes import (
    Bolt, ComponentCommon, ComponentObject, GlobalStreamId, Grouping, NullStruct,
    ShellComponent, SpoutSpec, StormTopology, StreamInfo)

COMPONENTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "multilang_components")
WORD_COUNT_SCRIPTS = ("wc_sentence_spout.py", "wc_split_bolt.py", "wc_count_bolt.py",
                      "wc_once_split_bolt.py")
# the spout (storm.Spout), split (storm.BasicBolt) and count (storm.Bolt) that import Storm's
# storm.py
STORM_PY_SCRIPTS = ("wc_storm_py_sentence_spout.py", "wc_storm_py_split_bolt.py",
                    "wc_storm_py_count_bolt.py")
CORPUS = [
    "the cow jumped over the moon",
    "an apple a day keeps the doctor away",
    "four score and seven years ago",
    "snow white and the seven dwarfs",
    "i am at two with nature",
] * 4


def word_count_jar(corpus=CORPUS, scripts=WORD_COUNT_SCRIPTS, renamed=None, files=None):
    """The jar: the ``scripts`` of multilang_components/ (the word count's by default),
    ``{name in the jar: script}`` of ``renamed``, ``{name: bytes}`` of ``files`` and
    ``corpus.txt`` under ``resources/``."""
    entries = {"resources/corpus.txt": "".join(line + "\n" for line in corpus).encode()}
    entries.update(("resources/" + name, data) for name, data in (files or {}).items())
    for name, script in [(script, script) for script in scripts] + list(
            (renamed or {}).items()):
        with open(os.path.join(COMPONENTS_DIR, script), "rb") as f:
            entries["resources/" + name] = f.read()
    return jar_bytes(entries)


def storm_py_or_skip():
    """Storm's own ``storm.py`` (from the multilang-python artifact, fetched once by Maven into
    ``.cache``); skips the calling test, with the reason, where Maven cannot serve it."""
    try:
        return storm_py()
    except MavenUnavailable as e:
        pytest.skip("needs Storm's storm.py from org.apache.storm:multilang-python: %s" % e)


def expected_counts(corpus=CORPUS):
    return collections.Counter(word for line in corpus for word in line.split())


def shell(script):
    """A ShellComponent running ``script`` with this interpreter (which has pystorm)."""
    return ComponentObject(shell=ShellComponent(sys.executable, script))


def common(inputs, fields, parallelism):
    return ComponentCommon(inputs=inputs,
                           streams={"default": StreamInfo(output_fields=fields, direct=False)},
                           parallelism_hint=parallelism)


def word_count(split_parallelism=2, count_parallelism=2, split_script="wc_split_bolt.py",
               split_object=None, count_script="wc_count_bolt.py",
               spout_script="wc_sentence_spout.py"):
    """The word count's ``StormTopology``: sentences -> split (shuffle) -> count (fields).
    ``wc_once_split_bolt.py`` as ``split_script`` fails (or drops) each sentence once per
    task.  ``split_object`` replaces the split bolt's ComponentObject."""
    return StormTopology(
        spouts={"sentences": SpoutSpec(shell(spout_script), common({}, ["sentence"], 1))},
        bolts={
            "split": Bolt(split_object or shell(split_script), common(
                {GlobalStreamId("sentences", "default"): Grouping(shuffle=NullStruct())},
                ["word"], split_parallelism)),
            "count": Bolt(shell(count_script), common(
                {GlobalStreamId("split", "default"): Grouping(fields=["word"])},
                ["word", "count"], count_parallelism)),
        },
        state_spouts={})


def sentences_into(script, component_id):
    """The sentences spout into one bolt running ``script`` (shuffle grouping)."""
    return StormTopology(
        spouts={"sentences": SpoutSpec(shell("wc_sentence_spout.py"),
                                       common({}, ["sentence"], 1))},
        bolts={component_id: Bolt(shell(script), common(
            {GlobalStreamId("sentences", "default"): Grouping(shuffle=NullStruct())},
            ["word"], 1))},
        state_spouts={})


GROUPING_SCRIPTS = ("grouping_spout.py", "recorder_bolt.py")
GROUPING_COUNT = 20  # grouping_spout.py's COUNT


def every_grouping():
    """A spout emitting 0..19 on ``default`` (field ``n``) and the same on the direct stream
    ``direct``, and one recording bolt of two tasks per grouping, named after it."""
    groupings = {"shuffle": Grouping(shuffle=NullStruct()), "fields": Grouping(fields=["n"]),
                 "all": Grouping(all=NullStruct()), "global": Grouping(fields=[]),
                 "none": Grouping(none=NullStruct()),
                 "local_or_shuffle": Grouping(local_or_shuffle=NullStruct())}
    bolts = {name: Bolt(shell("recorder_bolt.py"), common(
        {GlobalStreamId("numbers", "default"): grouping}, ["n"], 2))
        for name, grouping in groupings.items()}
    bolts["direct"] = Bolt(shell("recorder_bolt.py"), common(
        {GlobalStreamId("numbers", "direct"): Grouping(direct=NullStruct())}, ["n"], 2))
    spout_common = common({}, ["n"], 1)
    spout_common.streams["direct"] = StreamInfo(output_fields=["n"], direct=True)
    return StormTopology(spouts={"numbers": SpoutSpec(shell("grouping_spout.py"), spout_common)},
                         bolts=bolts, state_spouts={})


def recorded(path):
    """``{component: {task: [values]}}`` from recorder_bolt.py's output."""
    ret = collections.defaultdict(lambda: collections.defaultdict(list))
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                component, task, value = line.split()
                ret[component][int(task)].append(int(value))
    return ret


def final_counts(path):
    """``{word: count}`` from the count bolt's output (the last line of each word), and
    ``{word: set of tasks}`` that counted it."""
    counts, tasks = {}, collections.defaultdict(set)
    if not os.path.exists(path):
        return counts, tasks
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                task, word, count = parts
                counts[word] = int(count)
                tasks[word].add(int(task))
    return counts, tasks

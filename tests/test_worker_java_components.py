"""What a Python worker reads of Java-serialized components (pynimbus.worker.java_components)."""
# test-case-name: tests.test_worker_java_components

import base64

from test_worker_process import SPLIT_SENTENCE_1_2_4, java_object_stream
from pynimbus.worker.java_components import (
    SHELL_BOLT_CLASS, java_class_name, read_java_shell_component)

WORD_COUNT_CLASS = "org.apache.storm.starter.WordCountTopology$WordCount"
BASIC_BOLT_EXECUTOR = "org.apache.storm.topology.BasicBoltExecutor"


def test_a_wrapped_basic_bolt_is_named_with_the_class_it_wraps():
    """``setBolt("count", new WordCount())`` serializes a BasicBoltExecutor: the name given
    for the error is the wrapper's and, inside it, the user's class."""
    assert java_class_name(BASIC_BOLT_EXECUTOR_1_2_4) == "%s wrapping %s" % (
        BASIC_BOLT_EXECUTOR, WORD_COUNT_CLASS)


def test_an_unwrapped_object_is_named_by_its_class():
    """Any other object: its own class, read from the stream's header alone."""
    assert java_class_name(java_object_stream(WORD_COUNT_CLASS)) == WORD_COUNT_CLASS
    assert java_class_name(SPLIT_SENTENCE_1_2_4) == (
        "org.apache.storm.starter.WordCountTopology$SplitSentence")


def test_a_wrapper_javaobj_cannot_read_is_named_by_its_own_class():
    """A truncated wrapper stream still names the wrapper (the header is all there is)."""
    assert java_class_name(java_object_stream(BASIC_BOLT_EXECUTOR)) == BASIC_BOLT_EXECUTOR


def test_bytes_that_are_no_object_stream_get_a_placeholder():
    assert java_class_name(b"not java") == "(not a Java object stream)"


def test_a_wrapped_basic_bolt_is_no_shell_component():
    """Only ShellBolt subclasses run here; the wrapped WordCount is not one."""
    assert read_java_shell_component(BASIC_BOLT_EXECUTOR_1_2_4, SHELL_BOLT_CLASS) is None


# ``new BasicBoltExecutor(new WordCountTopology.WordCount())`` (what storm-starter 1.2.2's
# ``setBolt("count", new WordCount(), 12)`` stores) written with ObjectOutputStream by
# storm-core 1.2.4 on Java 17, base64.
BASIC_BOLT_EXECUTOR_1_2_4 = base64.b64decode(
    "rO0ABXNyACtvcmcuYXBhY2hlLnN0b3JtLnRvcG9sb2d5LkJhc2ljQm9sdEV4ZWN1dG9yuwySkkxP8z4CAAFMAAVf"
    "Ym9sdHQAJkxvcmcvYXBhY2hlL3N0b3JtL3RvcG9sb2d5L0lCYXNpY0JvbHQ7eHBzcgA0b3JnLmFwYWNoZS5zdG9y"
    "bS5zdGFydGVyLldvcmRDb3VudFRvcG9sb2d5JFdvcmRDb3VudPVhg/iMw+oiAgABTAAGY291bnRzdAAPTGphdmEv"
    "dXRpbC9NYXA7eHIALG9yZy5hcGFjaGUuc3Rvcm0udG9wb2xvZ3kuYmFzZS5CYXNlQmFzaWNCb2x0FFH3Lwz6ts4C"
    "AAB4cgAsb3JnLmFwYWNoZS5zdG9ybS50b3BvbG9neS5iYXNlLkJhc2VDb21wb25lbnTzm9I1+6fedwIAAHhwc3IA"
    "EWphdmEudXRpbC5IYXNoTWFwBQfawcMWYNEDAAJGAApsb2FkRmFjdG9ySQAJdGhyZXNob2xkeHA/QAAAAAAAAHcI"
    "AAAAEAAAAAB4")

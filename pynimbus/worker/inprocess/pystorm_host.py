"""A pystorm component driven in memory: the one way pynimbus hooks pystorm's ``Component``,
shared by :mod:`pynimbus.testing` (components in a test's process) and the in-process hosts
of :mod:`pynimbus.worker.inprocess` (components inside a worker).

The component's serializer is replaced by one that hands each message the component sends to a
callable and reads the messages due to it from a deque, so the component's own code (``emit``,
``ack``, ``fail``, ``log``, auto-ack, ``read_task_ids``) runs unchanged and its loop body
(``_run``) can be called once per message (:mod:`pynimbus.testing`; the worker's hosts call
the component's public methods instead).  No I/O here beyond what the component itself does.
"""

import collections
import io
import logging
import threading


class NoMessageDue(Exception):
    """The component read a message and none was due (a bug in the caller, not the user's)."""


def in_memory_serializer(component, send):
    """A pystorm serializer for ``component`` that calls ``send(message)`` for each message it
    sends and reads from its ``inbox`` deque."""
    from pystorm.serializers.serializer import Serializer

    class InMemorySerializer(Serializer):
        def __init__(self):
            super(InMemorySerializer, self).__init__(
                None, None, threading.RLock(), threading.RLock())
            self.inbox = collections.deque()
            self.send_message = send  # one call less per message than the method below

        def read_message(self):
            if not self.inbox:
                raise NoMessageDue("%s read a message and none was due"
                                   % type(component).__name__)
            return self.inbox.popleft()

        def send_message(self, message):
            send(message)

    return InMemorySerializer()


def make_component(component_class, send):
    """An instance of ``component_class`` whose messages go to ``send`` (no signal handler,
    no stdin/stdout)."""
    component = component_class(input_stream=io.StringIO(), output_stream=io.StringIO(),
                                rdb_signal=None)
    component.serializer = in_memory_serializer(component, send)
    return component


def setup_component(component, conf, context, logger=None):
    """The handshake's aftermath as pystorm's ``run`` does it (``_setup_component``, pystorm's
    set-up hook, which a class may extend, then ``initialize``), without the log handler it puts on
    the root logger: many components share this process.  With ``logger``, the component logs
    straight to it (at the level pystorm chose; a file of ``pystorm.log.path`` is kept, the handler
    that would send records to Storm is not); without, pystorm's handler is moved to the component's
    own logger."""
    from pystorm.component import StormHandler

    root = logging.getLogger()
    before = list(root.handlers)
    component._setup_component(conf, context)
    for handler in [h for h in root.handlers if h not in before]:
        root.removeHandler(handler)
        if logger is None:
            component.logger.addHandler(handler)
            component.logger.propagate = False
        elif not isinstance(handler, StormHandler):
            logger.addHandler(handler)
    if logger is not None:
        logger.setLevel(component.logger.level)
        component.logger = logger
    component.initialize(conf, context)

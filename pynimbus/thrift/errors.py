"""Failures that Storm reports as ``RuntimeException``, kept on the wire with our message.

For conditions its IDL declares no exception for ("not a leader, current leader is ...", "No
transition for event ...", "File for that location does not exist (or timed out)"), Storm's
Nimbus throws RuntimeException, which libthrift sends as ``TApplicationException``
INTERNAL_ERROR "Internal error processing <m>".  pynimbus sends the same class and type, but
with a message that says what went wrong.
"""

import logging

from thrift.Thrift import TApplicationException


class StormRuntimeException(TApplicationException):
    """A call refused on purpose, where Storm throws RuntimeException.

    On the wire it is a plain ``TApplicationException`` INTERNAL_ERROR; the class only tells
    :class:`RefusalLogFilter` that this is a refusal to log as one line, not a fault to log
    with a traceback.
    """

    def __init__(self, message):
        super().__init__(TApplicationException.INTERNAL_ERROR, message)


def as_application_error(error):
    """The ``TApplicationException`` INTERNAL_ERROR that carries ``error``'s message."""
    return StormRuntimeException(str(error))


class RefusalLogFilter(logging.Filter):
    """Turn the generated processor's log of a :class:`StormRuntimeException` into one line.

    The Thrift-generated ``write_results_exception_<method>`` logs every TApplicationException
    a handler raises at ERROR with a traceback, on the root logger.  For a deliberate refusal
    (a non-leader during a takeover answers thousands of calls so) that is noise: the record
    becomes one WARNING line naming the method and the reason.  Install it on the root logger.
    """

    _PREFIX = "write_results_exception_"

    def filter(self, record):
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, StormRuntimeException) and record.funcName.startswith(self._PREFIX):
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(
                logging.WARNING)
            record.name = "pynimbus.thrift.server"
            record.msg = "%s refused: %s"
            record.args = (record.funcName[len(self._PREFIX):], error.message)
            record.exc_info = record.exc_text = None
        return True

"""Failures that Storm reports as ``RuntimeException``, kept on the wire with our message.

For conditions its IDL declares no exception for ("No transition for event ...", "File for that
location does not exist (or timed out)"), Storm's Nimbus throws RuntimeException, which
libthrift sends as ``TApplicationException`` INTERNAL_ERROR "Internal error processing <m>".
pynimbus sends the same class and type, but with a message that says what went wrong.
"""

from thrift.Thrift import TApplicationException


def as_application_error(error):
    """The ``TApplicationException`` INTERNAL_ERROR that carries ``error``'s message."""
    return TApplicationException(TApplicationException.INTERNAL_ERROR, str(error))

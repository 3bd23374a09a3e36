# Cython declarations for message_id.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.
cdef class MessageId:
    cdef public object anchors_to_ids
cdef class TupleIds:
    cdef public object message_id, ack_val

# Cython declarations for acker.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.
from pynimbus.worker.rotating_map cimport RotatingMap

cdef class AckEntry:
    cdef public object val, spout_task, start_time, failed

cdef class Acker:
    cdef public object compat
    cdef public RotatingMap pending
    cpdef ack(self, root_id, ack_val, clock_ms)
    cpdef AckEntry _update_ack(self, root_id, ack_val, now_ms)
    cpdef _outcome(self, stream_id, root_id, AckEntry curr, clock_ms)

# Cython declarations for spout_pending.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.
from pynimbus.worker.rotating_map cimport RotatingMap
cdef class SpoutPending:
    cdef public object max_spout_pending, has_ackers, generate_id
    cdef public RotatingMap pending
    cpdef reached_max_spout_pending(self)
    cpdef send_spout_msg(self, task_id, stream, message_id, out_tasks, start_time_ms=*)
    cpdef execute(self, task_id, stream_id, values, now_ms)

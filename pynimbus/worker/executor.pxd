# Cython declarations for executor.py: setup.py compiles that .py with them when it can
# (pynimbus.compiled); the .py runs as it is otherwise, so keep the two in step.
cdef class TupleImpl:
    cdef public object source_task, source_component, stream, values, message_id, ack_val, process_sample_start_ms

# Cython declarations for groupings.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.
cdef class FieldsGrouper:
    cdef public object _indices, _choices, _num_tasks
cdef class LoadAwareShuffleGrouping:
    cdef public object _targets, _rets, _weights, _total, _last_update, _random, _clock_ms

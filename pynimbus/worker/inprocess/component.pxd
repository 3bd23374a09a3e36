# Cython declarations for component.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.

from pynimbus.worker.component_host cimport ComponentHost

cdef class InProcessComponent(ComponentHost):
    cdef public object executor, task_id, component_id, component, _to_action, _logger
    cdef public bint dead

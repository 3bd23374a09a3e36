# Cython declarations for spout_host.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.

from pynimbus.worker.inprocess.component cimport InProcessComponent

cdef class InProcessSpout(InProcessComponent):
    cdef public object _pystorm_emit, _spout_emit, _sync
    cpdef command(self, command, message_id=*)

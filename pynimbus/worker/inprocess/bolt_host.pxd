# Cython declarations for bolt_host.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.  The
# host is an extension type: its attributes struct fields, its executor's calls bound once.

from pynimbus.worker.inprocess.component cimport InProcessComponent

cdef class InProcessBolt(InProcessComponent):
    cdef public object _tuple, _pystorm_emit, _values_types, _current, _current_ids
    cdef public object _bolt_emit, _ack_input, _fail_input
    cpdef execute(self, tuple_id, tuple_)
    cpdef _take(self, tup, command, take_input)

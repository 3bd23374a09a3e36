# Cython declarations for component_host.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.  The
# base of the hosts, an extension type so that the in-process hosts can be ones.

cdef class ComponentHost:
    cdef public object pid
    cdef public bint can_pause, paused
    cdef public Py_ssize_t pipelined_exchanges
    cdef dict __dict__

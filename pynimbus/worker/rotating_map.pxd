# Cython declarations for rotating_map.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.
cdef class RotatingMap:
    cdef object _buckets
    cpdef rotate(self)
    cpdef bint contains_key(self, key)
    cpdef get(self, key, default=*)
    cpdef put(self, key, value)
    cpdef refresh(self, key, default=*)
    cpdef remove(self, key, default=*)

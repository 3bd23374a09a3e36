# Cython declarations for receive_queue.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.

cdef class ReceiveQueue:
    cdef public object executor, loop, items
    cdef public Py_ssize_t high, low
    cdef public bint full, waiting
    cpdef put(self, task_id, tuple_)
    cpdef Py_ssize_t consume(self, Py_ssize_t most)
    cpdef wake(self)

cdef class ExecutorLoop:
    cdef public object _call_later, _on_room_again, _ready, _call
    cdef public Py_ssize_t batch, turn_budget, full_count
    cdef public bint halted
    cpdef ready(self, ReceiveQueue queue)
    cpdef room_again(self)
    cpdef run(self)
    cpdef halt(self)

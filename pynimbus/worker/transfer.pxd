# Cython declarations for transfer.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.

cdef class TransferFn:
    cdef public object task_to_executor, task_to_component, task_to_client
    cdef public object on_unsendable

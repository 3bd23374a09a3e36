# Cython declarations for executor.py: setup.py compiles that .py with them when it can
# (pynimbus.compiled); the .py runs as it is otherwise, so keep the two in step.  The
# executors are extension types for their attributes (struct fields); their methods stay
# Python-overridable (no cpdef), and a __dict__ keeps other attributes settable.

cdef class TupleImpl:
    cdef public object source_task, source_component, stream, values, message_id, ack_val, process_sample_start_ms

cdef class Executor:
    cdef public object context, component_id, task_ids, groupers, tasks_fns, component_conf, stats
    cdef public object _acker_task, _local_ackers, _tick_loop
    cdef dict __dict__

cdef class NoopBoltExecutor(Executor):
    pass

cdef class AckerExecutor(Executor):
    cdef public object acker

cdef class ShellExecutor(Executor):
    cdef public object command, env, on_child_died, processes

cdef class ShellBoltExecutor(ShellExecutor):
    cdef public object inputs, receive_buffer_size
    cdef public Py_ssize_t _next_tuple_id
    cdef public bint _full

cdef class ShellSpoutExecutor(ShellExecutor):
    cdef public object pending, active, ready, _waiting, _asked_in_vain, _queued, _next_call

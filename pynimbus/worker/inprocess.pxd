# Cython declarations for inprocess.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.  The
# components and the in-process executors are extension types (their attributes read as
# struct fields, the calls between their methods direct).

cimport cython

from pynimbus.worker.executor cimport ShellBoltExecutor, ShellSpoutExecutor, TupleImpl
from pynimbus.worker.stats cimport BoltStatsCollector

cdef class InProcessComponent:
    cdef public object component_id, pid, ended, component
    cdef public object _kind, _to_action, _on_action, _on_died, _logger
    cdef public bint _running, _dead
    cdef dict __dict__

cdef class DirectInProcessComponent(InProcessComponent):
    cdef public object _executor, _task_id, _calls, _tuple, _pystorm_emit
    cpdef _run_in_turn(self, item, task_id=*)
    cpdef _run_one(self, item)

cdef class DirectInProcessBolt(DirectInProcessComponent):
    cdef public object _inputs, _tasks_fns, _send, _transfer, _generate_id, _now_ms
    cdef public object _acked, _input_taken
    cdef public BoltStatsCollector _stats
    @cython.locals(anchor=TupleImpl)
    cpdef _send_anchored_to_one(self, task_id, stream, values, targets, anchor)
    cdef public Py_ssize_t _next_id

cdef class DirectInProcessSpout(DirectInProcessComponent):
    cdef public object _sync, _executor_emit

cdef class InProcessBoltExecutor(ShellBoltExecutor):
    cdef public object component_class

cdef class InProcessSpoutExecutor(ShellSpoutExecutor):
    cdef public object component_class, _command, _next_emitted
    cdef public bint _in_batch
    cpdef _exchange(self, task_id, command, message_id=*)
    cpdef _start_exchange(self, task_id, command, message_id)
    cpdef _sync(self, task_id)
    cpdef _next_tuples(self)

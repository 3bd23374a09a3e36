# Cython declarations for executor.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.  The
# executors are extension types: their attributes struct fields, the calls between their
# methods on the hot path cpdef (still overridable by Python subclasses, such as the
# topology master's); a __dict__ keeps other attributes settable.

cimport cython

from pynimbus.worker.acker cimport Acker
from pynimbus.worker.receive_queue cimport ReceiveQueue
from pynimbus.worker.spout_pending cimport SpoutPending

cdef class TupleImpl:
    cdef public object source_task, source_component, stream, values, message_id, ack_val, process_sample_start_ms

cdef class Executor:
    cdef public object context, component_id, task_ids, groupers, tasks_fns, component_conf, stats
    cdef public object _acker_task, _tick_loop, watch
    cdef public ReceiveQueue queue
    cdef dict __dict__
    cpdef receive(self, task_id, tuple_)
    cpdef accept(self, task_id, tuple_)
    cpdef can_accept(self, task_id)
    cpdef flush(self)
    cpdef emit(self, task_id, stream, values, direct_task=*)
    cpdef out_tasks(self, task_id, stream, values, direct_task=*)
    cpdef send(self, task_id, stream, values, targets, message_ids=*)
    cpdef send_to_acker(self, task_id, stream, values)
    cpdef emit_acker_messages(self, task_id, acker_emits)

cdef class NoopBoltExecutor(Executor):
    pass

cdef class AckerExecutor(Executor):
    cdef public Acker acker

cdef class HostedExecutor(Executor):
    cdef public object host_factory, on_child_died, hosts

cdef class BoltExecutor(HostedExecutor):
    cdef public object inputs
    cdef public Py_ssize_t _next_tuple_id
    cpdef pend(self, task_id, tuple_)
    cpdef bolt_emit(self, task_id, stream, values, anchor_ids, direct_task=*)
    cpdef emit_to(self, task_id, stream, values, anchors, direct_task=*)
    @cython.locals(anchor=TupleImpl)
    cpdef _send_anchored_to_one(self, task_id, stream, values, targets, anchor)
    cpdef ack_input(self, task_id, tuple_id)
    cpdef fail_input(self, task_id, tuple_id)
    @cython.locals(tuple_=TupleImpl)
    cpdef acked(self, task_id, tuple_)
    cpdef _take_input(self, task_id, tuple_id, verb)
    @cython.locals(tuple_=TupleImpl)
    cpdef _record_input(self, tuple_, record)
    @cython.locals(tuple_=TupleImpl)
    cpdef _process_delta(self, tuple_)

cdef class SpoutExecutor(HostedExecutor):
    cdef public SpoutPending pending
    cdef public object active, ready, _in_flight, _queued, _nexts, _next_window, _rest_until, _next_call
    cdef public Py_ssize_t pipeline, _nexts_total
    cdef public object skipped_inactive, skipped_throttle, skipped_max_spout
    cdef public bint _starting
    cpdef _call_back(self, callbacks)
    cpdef _exchange(self, task_id, command, message_id=*)
    cpdef _start_queued(self, task_id)
    cpdef _drain_queued(self, task_id)
    cpdef _start_exchange(self, task_id, command, message_id)
    cpdef _end_exchange(self, task_id)
    cpdef _schedule_next(self, delay)
    cpdef _next_tuples(self)
    cpdef _ask_next(self, task_id)
    cpdef sync(self, task_id)
    cpdef spout_emit(self, task_id, stream, values, message_id, direct_task=*, task_ids_reply=*)

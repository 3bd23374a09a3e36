"""The worker's hosts of Trident components: a task reading its ``/transactional`` state
keeps what arrives meanwhile and executes it, in order, once prepared; coordination waits for
the task's writes to be stored."""

import collections

from twisted.internet import defer

from pynimbus.trident import Fields, FixedBatchSpout, TridentTopology
from pynimbus.trident.batch_coordination import BATCH_STREAM_ID
from pynimbus.trident.transaction_attempt import TransactionAttempt
from pynimbus.worker.trident.hosts import host_factory

Tuple = collections.namedtuple("Tuple", "source_component source_task stream values")
Context = collections.namedtuple("Context", "storm_conf user_topology task_to_component now_ms")


class Store(object):
    """A store whose reads and writes finish when the test says."""

    def __init__(self):
        self.loading = defer.Deferred()
        self.pending = 0
        self.written = []
        self.values = {}

    def preload(self, states):
        return self.loading

    def state(self, state_id, subroot):
        store = self

        class State(object):
            def set_data(self, path, value):
                store.values[path] = value
                store.pending += 1

            def get_data(self, path):
                return store.values.get(path)

            def list(self, path):
                return sorted(p.split("/")[1] for p in store.values
                              if p.startswith(path + "/"))

            def delete(self, path):
                store.values.pop(path, None)

            def mkdir(self, path):
                self.set_data(path, 7)

            def close(self):
                pass
        return State()

    def when_written(self):
        d = defer.Deferred()
        self.written.append(d)
        return d

    def store_all(self):
        self.pending = 0
        waiters, self.written = self.written, []
        for d in waiters:
            d.callback(None)


class Executor(object):
    def __init__(self, plan, component_id):
        tasks = {i + 1: cid for i, cid in enumerate(sorted(list(plan.topology.spouts)
                                                           + list(plan.topology.bolts)))}
        self.component_id = component_id
        self.context = Context({}, plan.topology, tasks, lambda: 0)
        self.emits, self.acks, self.fails, self.died = [], [], [], []

    def emit_to(self, task_id, stream, values, anchors, direct_task=None):
        self.emits.append((stream, values, anchors))
        return []

    def acked(self, task_id, tuple_):
        self.acks.append(tuple_)

    def failed(self, task_id, tuple_):
        self.fails.append(tuple_)

    def child_died(self, message):
        self.died.append(message)

    def report_error(self, text):
        self.died.append(text)


def spout_coordinator_host():
    t = TridentTopology()
    t.new_stream("spout1", FixedBatchSpout(Fields("word"), 2, ["a"])).each(
        Fields("word"), lambda tup, out: out.emit([]), Fields())
    plan = t.build()
    component = "$spoutcoord-spout-spout1"
    executor, store = Executor(plan, component), Store()
    host = host_factory(plan.components[component], store, None)(executor, 2)
    return host, executor, store


def test_tuples_that_come_while_the_state_is_read_wait_for_it_then_run_in_order():
    host, executor, store = spout_coordinator_host()
    launched = host.launch()
    batches = [Tuple("$mastercoord-bg0", 1, BATCH_STREAM_ID, [TransactionAttempt(t, 0)])
               for t in (1, 2)]
    host.execute(batches[0], batches[0])
    host.execute(batches[1], batches[1])
    assert executor.emits == [] and executor.died == []  # not prepared: nothing ran
    store.loading.callback(None)
    assert launched.called
    store.store_all()  # the metadata of both batches stored: their emits and acks go
    assert [values[0].txid for _, values, _ in executor.emits] == [1, 2]
    assert [anchors for _, _, anchors in executor.emits] == [[batches[0]], [batches[1]]]
    assert executor.acks == batches and executor.died == []


def test_coordination_waits_until_the_tasks_writes_are_stored():
    host, executor, store = spout_coordinator_host()
    host.launch()
    store.loading.callback(None)
    store.store_all()
    batch = Tuple("$mastercoord-bg0", 1, BATCH_STREAM_ID, [TransactionAttempt(1, 0)])
    host.execute(batch, batch)
    assert executor.emits == [] and executor.acks == []  # meta/1 not stored yet
    store.store_all()
    assert len(executor.emits) == 1 and executor.acks == [batch]

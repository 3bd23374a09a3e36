"""Trident's batch runtime without a cluster: one task of a batch bolt, the master
coordinator, the spout coordinator and the spout executors, each driven tuple by tuple with a
collector that records what it does (ports of the behaviour of 1.2.4's
``TridentBoltExecutor``, ``MasterBatchCoordinator``, ``TridentSpoutCoordinator``,
``TridentSpoutExecutor`` and the partitioned spout executors)."""

import collections
import copy

import pytest


from pynimbus.trident import (
    BaseAggregator, BaseFilter, BaseFunction, FailedException, Fields, FixedBatchSpout,
    MemoryMapState, TridentTopology)
from pynimbus.trident.batch_coordination import (
    BATCH_STREAM_ID, COMMIT_STREAM_ID, SUCCESS_STREAM_ID)
from pynimbus.trident.builtin import Count
from pynimbus.trident.context import TridentTopologyContext
from pynimbus.trident.transaction_attempt import TransactionAttempt
from pynimbus.trident.transactional_state import MemoryTransactionalState

Received = collections.namedtuple("Received",
                                  "tuple_id source_component source_task stream values")
SEEN = []  # what the programs' Record function saw, in order


class Record(BaseFunction):
    """Records each tuple and passes it on (a function that emits nothing drops it)."""

    def execute(self, tuple_, collector):
        SEEN.append(list(tuple_))
        collector.emit([])


class CountAgg(BaseAggregator):
    """A plain aggregator (a combiner would be split over two bolts)."""

    def init(self, batch_id, collector):
        return [0]

    def aggregate(self, state, tuple_, collector):
        state[0] += 1

    def complete(self, state, collector):
        collector.emit([state[0]])


class FailOn(BaseFilter):
    def __init__(self, word):
        self.word = word

    def is_keep(self, tuple_):
        if tuple_[0] == self.word:
            raise FailedException("no %s" % self.word)
        return True


class Collector(object):
    """A task's output, recorded: emits (with the tasks the test says they go to), acks and
    fails by tuple id."""

    def __init__(self, targets=(5,)):
        self.targets = list(targets)
        self.emitted, self.direct, self.acked, self.failed, self.errors = [], [], [], [], []

    def emit(self, stream, values, anchor):
        self.emitted.append((stream, list(values), anchor and anchor.tuple_id))
        return self.targets

    def emit_direct(self, task, stream, values, anchor):
        self.direct.append((task, stream, list(values), anchor and anchor.tuple_id))

    def ack(self, tuple_):
        self.acked.append(tuple_.tuple_id)

    def fail(self, tuple_):
        self.failed.append(tuple_.tuple_id)

    def report_error(self, error):
        self.errors.append(error)


class Context(TridentTopologyContext):
    """A task's context over a plan, with transactional states in one dict."""

    def __init__(self, plan, component_id, task_id=None, tree=None):
        tasks, task = {}, 0
        for cid in sorted(list(plan.topology.spouts) + list(plan.topology.bolts)):
            task += 1
            tasks[task] = cid
        mine = task_id or next(t for t, c in tasks.items() if c == component_id)
        super().__init__({"topology.message.timeout.secs": 30}, plan.topology, tasks,
                         component_id, mine)
        self.tree = {} if tree is None else tree

    def new_transactional_state(self, state_id, subroot):
        return _Rooted(self.tree, "%s/%s/" % (state_id, subroot))


class _Rooted(MemoryTransactionalState):
    def __init__(self, tree, prefix):
        super().__init__({})
        self.shared, self.prefix = tree, prefix
        self.tree = _View(tree, prefix)


class _View(dict):
    """``tree`` seen under ``prefix`` (writes go through)."""

    def __init__(self, tree, prefix):
        super().__init__()
        self.shared, self.prefix = tree, prefix

    def __setitem__(self, k, v):
        self.shared[self.prefix + k] = v

    def get(self, k, default=None):
        return self.shared.get(self.prefix + k, default)

    def pop(self, k, *default):
        return self.shared.pop(self.prefix + k, *default)

    def __iter__(self):
        n = len(self.prefix)
        return iter([k[n:] for k in list(self.shared) if k.startswith(self.prefix)])


def running(plan, component_id, collector, now_ms=lambda: 0, tree=None):
    """A prepared copy of a planned batch bolt."""
    obj = copy.deepcopy(plan.components[component_id])
    context = Context(plan, component_id, tree=tree)
    obj.prepare(context.storm_conf, context, collector, now_ms)
    return obj, context


_ids = iter(range(1, 10 ** 6))


def tuple_of(source, stream, values):
    return Received(next(_ids), source, 1, stream, values)


def grouped_count_plan():
    """spout -> b-0 (group by word, aggregate Count, each Record)."""
    SEEN.clear()
    t = TridentTopology()
    (t.new_stream("spout1", FixedBatchSpout(Fields("word"), 3, ["a"]))
        .group_by(Fields("word")).aggregate(CountAgg(), Fields("count"))
        .each(Fields("word", "count"), Record(), Fields()))
    return t.build()


TX1 = TransactionAttempt(1, 0)


def feed(bolt, words, tx=TX1, source="spout-spout1", stream="s1"):
    data = [tuple_of(source, stream, [tx, w]) for w in words]
    for t in data:
        bolt.execute(t)
    return data


def test_a_batch_finishes_when_every_upstream_task_reported_as_many_tuples_as_came():
    plan = grouped_count_plan()
    out = Collector()
    bolt, _ = running(plan, "b-0", out)
    data = feed(bolt, ["a", "b", "a"])
    assert out.acked == [t.tuple_id for t in data] and SEEN == []
    coord = tuple_of("spout-spout1", "$coord-bg0", [TX1, 3])
    bolt.execute(coord)
    assert sorted(SEEN) == [["a", 2], ["b", 1]]
    assert out.acked[-1] == coord.tuple_id and out.failed == []


def test_a_count_that_does_not_match_fails_the_batch():
    plan = grouped_count_plan()
    out = Collector()
    bolt, _ = running(plan, "b-0", out)
    feed(bolt, ["a", "b"])
    coord = tuple_of("spout-spout1", "$coord-bg0", [TX1, 3])  # a data tuple was lost
    bolt.execute(coord)
    assert out.failed == [coord.tuple_id] and SEEN == []


def test_an_empty_batch_is_still_started_and_finished():
    plan = grouped_count_plan()
    out = Collector()
    bolt, _ = running(plan, "b-0", out)
    coord = tuple_of("spout-spout1", "$coord-bg0", [TX1, 0])
    bolt.execute(coord)
    assert out.acked == [coord.tuple_id] and SEEN == []


def test_a_newer_attempt_replaces_the_tracked_one_and_an_older_ones_tuples_are_dropped():
    plan = grouped_count_plan()
    out = Collector()
    bolt, _ = running(plan, "b-0", out)
    feed(bolt, ["a", "a"], tx=TransactionAttempt(1, 0))
    feed(bolt, ["b"], tx=TransactionAttempt(1, 1))
    late = feed(bolt, ["z"], tx=TransactionAttempt(1, 0))  # neither acked nor failed
    bolt.execute(tuple_of("spout-spout1", "$coord-bg0", [TransactionAttempt(1, 1), 1]))
    assert SEEN == [["b", 1]]
    assert late[0].tuple_id not in out.acked + out.failed


def test_a_failed_exception_fails_the_batch_through_its_coordination_tuple():
    SEEN.clear()
    t = TridentTopology()
    (t.new_stream("spout1", FixedBatchSpout(Fields("word"), 3, ["a"]))
        .filter(Fields("word"), FailOn("bad"))
        .group_by(Fields("word")).aggregate(CountAgg(), Fields("count"))
        .each(Fields("word", "count"), Record(), Fields()))
    plan = t.build()
    out = Collector()
    bolt, _ = running(plan, "b-0", out)
    data = feed(bolt, ["ok", "bad"])
    assert out.acked == [d.tuple_id for d in data]  # the tuple is acked, the batch failed
    coord = tuple_of("spout-spout1", "$coord-bg0", [TX1, 2])
    bolt.execute(coord)
    assert out.failed == [coord.tuple_id] and SEEN == []


def test_emits_are_counted_per_target_task_and_reported_on_the_coordination_stream():
    t = TridentTopology()
    (t.new_stream("spout1", FixedBatchSpout(Fields("word"), 3, ["a"]))
        .each(Fields("word"), Record(), Fields())
        .shuffle().each(Fields("word"), Record(), Fields()))
    plan = t.build()
    out = Collector(targets=[7])
    bolt, context = running(plan, "b-0", out)
    feed(bolt, ["x", "y"])
    coord = tuple_of("spout-spout1", "$coord-bg0", [TX1, 2])
    bolt.execute(coord)
    assert out.emitted == [("s2", [TX1, "x"], None), ("s2", [TX1, "y"], None)]  # unanchored
    downstream = context.get_component_tasks("b-1")
    assert out.direct == [(task, "$coord-bg0", [TX1, 2 if task == 7 else 0], coord.tuple_id)
                          for task in downstream]


def persist_plan():
    t = TridentTopology()
    state = (t.new_stream("spout1", FixedBatchSpout(Fields("word"), 3, ["a"]))
             .group_by(Fields("word"))
             .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count")))
    state.new_values_stream().each(Fields("word", "count"), Record(), Fields())
    return t.build()


def test_a_committer_writes_its_state_only_on_commit_and_holds_the_commit_until_done():
    SEEN.clear()
    plan = persist_plan()
    [persist] = [c for c, o in plan.components.items()
                 if getattr(o, "coord_specs", None)
                 and any(s.commit_stream for s in o.coord_specs.values())]
    [upstream] = [c for c in plan.components if c.startswith("b-") and c != persist]
    out = Collector()
    bolt, _ = running(plan, persist, out)
    [stream] = [g.streamId for g in plan.topology.bolts[persist].common.inputs
                if g.componentId == upstream and not g.streamId.startswith("$")]
    data = [tuple_of(upstream, stream, [TX1, w, 1]) for w in ("a", "a", "b")]
    for d in data:
        bolt.execute(d)
    coord = tuple_of(upstream, "$coord-bg0", [TX1, 3])
    bolt.execute(coord)
    assert coord.tuple_id in out.acked and SEEN == []  # counted, not committed yet
    commit = tuple_of("$mastercoord-bg0", COMMIT_STREAM_ID, [TX1])
    bolt.execute(commit)
    assert sorted(SEEN) == [["a", 2], ["b", 1]]
    assert out.acked[-1] == commit.tuple_id


def master(plan_conf=None, tree=None, now=None):
    t = TridentTopology()
    t.new_stream("spout1", FixedBatchSpout(Fields("word"), 3, ["a"])).each(
        Fields("word"), Record(), Fields())
    plan = t.build()
    obj = copy.deepcopy(plan.components["$mastercoord-bg0"])
    context = Context(plan, "$mastercoord-bg0", tree=tree)
    out = Collector()
    clock = now or [0]
    conf = {"topology.trident.batch.emit.interval.millis": 500}
    conf.update(plan_conf or {})
    obj.open(conf, context, out, lambda: clock[0])
    return obj, out, clock, context


class SpoutCollector(object):
    def __init__(self):
        self.emitted = []

    def emit(self, stream, values, message_id):
        self.emitted.append((stream, values[0], message_id))


def test_the_master_emits_batches_commits_in_order_and_succeeds():
    mbc, _, clock, context = master()
    out = mbc.collector = SpoutCollector()
    mbc.next_tuple()
    assert out.emitted == [(BATCH_STREAM_ID, TX1, TX1)]
    mbc.next_tuple()  # one batch at most in flight (topology.max.spout.pending unset)
    assert len(out.emitted) == 1
    mbc.ack(TX1)  # the batch's tree completed: commit it
    assert out.emitted[-1] == (COMMIT_STREAM_ID, TX1, TX1)
    clock[0] = 600  # past the throttle's window
    mbc.ack(TX1)  # the commit's tree completed: success, the next batch
    assert out.emitted[-2:] == [(SUCCESS_STREAM_ID, TX1, None),
                                (BATCH_STREAM_ID, TransactionAttempt(2, 0),
                                 TransactionAttempt(2, 0))]
    state = context.new_transactional_state("spout1", "coordinator")
    assert state.get_data("currtx") == 2 and state.get_data("currattempts") == {"2": 0}


def test_the_next_txid_is_stored_before_success_goes_out():
    """On ``$success`` the spouts drop the metadata of the batches before it; were the
    master to die between sending it and storing the next txid, its restart would replay
    the committed batch without that metadata."""
    mbc, _, clock, context = master()
    state = context.new_transactional_state("spout1", "coordinator")
    stored_at_emit = {}

    class Recording(SpoutCollector):
        def emit(self, stream, values, message_id):
            stored_at_emit[stream] = state.get_data("currtx")
            super().emit(stream, values, message_id)
    mbc.collector = Recording()
    mbc.next_tuple()
    mbc.ack(TX1)
    mbc.ack(TX1)
    assert stored_at_emit[SUCCESS_STREAM_ID] == 2


def test_a_failed_batch_goes_again_with_the_next_attempt_and_a_restart_resumes():
    tree = {}
    mbc, _, clock, _ = master(tree=tree)
    out = mbc.collector = SpoutCollector()
    mbc.next_tuple()
    clock[0] = 600  # the throttle's window is over
    mbc.fail(TX1)
    assert out.emitted[-1] == (BATCH_STREAM_ID, TransactionAttempt(1, 1),
                               TransactionAttempt(1, 1))
    mbc.ack(TX1)  # an old attempt's word changes nothing
    assert len(out.emitted) == 2
    restarted, _, _, _ = master(plan_conf={"topology.max.spout.pending": 3}, tree=tree)
    restarted.collector = out
    restarted.next_tuple()  # resumes txid 1 after the stored attempt
    assert out.emitted[-1][1] == TransactionAttempt(1, 2)


def test_the_throttle_and_deactivation_hold_new_batches():
    mbc, _, clock, _ = master(plan_conf={"topology.max.spout.pending": 5})
    out = mbc.collector = SpoutCollector()
    mbc.next_tuple()
    mbc.next_tuple()
    assert len(out.emitted) == 1  # one batch per 500 ms window
    clock[0] = 501
    mbc.deactivate()
    mbc.next_tuple()
    assert len(out.emitted) == 1
    mbc.activate()
    mbc.next_tuple()
    assert out.emitted[-1][1] == TransactionAttempt(2, 0)


def test_batches_start_in_txid_order_even_when_the_window_opens_during_a_sync():
    """A clock that moves on at each read, the throttle's window ending between the checks
    of two txids: the later txid must not start before the earlier one (a partitioned
    spout would emit the same offsets in both).  Java reads the clock per txid."""
    reads = [0]

    class Clock(list):
        def __getitem__(self, i):
            reads[0] += 1
            return 500 + reads[0] - 2 if reads[0] > 1 else 0  # 0 at open, then 500, 501..
    mbc, _, _, _ = master(plan_conf={"topology.max.spout.pending": 2}, now=Clock([0]))
    out = mbc.collector = SpoutCollector()
    mbc.throttler.window_events = 1  # an event at 0: the window is over after 500 ms
    mbc.next_tuple()
    mbc.next_tuple()
    started = [tx.txid for stream, tx, _ in out.emitted if stream == BATCH_STREAM_ID]
    assert started == [1], out.emitted


def test_the_spout_coordinator_keeps_a_batchs_metadata_for_its_replays():
    t = TridentTopology()
    t.new_stream("spout1", FixedBatchSpout(Fields("word"), 3, ["a"])).each(
        Fields("word"), Record(), Fields())
    plan = t.build()
    coordinator = copy.deepcopy(plan.components["$spoutcoord-spout-spout1"])
    context = Context(plan, "$spoutcoord-spout-spout1")
    coordinator.prepare(context.storm_conf, context)

    class Basic(object):
        emitted = []

        def emit(self, stream, values):
            self.emitted.append((stream, values))
    out = Basic()
    tx2 = TransactionAttempt(2, 0)
    for tx in (TX1, tx2):
        coordinator.execute(tuple_of("$mastercoord-bg0", BATCH_STREAM_ID, [tx]), out)
    assert out.emitted == [(BATCH_STREAM_ID, [TX1, None]), (BATCH_STREAM_ID, [tx2, None])]
    state = context.new_transactional_state("spout1", "coordinator")
    assert state.list("meta") == ["1", "2"]
    coordinator.execute(tuple_of("$mastercoord-bg0", SUCCESS_STREAM_ID, [tx2]), out)
    assert state.list("meta") == ["2"]  # what came before the success is dropped


def test_the_batch_spout_executor_emits_a_batch_with_its_id_and_replays_it_the_same():
    t = TridentTopology()
    spout = FixedBatchSpout(Fields("word"), 2, ["a"], ["b"], ["c"])
    t.new_stream("spout1", spout).each(Fields("word"), Record(), Fields())
    plan = t.build()
    out = Collector()
    executor, context = running(plan, "spout-spout1", out)
    [target] = out.targets = context.get_component_tasks("b-0")
    batch = tuple_of("$spoutcoord-spout-spout1", BATCH_STREAM_ID, [TX1, None])
    executor.execute(batch)
    first = [v for _, v, _ in out.emitted]
    assert first == [[TX1, "a"], [TX1, "b"]]
    assert out.direct == [(target, "$coord-bg0", [TX1, 2], batch.tuple_id)]  # at once
    assert out.acked == [batch.tuple_id]
    replay = TransactionAttempt(1, 1)
    executor.execute(tuple_of("$spoutcoord-spout-spout1", BATCH_STREAM_ID, [replay, None]))
    assert [v[1:] for _, v, _ in out.emitted[2:]] == [["a"], ["b"]]  # the same batch again


@pytest.mark.parametrize("kind", ["transactional", "opaque"])
def test_a_partitioned_spout_emits_from_its_stored_offsets_after_a_restart(kind):
    from trident_programs import exactly_once

    t = TridentTopology()
    spout = (exactly_once.OpaqueCorpusSpout() if kind == "opaque"
             else exactly_once.TransactionalCorpusSpout())
    t.new_stream("corpus", spout).each(Fields("sentence"), Record(), Fields())
    plan = t.build()
    tree = {}

    def emitter_run(txids):
        out = Collector(targets=[9])
        executor, _ = running(plan, "spout-corpus", out, tree=tree)
        for txid in txids:
            tx = TransactionAttempt(txid, 0)
            executor.execute(tuple_of("$spoutcoord-spout-corpus", BATCH_STREAM_ID,
                                      [tx, exactly_once.PARTITIONS]))
            if kind == "opaque":
                executor.execute(tuple_of("$mastercoord-bg0", COMMIT_STREAM_ID, [tx]))
        return [v[1] for _, v, _ in out.emitted]

    first = emitter_run([1, 2])
    assert len(first) == 2 * exactly_once.PARTITIONS * exactly_once.PER_BATCH
    again = emitter_run([2, 3])  # a new worker: txid 2 replayed, then txid 3
    per_batch = exactly_once.PARTITIONS * exactly_once.PER_BATCH
    if kind == "transactional":
        assert again[:per_batch] == first[per_batch:]  # the same batch for txid 2
    corpus = [s for p in range(exactly_once.PARTITIONS)
              for s in exactly_once.corpus(p)[:3 * exactly_once.PER_BATCH]]
    assert sorted(set(first) | set(again)) == sorted(set(corpus))


def test_the_partial_count_of_a_grouped_combiner_is_emitted_per_word_at_the_batchs_end():
    """Word count's first bolt: split, the combiner's init each and the partial aggregation
    (folded directly, the each's tuples never made); at the batch's end one partial count
    per word crosses to the next bolt."""
    class Split(BaseFunction):
        def execute(self, tuple_, collector):
            for word in tuple_[0].split():
                collector.emit([word])

    t = TridentTopology()
    (t.new_stream("spout1", FixedBatchSpout(Fields("sentence"), 3, ["a"]))
        .each(Fields("sentence"), Split(), Fields("word"))
        .group_by(Fields("word"))
        .persistent_aggregate(MemoryMapState.Factory(), Count(), Fields("count")))
    plan = t.build()
    [split] = [c for c, b in plan.topology.bolts.items()
               if any(g.componentId == "spout-spout1" for g in b.common.inputs)
               and c.startswith("b-")]
    out = Collector()
    bolt, _ = running(plan, split, out)
    fused = [p for ps in bolt.bolt.ordered.values() for p in ps
             if getattr(p, "fused", None) is not None]
    assert len(fused) == 1  # the init each folds into the partial aggregation
    for sentence in ("the cow", "the moon the end"):
        bolt.execute(tuple_of("spout-spout1", "s1", [TX1, sentence]))
    bolt.execute(tuple_of("spout-spout1", "$coord-bg0", [TX1, 2]))
    partial = sorted(values[1:] for _, values, _ in out.emitted)
    assert partial == [["cow", 1], ["end", 1], ["moon", 1], ["the", 3]]


# -- DRPC streams: RichSpoutBatchTriggerer, a batch per request, ReturnResultsReducer

class Requests(object):
    """A DRPC spout's requests, as a test gives them."""

    def __init__(self, requests):
        self.requests = list(requests)
        self.failed = []

    def fetch(self):
        return self.requests.pop(0) if self.requests else None

    def fail(self, message_id):
        self.failed.append(message_id)

    def close(self):
        pass


class DRPCContext(Context):
    def __init__(self, plan, component_id, requests=None):
        super().__init__(plan, component_id)
        self.requests, self.returned = requests, []

    def drpc_requests(self, function, local_drpc_id=None):
        return self.requests

    def drpc_return(self, host, port, request_id, result):
        self.returned.append((host, port, request_id, result))


class SpoutOutput(object):
    """A spout task's output: emits go to ``targets``; ids as given."""

    def __init__(self, targets):
        self.targets, self.emitted, self.direct = targets, [], []

    def emit(self, stream, values, message_id):
        self.emitted.append((stream, list(values), message_id))
        return self.targets

    def emit_direct(self, task, stream, values, message_id):
        self.direct.append((task, stream, list(values), message_id))


def drpc_plan():
    """spout-lengths0 -> a bolt projecting its args and emitting their ``len`` on s4, and
    one projecting the return info; both -> the bolt of the results reducer."""
    t = TridentTopology()
    t.new_drpc_stream("lengths").each(Fields("args"), Length(), Fields("len")).project(
        Fields("len"))
    return t.build()


def bolt_emitting(plan, stream):
    return next(b for b, bolt in plan.topology.bolts.items() if stream in bolt.common.streams)


class Length(BaseFunction):
    def execute(self, tuple_, collector):
        if tuple_[0] == "fail":
            raise FailedException("asked to")
        collector.emit([len(tuple_[0])])


def test_each_request_is_a_batch_announced_to_every_task_of_the_coordination_stream():
    from pynimbus.trident.transaction_attempt import RichSpoutBatchId

    plan = drpc_plan()
    info = '{"id":"7","host":"h","port":3773}'
    requests = Requests([("hello", info, ("7", 0))])
    triggerer = copy.deepcopy(plan.components["spout-lengths0"])
    context = DRPCContext(plan, "spout-lengths0", requests)
    subscribers = sorted(t for c in context.get_this_targets()["$coord-bg0"]
                         for t in context.get_component_tasks(c))
    assert len(subscribers) == 2
    out = SpoutOutput(targets=subscribers[:1])
    triggerer.open(context.storm_conf, context, out)
    triggerer.next_tuple()
    [(stream, values, message_id)] = out.emitted
    batch_id = values[0]
    assert (stream, values[1:], message_id) == ("s1", ["hello", info], None)
    assert type(batch_id) is RichSpoutBatchId and batch_id.get_attempt_id() == 0
    assert sorted((task, stream, values) for task, stream, values, _ in out.direct) == [
        (task, "$coord-bg0", [batch_id, 1 if task == subscribers[0] else 0])
        for task in subscribers]
    coord_ids = [m for _, _, _, m in out.direct]
    assert len(set(coord_ids)) == len(subscribers)
    triggerer.next_tuple()  # no request: nothing
    assert len(out.emitted) == 1
    acked = []
    triggerer.delegate.ack = acked.append
    for m in coord_ids[:-1]:
        triggerer.ack(m)
    assert acked == []  # not before every coordination tuple is acked
    triggerer.ack(coord_ids[-1])
    assert acked == [("7", 0)] and requests.failed == []


def test_a_failed_coordination_tuple_fails_the_request_once():
    plan = drpc_plan()
    requests = Requests([("x", '{"id":"8","host":"h","port":1}', ("8", 1))])
    triggerer = copy.deepcopy(plan.components["spout-lengths0"])
    context = DRPCContext(plan, "spout-lengths0", requests)
    out = SpoutOutput(targets=[context.get_component_tasks(bolt_emitting(plan, "s4"))[0]])
    triggerer.open(context.storm_conf, context, out)
    triggerer.next_tuple()
    coord_ids = [m for _, _, _, m in out.direct]
    triggerer.fail(coord_ids[0])
    triggerer.fail(coord_ids[1])
    triggerer.ack(coord_ids[1])
    assert requests.failed == [("8", 1)]


@pytest.mark.parametrize("from_another_worker", [False, True])
def test_a_request_batch_finishes_on_its_single_coordination_tuple(from_another_worker):
    from pynimbus.trident.transaction_attempt import RichSpoutBatchId

    plan = drpc_plan()
    reducer_tasks = Context(plan, "b-0").get_component_tasks(bolt_emitting(plan, "s6"))
    out = Collector(targets=reducer_tasks)
    bolt, _ = running(plan, bolt_emitting(plan, "s4"), out)
    batch_id = RichSpoutBatchId(-1234567890123)
    sent = int(batch_id) if from_another_worker else batch_id
    data = tuple_of("spout-lengths0", "s1", [sent, "hello", "{}"])
    bolt.execute(data)
    assert out.emitted == [("s4", [batch_id, 5], None)]  # ``len``, projected
    coord = tuple_of("spout-lengths0", "$coord-bg0", [sent, 1])
    bolt.execute(coord)
    assert out.acked == [data.tuple_id, coord.tuple_id] and out.failed == []
    assert out.direct == [(reducer_tasks[0], "$coord-bg0", [batch_id, 1], coord.tuple_id)]
    assert type(out.direct[0][2][0]) is RichSpoutBatchId


def test_a_failed_exception_in_a_request_batch_fails_it():
    from pynimbus.trident.transaction_attempt import RichSpoutBatchId

    plan = drpc_plan()
    out = Collector()
    bolt, _ = running(plan, bolt_emitting(plan, "s4"), out)
    batch_id = RichSpoutBatchId(5)
    bolt.execute(tuple_of("spout-lengths0", "s1", [batch_id, "fail", "{}"]))
    coord = tuple_of("spout-lengths0", "$coord-bg0", [batch_id, 1])
    bolt.execute(coord)
    assert coord.tuple_id in out.failed


def test_the_results_reducer_returns_the_batchs_tuples_as_json_to_the_asking_server():
    from pynimbus.trident.context import TridentMultiReducerContext
    from pynimbus.trident.drpc import ReturnResultsReducer

    plan = drpc_plan()
    context = DRPCContext(plan, bolt_emitting(plan, "s6"))
    reducer = ReturnResultsReducer()
    reducer.prepare({}, TridentMultiReducerContext([], context))
    out = Collector()
    state = reducer.init(out)
    reducer.execute(state, 1, [5, "a/b"], out)
    reducer.execute(state, 0, ['{"id":"12","host":"drpc1","port":3773}'], out)
    reducer.execute(state, 1, [7, None], out)
    reducer.complete(state, out)
    assert context.returned == [("drpc1", 3773, "12", '[[5,"a\\/b"],[7,null]]')]
    other = reducer.init(out)  # the task without the return info returns nothing
    reducer.execute(other, 1, [1], out)
    reducer.complete(other, out)
    broken = reducer.init(out)
    reducer.execute(broken, 0, ["not json"], out)
    reducer.complete(broken, out)
    assert len(context.returned) == 1 and len(out.errors) == 1


def test_a_drpc_stream_joined_with_a_batch_spouts_stream_is_refused():
    from pynimbus.trident.topology import PlanningError

    t = TridentTopology()
    batch = t.new_stream("s", FixedBatchSpout(Fields("word"), 3, ["a"]))
    t.merge(t.new_drpc_stream("f"), batch)
    with pytest.raises(PlanningError, match="^Cannot join DRPC stream with streams originating "
                                            "from other spouts$"):
        t.build()

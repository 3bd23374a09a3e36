"""Receive queues and their loop (pynimbus.worker.receive_queue) on a ``task.Clock``: the
one path from a tuple's arrival to its execution, and the backpressure derived from it."""
# test-case-name: tests.test_worker_receive_queue

from twisted.internet import task

from pynimbus.worker.receive_queue import ExecutorLoop, ReceiveQueue, watermarks


class Consumer:
    """An executor that records what it is handed, and may stop accepting."""

    limits_accepting = True

    def __init__(self):
        self.accepted, self.flushes = [], 0
        self.accepting = True

    def accept(self, task_id, tuple_):
        self.accepted.append((task_id, tuple_))

    def flush(self):
        self.flushes += 1

    def can_accept(self, task_id):
        return self.accepting


def loop_and_queue(clock, high=9, low=4, **loop_options):
    rooms = []
    loop = ExecutorLoop(clock.callLater, lambda: rooms.append(1), **loop_options)
    consumer = Consumer()
    return loop, ReceiveQueue(consumer, loop, high, low), consumer, rooms


def test_the_watermarks_are_storms_shares_of_the_capacity():
    assert watermarks({}, 1024) == (921, 409)
    assert watermarks({"backpressure.disruptor.high.watermark": 0.5,
                       "backpressure.disruptor.low.watermark": 0.1}, 100) == (50, 10)
    assert watermarks({}, 1) == (1, 0)


def test_nothing_is_handed_over_in_the_senders_call_and_all_of_it_on_the_next_turn():
    clock = task.Clock()
    loop, queue, consumer, _ = loop_and_queue(clock)
    for n in range(3):
        queue.put(5, n)
    assert consumer.accepted == [] and len(queue) == 3
    clock.advance(0)
    assert consumer.accepted == [(5, 0), (5, 1), (5, 2)] and consumer.flushes == 1
    assert len(queue) == 0 and not clock.getDelayedCalls()


def test_ready_queues_take_turns_in_batches_and_a_turn_has_a_budget():
    """Batches of ``batch`` from each ready queue in turn; past the turn's budget the rest
    waits for the next reactor turn."""
    clock = task.Clock()
    loop = ExecutorLoop(clock.callLater, lambda: None, batch=2, turn_budget=6)
    order = []

    class Named(Consumer):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def accept(self, task_id, tuple_):
            order.append(self.name)

    queues = [ReceiveQueue(Named(name), loop, 100, 10) for name in "ab"]
    for queue in queues:
        for n in range(5):
            queue.put(1, n)
    loop.run()  # one reactor turn's call
    assert order == list("aabbaa") and clock.getDelayedCalls()  # the rest: a later turn
    clock.advance(0)
    assert order == list("aabbaa") + list("bbab")


def test_a_tuple_put_while_its_queue_is_drained_is_taken_in_the_same_turn():
    clock = task.Clock()
    loop, queue, consumer, _ = loop_and_queue(clock)
    consumer.accept = lambda task_id, tuple_: (
        consumer.accepted.append(tuple_), tuple_ < 3 and queue.put(task_id, tuple_ + 1))
    queue.put(1, 0)
    clock.advance(0)
    assert consumer.accepted == [0, 1, 2, 3] and not clock.getDelayedCalls()


def test_a_queue_is_full_from_the_high_mark_until_it_drains_to_the_low_one():
    """Full at ``high`` tuples (the loop counts it, for the spouts' throttle), still full
    above ``low``, and room again (told once) at ``low`` or below."""
    clock = task.Clock()
    loop, queue, consumer, rooms = loop_and_queue(clock, high=4, low=1)
    consumer.accepting = False
    for n in range(3):
        queue.put(1, n)
    assert not queue.full and loop.full_count == 0
    queue.put(1, 3)
    queue.put(1, 4)  # never refused: past the mark
    assert queue.full and loop.full_count == 1
    clock.advance(0)
    assert consumer.accepted == [] and queue.full
    consumer.accepting = True
    queue.wake()
    clock.advance(0)
    assert len(consumer.accepted) == 5
    assert not queue.full and loop.full_count == 0 and rooms == [1]


def test_a_consumer_that_stops_accepting_holds_its_queue_until_woken():
    clock = task.Clock()
    loop, queue, consumer, _ = loop_and_queue(clock)
    consumer.accept = lambda task_id, tuple_: (consumer.accepted.append(tuple_),
                                               setattr(consumer, "accepting", False))
    for n in range(3):
        queue.put(1, n)
    clock.advance(0)
    assert consumer.accepted == [0] and not clock.getDelayedCalls() and not queue.waiting
    consumer.accepting = True
    queue.wake()
    clock.advance(0)
    assert consumer.accepted == [0, 1]


def test_a_halted_loop_hands_nothing_over():
    """A dying worker halts its loop: what is queued, or queued later, stays there."""
    clock = task.Clock()
    loop, queue, consumer, _ = loop_and_queue(clock)
    queue.put(1, 0)
    loop.halt()
    queue.put(1, 1)
    clock.advance(0)
    assert consumer.accepted == [] and len(queue) == 2 and not clock.getDelayedCalls()

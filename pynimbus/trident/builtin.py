"""Trident's built-in operations (pure).

Ports of 1.2.4 ``trident/operation/builtin``: ``Count`` and ``Sum`` (combiners), ``FirstN``
(an assembly), ``MapGet`` and ``TupleCollectionGet`` (queries on a state), and the filters
``FilterNull``, ``Debug``, ``Equals`` and ``Negate``.
"""

import datetime
import heapq
import itertools
import logging

from pynimbus.trident.operation import (
    Assembly, BaseAggregator, BaseFilter, CombinerAggregator)
from pynimbus.trident.state.updaters import BaseQueryFunction

log = logging.getLogger(__name__)


class Count(CombinerAggregator):
    """``Count``: the number of tuples."""

    def init(self, tuple_):
        return 1

    def combine(self, value1, value2):
        return value1 + value2

    def zero(self):
        return 0


class Sum(CombinerAggregator):
    """``Sum``: the sum of the first input field."""

    def init(self, tuple_):
        return tuple_[0]

    def combine(self, value1, value2):
        return value1 + value2

    def zero(self):
        return 0


class FirstNAgg(BaseAggregator):
    """``FirstN.FirstNAgg``: the first ``n`` tuples of the partition's batch."""

    def __init__(self, n):
        self.n = n

    def init(self, batch_id, collector):
        return [0]

    def aggregate(self, state, tuple_, collector):
        if state[0] < self.n:
            collector.emit(tuple_)
            state[0] += 1

    def complete(self, state, collector):
        pass


class FirstNSortedAgg(BaseAggregator):
    """``FirstN.FirstNSortedAgg``: the ``n`` tuples of the smallest (``reverse``: largest)
    ``sort_field``, in that order."""

    def __init__(self, n, sort_field, reverse=False):
        self.n = n
        self.sort_field = sort_field
        self.reverse = reverse

    def init(self, batch_id, collector):
        return []

    def aggregate(self, state, tuple_, collector):
        state.append(tuple_)

    def complete(self, state, collector):
        key = self.sort_field
        pick = heapq.nlargest if self.reverse else heapq.nsmallest
        for tuple_ in pick(self.n, state, key=lambda t: t.get_value_by_field(key)):
            collector.emit(tuple_)


class FirstN(Assembly):
    """``FirstN(n, sort_field=None, reverse=False)``: the first ``n`` tuples of each batch
    (by ``sort_field`` when given): per partition, then globally."""

    def __init__(self, n, sort_field=None, reverse=False):
        self.agg = (FirstNSortedAgg(n, sort_field, reverse) if sort_field is not None
                    else FirstNAgg(n))

    def apply(self, stream):
        fields = stream.get_output_fields()
        return (stream.partition_aggregate(fields, self.agg, fields)
                .global_().partition_aggregate(fields, self.agg, fields))


class MapGet(BaseQueryFunction):
    """``MapGet``: each tuple (the key) looked up in a map state; the value appended."""

    def batch_retrieve(self, state, tuples):
        return state.multi_get([list(t) for t in tuples])

    def execute(self, tuple_, result, collector):
        collector.emit((result,))


class TupleCollectionGet(BaseQueryFunction):
    """``TupleCollectionGet``: every tuple of the state (an ``ITupleCollection``: its keys and
    value, as ``get_tuples`` gives them) emitted for each input tuple."""

    def batch_retrieve(self, state, tuples):
        return [list(state.get_tuples()) for _ in tuples]

    def execute(self, tuple_, result, collector):
        for values in result:
            collector.emit(values)


class FilterNull(BaseFilter):
    """``FilterNull``: keeps tuples without a null value."""

    def is_keep(self, tuple_):
        return all(value is not None for value in tuple_)


class Debug(BaseFilter):
    """``Debug([name])``: prints each tuple (``use_logger``: logs it at debug), keeps it."""

    def __init__(self, name=None, use_logger=False):
        self.prefix = "DEBUG: " if name is None else "DEBUG(%s): " % name
        self.use_logger = use_logger

    def is_keep(self, tuple_):
        if self.use_logger:
            log.debug("%s", list(tuple_))
        else:
            print("<%s> %s%s" % (datetime.datetime.now().strftime("%a %b %d %H:%M:%S %Y"),
                                 self.prefix, list(tuple_)), flush=True)
        return True


class Equals(BaseFilter):
    """``Equals``: keeps tuples whose values are all equal."""

    def is_keep(self, tuple_):
        return all(a == b for a, b in zip(tuple_, itertools.islice(tuple_, 1, None)))


class Negate(BaseFilter):
    """``Negate(filter)``: keeps what ``filter`` drops."""

    def __init__(self, delegate):
        self.delegate = delegate

    def prepare(self, conf, context):
        self.delegate.prepare(conf, context)

    def is_keep(self, tuple_):
        return not self.delegate.is_keep(tuple_)

    def cleanup(self):
        self.delegate.cleanup()

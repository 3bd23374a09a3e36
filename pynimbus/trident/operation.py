"""Trident's operation interfaces, as Python base classes (pure).

Snake-case names of ``org.apache.storm.trident.operation`` (1.2.4): every operation has
``prepare(conf, context)`` and ``cleanup()``; then

* ``BaseFunction.execute(tuple, collector)`` (``each``), ``BaseFilter.is_keep(tuple)``
  (``each``/``filter``), ``MapFunction.execute(tuple) -> values``,
  ``FlatMapFunction.execute(tuple) -> iterable of values``, ``Consumer.accept(tuple)`` (``peek``);
* ``BaseAggregator``: ``init(batch_id, collector) -> state``,
  ``aggregate(state, tuple, collector)``, ``complete(state, collector)``;
* ``CombinerAggregator``: ``init(tuple) -> value``, ``combine(a, b) -> value``, ``zero()``;
* ``ReducerAggregator``: ``init() -> value``, ``reduce(value, tuple) -> value``;
* ``BaseMultiReducer``: ``init(collector)``, ``execute(state, stream_index, tuple, collector)``,
  ``complete(state, collector)``;
* ``Assembly.apply(stream) -> stream`` (``apply_assembly``).

Where Storm takes a one-method interface a plain function or lambda is accepted too
(:func:`as_function` and the others below say which signature each stands for).

:class:`FailedException` raised by a function, aggregator, query or state fails the batch, which
replays; any other exception is a component error, as in Storm.
"""


class FailedException(Exception):
    """``org.apache.storm.topology.FailedException``: the batch fails and is replayed."""


class ReportedFailedException(FailedException):
    """``ReportedFailedException``: as :class:`FailedException`, and reported as an error."""


class BaseOperation(object):
    """``BaseOperation``: ``prepare`` and ``cleanup`` that do nothing."""

    def prepare(self, conf, context):
        pass

    def cleanup(self):
        pass


class BaseFunction(BaseOperation):
    """``BaseFunction``: ``execute(tuple, collector)`` emits zero or more value lists, each
    appended to the input tuple."""

    def execute(self, tuple_, collector):
        raise NotImplementedError


class BaseFilter(BaseOperation):
    """``BaseFilter``: ``is_keep(tuple)`` keeps the tuple when true."""

    def is_keep(self, tuple_):
        raise NotImplementedError


class MapFunction(BaseOperation):
    """``MapFunction``: ``execute(tuple)`` returns the output values (a list or tuple)."""

    def execute(self, tuple_):
        raise NotImplementedError


class FlatMapFunction(BaseOperation):
    """``FlatMapFunction``: ``execute(tuple)`` returns an iterable of output value lists."""

    def execute(self, tuple_):
        raise NotImplementedError


class Consumer(BaseOperation):
    """``Consumer`` (``peek``): ``accept(tuple)`` sees each tuple, which passes on unchanged."""

    def accept(self, tuple_):
        raise NotImplementedError


class BaseAggregator(BaseOperation):
    """``BaseAggregator``: a state per batch (per group under ``group_by``)."""

    def init(self, batch_id, collector):
        raise NotImplementedError

    def aggregate(self, state, tuple_, collector):
        raise NotImplementedError

    def complete(self, state, collector):
        raise NotImplementedError


class CombinerAggregator(object):
    """``CombinerAggregator``: one value per tuple, combined; ``zero()`` for an empty input.
    Trident combines partially before repartitioning."""

    def init(self, tuple_):
        raise NotImplementedError

    def combine(self, value1, value2):
        raise NotImplementedError

    def zero(self):
        raise NotImplementedError


class ReducerAggregator(object):
    """``ReducerAggregator``: ``reduce(init(), tuple)`` over every tuple."""

    def init(self):
        raise NotImplementedError

    def reduce(self, current, tuple_):
        raise NotImplementedError


class BaseMultiReducer(BaseOperation):
    """``MultiReducer`` over several streams (``multi_reduce``, ``merge``, ``join``)."""

    def init(self, collector):
        raise NotImplementedError

    def execute(self, state, stream_index, tuple_, collector):
        raise NotImplementedError

    def complete(self, state, collector):
        raise NotImplementedError


class Assembly(object):
    """``Assembly``: ``apply(stream)`` returns the stream with operations added."""

    def apply(self, stream):
        raise NotImplementedError


# Plain functions where Storm takes a one-method interface.

class _Plain(BaseOperation):
    def __init__(self, call):
        self.call = call

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.call)


class PlainFunction(_Plain, BaseFunction):
    """A function ``f(tuple, collector)`` as a ``Function``."""

    def execute(self, tuple_, collector):
        self.call(tuple_, collector)


class PlainFilter(_Plain, BaseFilter):
    """A function ``f(tuple) -> bool`` as a ``Filter``."""

    def is_keep(self, tuple_):
        return self.call(tuple_)


class PlainMapFunction(_Plain, MapFunction):
    """A function ``f(tuple) -> values`` as a ``MapFunction``."""

    def execute(self, tuple_):
        return self.call(tuple_)


class PlainFlatMapFunction(_Plain, FlatMapFunction):
    """A function ``f(tuple) -> iterable of values`` as a ``FlatMapFunction``."""

    def execute(self, tuple_):
        return self.call(tuple_)


class PlainConsumer(_Plain, Consumer):
    """A function ``f(tuple)`` as a ``Consumer``."""

    def accept(self, tuple_):
        self.call(tuple_)


def _operation(value, method, plain, what):
    if hasattr(value, method) and not isinstance(value, type):
        return value
    if callable(value) and not isinstance(value, type):
        return plain(value)
    raise TypeError("%s must be an object with %s() or a function, not %r"
                    % (what, method, value))


def as_function(value):
    return _operation(value, "execute", PlainFunction, "a Trident function")


def as_filter(value):
    return _operation(value, "is_keep", PlainFilter, "a Trident filter")


def as_map_function(value):
    return _operation(value, "execute", PlainMapFunction, "a map function")


def as_flat_map_function(value):
    return _operation(value, "execute", PlainFlatMapFunction, "a flat map function")


def as_consumer(value):
    return _operation(value, "accept", PlainConsumer, "a peek consumer")


COMBINER, REDUCER, AGGREGATOR = "combiner", "reducer", "aggregator"


def aggregator_kind(value):
    """Which of Storm's three aggregator interfaces ``value`` keeps (the Java overload that
    would take it): ``COMBINER`` (``combine`` and ``zero``), ``REDUCER`` (``reduce``) or
    ``AGGREGATOR`` (``aggregate`` and ``complete``).

    :raises TypeError: none of them (a class instead of an instance is named as such)."""
    if isinstance(value, type):
        raise TypeError("an aggregator instance is needed, not the class %s: write %s()"
                        % (value.__name__, value.__name__))
    if hasattr(value, "combine") and hasattr(value, "zero"):
        return COMBINER
    if hasattr(value, "reduce"):
        return REDUCER
    if hasattr(value, "aggregate") and hasattr(value, "complete"):
        return AGGREGATOR
    raise TypeError("%r is not an aggregator: it needs init/aggregate/complete "
                    "(BaseAggregator), init/combine/zero (CombinerAggregator) or init/reduce "
                    "(ReducerAggregator)" % (value,))

"""The processors a Trident node runs inside its ``SubtopologyBolt`` (pure).

Ports of 1.2.4 ``trident/planner/processor``: each processor node of the plan holds one of
these, with what the planner gave it (its input fields and operation).
"""


class TridentProcessor(object):
    """What every processor is built from: ``input_fields`` (None: all of its input)."""

    input_fields = None


class EachProcessor(TridentProcessor):
    """``EachProcessor`` (``each``, ``filter``): a function's values appended to its input."""

    def __init__(self, input_fields, function):
        self.input_fields = input_fields
        self.function = function


class MapProcessor(TridentProcessor):
    """``MapProcessor`` (``map``, ``flat_map``, ``peek``): the function's values as the
    output tuple (fresh fields)."""

    def __init__(self, input_fields, function):
        self.input_fields = input_fields
        self.function = function


class ProjectedProcessor(TridentProcessor):
    """``ProjectedProcessor`` (``project``): the kept fields of each tuple."""

    def __init__(self, project_fields):
        self.project_fields = project_fields


class AggregateProcessor(TridentProcessor):
    """``AggregateProcessor``: an aggregator's ``init`` per batch, ``aggregate`` per tuple,
    ``complete`` at the batch's end (fresh fields)."""

    def __init__(self, input_fields, agg):
        self.input_fields = input_fields
        self.agg = agg


class PartitionPersistProcessor(TridentProcessor):
    """``PartitionPersistProcessor``: a batch's tuples handed to a state updater at the batch's
    end, between the state's ``begin_commit`` and ``commit`` (a committer)."""

    def __init__(self, state_id, input_fields, updater):
        self.state_id = state_id
        self.input_fields = input_fields
        self.updater = updater


class StateQueryProcessor(TridentProcessor):
    """``StateQueryProcessor``: a batch's tuples queried against a state at the batch's end,
    each answer appended to its tuple."""

    def __init__(self, state_id, input_fields, function):
        self.state_id = state_id
        self.input_fields = input_fields
        self.function = function


class MultiReducerProcessor(TridentProcessor):
    """``MultiReducerProcessor`` (``merge``, ``join``, ``multi_reduce``): one reducer over
    several parent streams, each with its input fields."""

    def __init__(self, input_fields, reducer):
        self.input_fields = input_fields
        self.reducer = reducer

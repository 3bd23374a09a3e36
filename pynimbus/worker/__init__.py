"""The Python worker: ``python -m pynimbus.worker``, launched by a Python supervisor per slot.

Pure ports of what a Storm worker does with tuples (groupings, the acker, the multilang
protocol's messages, executor statistics, the wire codec between workers) and the thin Twisted
shell around them (the worker daemon and its executors, multilang child processes, the
transport between workers).
"""

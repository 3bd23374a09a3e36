"""The worker half's building blocks (issue 9), not yet run by any process.

Pure ports of what a Storm worker does with tuples (groupings, the acker, the multilang
protocol's messages, the wire codec between workers) and the thin Twisted shell around them
(multilang child processes, the transport between workers).  A supervisor and a worker process
that put them together come next; until then ``pynimbus dev`` runs no topology itself.
"""

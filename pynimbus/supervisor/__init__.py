"""The Python supervisor's building blocks (issue 9), not yet run by any process.

:mod:`~pynimbus.supervisor.assignments` (pure: what this supervisor should run, and what to do
about the workers it finds), :mod:`~pynimbus.supervisor.registration` (its id and the
``SupervisorInfo`` it keeps alive in cluster state) and :mod:`~pynimbus.supervisor.code`
(downloading a topology's jar, code and conf from Nimbus and unpacking its resources).
"""

"""The Python supervisor (issue 9): :mod:`~pynimbus.supervisor.daemon` runs the blocks below
(``pynimbus supervisor``), with :mod:`~pynimbus.supervisor.worker_dirs` for the workers'
directories and its ``approved-workers``.

:mod:`~pynimbus.supervisor.assignments` (pure: what this supervisor should run, and what to do
about the workers it finds), :mod:`~pynimbus.supervisor.registration` (its id and the
``SupervisorInfo`` it keeps alive in cluster state) and :mod:`~pynimbus.supervisor.code`
(downloading a topology's jar, code and conf from Nimbus and unpacking its resources).
"""

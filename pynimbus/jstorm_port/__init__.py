"""Pure port of JStorm 2.2.1's default placement (``com.alibaba.jstorm.schedule.default_assign``).

``DefaultTopologyScheduler.assignTasks`` (:func:`.topology_scheduler.assign_tasks`) with
``DefaultTopologyAssignContext`` (:mod:`.default_assign_context`), ``WorkerScheduler``
(:mod:`.worker_scheduler`), ``TaskScheduler`` (:mod:`.task_scheduler`), ``TaskAssignContext`` and
the selectors (:mod:`.task_assign_context`), under upstream names in snake_case.  Values in,
values out: no I/O, no Twisted, no ZooKeeper.

:mod:`.storm_scheduler` runs it as mk-assignments' scheduler under ``pynimbus.scheduler:
jstorm`` (how Storm's rounds map onto JStorm's NEW, REBALANCE and MONITOR is said there);
:mod:`.topology_master` says when a topology has JStorm's ``__topology_master`` (it sets
``topology.master.single.worker``), which the Python worker runs as the receiver of the
topology's heartbeats (:mod:`pynimbus.worker.topology_master`, the cluster-state record);
:mod:`.case_json` is one placement problem as JSON, shared with the JStorm oracle of the tests.

Unit of placement.  JStorm places *tasks*, one per executor thread; Storm places *executors*
``[start end]``.  pynimbus maps one JStorm task onto one Storm executor, the task's id being the
executor's first task (for single-task executors ``[t t]``, the same id), so a JStorm worker ->
tasks placement is a Storm executor -> node+port assignment.  ``__acker`` and ``__topology_master`` are the system components
JStorm places last (the topology master first when it gets a worker of its own).

Java order.  Where JStorm takes the first of equal candidates, the candidates come from Java
``HashSet``/``HashMap``/``TreeMap`` values; :mod:`.java_collections` replays them on the project's
``java.util.HashMap`` model (:mod:`pynimbus.clojure_port.java_hash_map`), so ties fall as on the
JVM.  The inputs whose order JStorm takes from elsewhere (the ZooKeeper-read sets of a
supervisor's ports, an old assignment's workers and their tasks) are given in the order their
sets were filled (:mod:`.case_json`).

Deliberate differences:

- host names are equal when equal ignoring case; JStorm also calls two names equal when they
  resolve to one IP address (``NetWorkUtils.equals``), which a pure function cannot check;
- an unstopped task (alive on a lost supervisor) must be in a worker of the old assignment
  (``ValueError``); JStorm would carry a null worker on and fail later;
- under ``pynimbus.scheduler: jstorm``, a new topology has no old assignment (JStorm would
  read the last assignment of a topology of that name for ``use.old.assignment``), a rebalance
  is never a "reassign" (Storm's rebalance has no such option), and a topology without a
  ``__topology_master`` executor is not given a worker for one;
- a placement naming a supervisor that is not registered (a user-defined worker's ``nodeId``)
  is refused with the message JStorm only logs (``Node ... doesn't in the supervisor list``);
  JStorm writes that assignment anyway.  Under ``pynimbus.scheduler: jstorm`` a refused
  topology's message is filed among its errors (getTopologyInfo) and logged, once per change;
- where JStorm's code ends in a Java runtime exception (a null unboxed, an empty iterator, a
  division by zero), the port raises :class:`.java_collections.JavaRuntimeError` naming it.
"""

"""Pure port of JStorm 2.2.1's default placement (``com.alibaba.jstorm.schedule.default_assign``).

``DefaultTopologyScheduler.assignTasks`` (:func:`.topology_scheduler.assign_tasks`) with
``DefaultTopologyAssignContext`` (:mod:`.default_assign_context`), ``WorkerScheduler``
(:mod:`.worker_scheduler`), ``TaskScheduler`` (:mod:`.task_scheduler`), ``TaskAssignContext`` and
the selectors (:mod:`.task_assign_context`), under upstream names in snake_case.  Values in,
values out: no I/O, no Twisted, no ZooKeeper.

Unit of placement.  JStorm places *tasks*, one per executor thread; Storm places *executors*
``[start end]``.  pynimbus maps one JStorm task onto one Storm executor whose range is that one
task (``[t t]``), so a JStorm worker -> tasks placement is a Storm executor -> node+port
assignment with the same ids.  ``__acker`` and ``__topology_master`` are the system components
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
- where JStorm's code ends in a Java runtime exception (a null unboxed, an empty iterator, a
  division by zero), the port raises :class:`.java_collections.JavaRuntimeError` naming it.
"""

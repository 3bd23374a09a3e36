"""The worker's Trident room: a Trident program's components on the worker's executors.

``program`` imports and plans the program a topology names; ``transactional_state`` keeps
Trident's state under ``/transactional`` (read once, written in order in a thread);
``hosts`` runs the master batch coordinator on a spout executor, and the spout coordinators and
batch bolts on bolt executors.
"""

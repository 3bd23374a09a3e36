"""The Nimbus program: its daemon and what only it runs (the monitor's mk-assignments rounds,
blob replication between Nimbuses, pushing assignments to 2.x supervisors, the topology
store).  Its Thrift handlers are in ``pynimbus.handlers`` and its blob store in
``pynimbus.blobstore``."""

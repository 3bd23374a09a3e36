"""What every program shares that is neither Thrift nor cluster state: configuration and its
defaults, the host name, the local directory layout, ``LocalState``, the stored-topology codec,
the worker-transport secret and small process helpers."""

"""Pure ports of Storm's Nimbus logic (nimbus.clj, common.clj, the schedulers).

Functions of Thrift structs and dicts in, structs and dicts out; this package imports neither
Twisted nor kazoo and touches no disk, so every function is testable with literal data.
"""

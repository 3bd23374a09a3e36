"""The Thrift floor: the framed binary server, pre-encoded replies, Storm's exceptions as
Thrift replies, the blocking client and the code generator for ``storm.thrift``."""

"""The UI program: Storm's UI REST API (:mod:`.server`), computed from the leader Nimbus's
Thrift answers by the pure :mod:`pynimbus.clojure_port.ui_summaries`."""

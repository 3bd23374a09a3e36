"""The multilang host: Storm's ShellBolt/ShellSpout side of the multilang protocol (issue 9).

``serializers`` (pure) frames messages as Storm's JsonSerializer and pystorm's msgpack serializer
do; ``shell_msg`` (pure) turns a child's messages into executor actions and builds the messages
sent to it; ``topology_context`` (pure) builds the handshake's context; ``shell_process`` is the
Twisted side that runs one child per task.
"""

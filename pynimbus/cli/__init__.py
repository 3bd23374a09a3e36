"""The ``pynimbus`` command (main.py) and the one-process dev cluster (dev_cluster.py).

The door of the house: the only room that may import the programs (``pynimbus.nimbus``,
``pynimbus.supervisor``) to start them; nothing else imports this room.
"""

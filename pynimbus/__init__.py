"""pynimbus: a Storm-compatible Nimbus in Python."""

__version__ = "0.1.0"

# The Storm release whose behaviour pynimbus reports as its own version
# (NimbusSummary.version, SupervisorInfo.version of our supervisor).
STORM_VERSION = "1.2.4"

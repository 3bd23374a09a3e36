"""pynimbus: a Storm-compatible Nimbus in Python."""

__version__ = "0.1.0"

# The Storm release whose behaviour pynimbus reports as its own version
# (NimbusSummary.version, SupervisorInfo.version of our supervisor).
STORM_VERSION = "1.2.4"
# The Storm release pynimbus follows in its 2.x compatibility mode.
STORM_VERSION_2X = "2.8.8"

"""What every component of a Python Trident plan runs: ``ShellComponent(TRIDENT_COMMAND,
"module:attr")``, the program each worker imports and plans again (pure; nothing imported, so
a worker can tell a Trident topology cheaply)."""

TRIDENT_COMMAND = "pynimbus-trident"

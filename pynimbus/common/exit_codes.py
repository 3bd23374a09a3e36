"""Process exit codes that one program sets and another reads."""

# A worker whose component died exits with this code (ShellBolt.die: Runtime.halt(11)), after
# reporting the component's error itself: its supervisor does not report it again.
EXIT_CODE_CHILD_DIED = 11

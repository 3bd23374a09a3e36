"""Text helpers for messages and logs."""


def one_line(text, width=None):
    """``text``'s first line (a traceback's is its message), cut to ``width``."""
    lines = [line for line in (text or "").splitlines() if line.strip()]
    line = lines[0].strip() if lines else ""
    if width is not None and len(line) > width:
        line = line[:max(0, width - 3)] + "..."
    return line

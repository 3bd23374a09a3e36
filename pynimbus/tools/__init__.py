"""The client-side programs: the Storm command shims (``pynimbus jar``, ``list``, ``kill``,
...), reading a streamparse project, building topology jars and printing a topology's status."""

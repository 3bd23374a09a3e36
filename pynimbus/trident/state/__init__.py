"""Trident's states: the updaters and query functions the API puts on them, and the map states
(pure)."""

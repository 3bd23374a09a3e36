# Cython declarations for subtopology.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise.  Nothing is declared: the
# module compiles as it is written (its objects are copied per task and stay plain Python
# classes).

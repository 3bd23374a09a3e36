# Declares nothing: its presence alone has setup.py compile inprocess.py (when it can; see
# pynimbus.compiled), its classes staying ordinary Python classes.

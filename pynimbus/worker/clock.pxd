# Declares nothing: its presence alone has setup.py compile clock.py (when it can; see
# pynimbus.common.compiled).

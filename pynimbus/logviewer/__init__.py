"""``pynimbus logviewer``: Storm's logviewer daemon (1.2.4 ``daemon/logviewer.clj``) without a
JVM.  The pure parts (file names and their checks, paging, search, listing, authorization,
cleanup selection) are modules of their own; :mod:`pynimbus.logviewer.server` is the Twisted
web shell, reading files in threads."""

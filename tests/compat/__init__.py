"""Black-box wire tests: a real ``pynimbus dev`` process driven by clients we did not write."""

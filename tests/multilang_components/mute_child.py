"""A multilang child that never answers the handshake: it reads the setup message's first line,
then sleeps (two minutes at most), as a component stuck before its first answer would."""

import sys
import time

sys.stdin.readline()
time.sleep(120)

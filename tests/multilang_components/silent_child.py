"""A child that answers the JSON handshake, then never says anything again (a hung child).

With MULTILANG_TEST_NO_PID_FILE set it answers without writing its pid file.
"""

import json
import os
import sys


def read_message():
    lines = []
    for line in sys.stdin:
        if line == "end\n":
            return json.loads("".join(lines))
        lines.append(line)
    sys.exit(0)


setup = read_message()
if not os.environ.get("MULTILANG_TEST_NO_PID_FILE"):
    open(os.path.join(setup["pidDir"], str(os.getpid())), "w").close()
sys.stdout.write(json.dumps({"pid": os.getpid()}) + "\nend\n")
sys.stdout.flush()
for _ in sys.stdin:
    pass

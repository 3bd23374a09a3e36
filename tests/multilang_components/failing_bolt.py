"""A pystorm bolt that raises on its first tuple: pystorm reports the error, fails the tuple
and exits, which the host must report."""

from pystorm import Bolt


class FailingBolt(Bolt):
    def process(self, tup):
        raise RuntimeError("cannot handle %r" % (tup.values,))


if __name__ == "__main__":
    FailingBolt().run()

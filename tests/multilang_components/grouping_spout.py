"""A pystorm spout for the worker grouping test: emits 0..COUNT-1 once on ``default``, each
followed by the same number on the direct stream ``direct`` to the highest task of the
``direct`` component."""


from pystorm import Spout

COUNT = 20


class GroupingSpout(Spout):
    def initialize(self, storm_conf, context):
        self.next_n = 0
        self.direct_task = max(int(task) for task, component
                               in context["task->component"].items() if component == "direct")

    def next_tuple(self):
        if self.next_n < COUNT:
            self.emit([self.next_n])
            self.emit([self.next_n], stream="direct", direct_task=self.direct_task)
            self.next_n += 1


if __name__ == "__main__":
    GroupingSpout().run()

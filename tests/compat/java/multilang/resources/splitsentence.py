"""Split each sentence tuple into one tuple per word (the WordCountTopology's "split" bolt).

Runs under Storm's ShellBolt with Storm's own ``storm.py`` next to it (copied into the jar's
``resources/`` at build time from org.apache.storm:multilang-python).
"""

import storm


class SplitSentence(storm.BasicBolt):
    def process(self, tup):
        for word in tup.values[0].split():
            storm.emit([word])


SplitSentence().run()

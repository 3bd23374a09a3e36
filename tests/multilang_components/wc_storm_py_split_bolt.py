"""The word count's split bolt written against Storm's own ``storm.py`` (shipped beside it in the
jar's resources/, never committed): a ``storm.BasicBolt``, so each word is anchored to the
sentence and the sentence acked after ``process`` returns; ``storm.emit`` waits for the task
ids the worker writes back."""

import storm


class SplitSentenceBolt(storm.BasicBolt):
    def process(self, tup):
        for word in tup.values[0].split():
            storm.emit([word])


if __name__ == "__main__":
    SplitSentenceBolt().run()

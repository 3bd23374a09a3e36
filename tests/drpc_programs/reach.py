"""Storm-starter's ReachTopology in Python, built by
:class:`pynimbus.drpc.LinearDRPCTopologyBuilder` for the function "reach": the tweeters of a
URL, their followers, the distinct followers counted in parts (a batch bolt per request), then
summed (another).  The data is storm-starter's."""

from streamparse import Bolt

from pynimbus.drpc import BaseBatchBolt, LinearDRPCTopologyBuilder

TWEETERS_DB = {
    "foo.com/blog/1": ["sally", "bob", "tim", "george", "nathan"],
    "engineering.twitter.com/blog/5": ["adam", "david", "sally", "nathan"],
    "tech.backtype.com/blog/123": ["tim", "mike", "john"],
}

FOLLOWERS_DB = {
    "sally": ["bob", "tim", "alice", "adam", "jim", "chris", "jai"],
    "bob": ["sally", "nathan", "jim", "mary", "david", "vivian"],
    "tim": ["alex"],
    "nathan": ["sally", "bob", "adam", "harry", "chris", "vivian", "emily", "jordan"],
    "adam": ["david", "carissa"],
    "mike": ["john", "bob"],
    "john": ["alice", "nathan", "jim", "mike", "bob"],
}


class GetTweeters(Bolt):
    outputs = ["id", "tweeter"]

    def process(self, tup):
        request_id, url = tup.values[0], tup.values[1]
        for tweeter in TWEETERS_DB.get(url, ()):
            self.emit([request_id, tweeter])


class GetFollowers(Bolt):
    outputs = ["id", "follower"]

    def process(self, tup):
        request_id, tweeter = tup.values[0], tup.values[1]
        for follower in FOLLOWERS_DB.get(tweeter, ()):
            self.emit([request_id, follower])


class PartialUniquer(BaseBatchBolt):
    outputs = ["id", "partial_count"]  # storm-starter's "partial-count" is no identifier

    def prepare(self, conf, context, collector, request_id):
        self.collector = collector
        self.request_id = request_id
        self.followers = set()

    def execute(self, tup):
        self.followers.add(tup.values[1])

    def finish_batch(self):
        self.collector.emit([self.request_id, len(self.followers)])


class CountAggregator(BaseBatchBolt):
    outputs = ["id", "reach"]

    def prepare(self, conf, context, collector, request_id):
        self.collector = collector
        self.request_id = request_id
        self.count = 0

    def execute(self, tup):
        self.count += tup.values[1]

    def finish_batch(self):
        self.collector.emit([self.request_id, self.count])


def construct():
    builder = LinearDRPCTopologyBuilder("reach")
    builder.add_bolt(GetTweeters, par=4)
    builder.add_bolt(GetFollowers, par=12).shuffle_grouping()
    builder.add_bolt(PartialUniquer, par=6).fields_grouping(["id", "follower"])
    builder.add_bolt(CountAggregator, par=3).fields_grouping(["id"])
    return builder


ReachTopology = construct().create_topology("ReachTopology")

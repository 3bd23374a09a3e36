package pynimbus.topologies;

import java.util.Arrays;
import java.util.List;

import org.apache.storm.Config;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.BaseAggregator;
import org.apache.storm.trident.operation.BaseFunction;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seed example: per batch, for each user, the number of scores and their sum, printed.
 * {@code newStream("spout1", spout).groupBy(user).aggregate([user, score], UserCountAggregator,
 * [val]).toStream().parallelismHint(1).each([val], PrintEachFunc, [])}.
 */
public class UserScoreTopology {
    /** Per group (user): how many tuples and the sum of their scores, emitted as "val". */
    public static class UserCountAggregator extends BaseAggregator<UserCountAggregator.State> {
        public static class State {
            String user;
            long count;
            long total;
        }

        @Override
        public State init(Object batchId, TridentCollector collector) {
            return new State();
        }

        @Override
        public void aggregate(State state, TridentTuple tuple, TridentCollector collector) {
            state.user = tuple.getString(0);
            state.count += 1;
            state.total += ((Number) tuple.getValue(1)).longValue();
        }

        @Override
        public void complete(State state, TridentCollector collector) {
            collector.emit(new Values(state.user + " count=" + state.count + " total=" + state.total));
        }
    }

    /**
     * Prints each tuple's values to the worker's log (worker.log, where the real-worker tests
     * read them: {@code PrintEachFunc: [<user> count=<n> total=<sum>]}); emits nothing.
     */
    public static class PrintEachFunc extends BaseFunction {
        private static final Logger LOG = LoggerFactory.getLogger(PrintEachFunc.class);

        @Override
        public void execute(TridentTuple tuple, TridentCollector collector) {
            LOG.info("PrintEachFunc: {}", tuple.getValues());
        }
    }

    static List<List<Object>> scoreRows() {
        return Arrays.asList(
            Arrays.<Object>asList("alice", 3),
            Arrays.<Object>asList("bob", 5),
            Arrays.<Object>asList("alice", 7),
            Arrays.<Object>asList("carol", 1),
            Arrays.<Object>asList("bob", 2));
    }

    public static void main(String[] args) throws Exception {
        BatchSpout spout = new BatchSpout(new Fields("user", "score"), scoreRows(), 4);
        TridentTopology topology = new TridentTopology();
        topology.newStream("spout1", spout)
                .groupBy(new Fields("user"))
                .aggregate(new Fields("user", "score"), new UserCountAggregator(), new Fields("val"))
                .toStream()
                .parallelismHint(1)
                .each(new Fields("val"), new PrintEachFunc(), new Fields());
        Config conf = new Config();
        conf.setNumWorkers(1);
        Submit.submit(args, topology.build(), conf);
    }
}

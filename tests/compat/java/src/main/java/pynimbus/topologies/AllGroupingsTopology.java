package pynimbus.topologies;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.grouping.CustomStreamGrouping;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.task.WorkerTopologyContext;
import org.apache.storm.topology.BasicOutputCollector;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseBasicBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;

/**
 * One spout, one bolt per grouping TopologyBuilder offers: shuffle, fields, all, global, none,
 * direct (on the spout's direct stream), local-or-shuffle, partial-key and a custom grouping;
 * every bolt also feeds "sink" by shuffle.
 */
public class AllGroupingsTopology {
    static final String DIRECT_STREAM = "direct";

    /** Emits (word, n) on the default stream and (word) directly to the "direct" bolt's tasks. */
    public static class WordsSpout extends BaseRichSpout {
        private SpoutOutputCollector collector;
        private List<Integer> directTasks;
        private long n;

        @Override
        @SuppressWarnings("rawtypes")
        public void open(Map conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            this.directTasks = context.getComponentTasks("direct");
        }

        @Override
        public void nextTuple() {
            Utils.sleep(100);
            String word = SentenceSpout.SENTENCES[(int) (n % SentenceSpout.SENTENCES.length)].split(" ")[0];
            collector.emit(new Values(word, n));
            if (!directTasks.isEmpty()) {
                int task = directTasks.get((int) (n % directTasks.size()));
                collector.emitDirect(task, DIRECT_STREAM, new Values(word));
            }
            n++;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word", "n"));
            declarer.declareStream(DIRECT_STREAM, true, new Fields("word"));
        }
    }

    /** Passes the first field on. */
    public static class PassBolt extends BaseBasicBolt {
        @Override
        public void execute(Tuple tuple, BasicOutputCollector collector) {
            collector.emit(new Values(tuple.getValue(0)));
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("word"));
        }
    }

    /** Chooses the target task by the word's length. */
    public static class WordLengthGrouping implements CustomStreamGrouping {
        private List<Integer> targets;

        @Override
        public void prepare(WorkerTopologyContext context, GlobalStreamId stream, List<Integer> targetTasks) {
            this.targets = targetTasks;
        }

        @Override
        public List<Integer> chooseTasks(int taskId, List<Object> values) {
            int length = String.valueOf(values.get(0)).length();
            return Collections.singletonList(targets.get(length % targets.size()));
        }
    }

    public static void main(String[] args) throws Exception {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("words", new WordsSpout(), 2);
        builder.setBolt("shuffle", new PassBolt(), 2).shuffleGrouping("words");
        builder.setBolt("fields", new PassBolt(), 2).fieldsGrouping("words", new Fields("word"));
        builder.setBolt("all", new PassBolt(), 2).allGrouping("words");
        builder.setBolt("global", new PassBolt(), 1).globalGrouping("words");
        builder.setBolt("none", new PassBolt(), 1).noneGrouping("words");
        builder.setBolt("direct", new PassBolt(), 2).directGrouping("words", DIRECT_STREAM);
        builder.setBolt("local-or-shuffle", new PassBolt(), 2).localOrShuffleGrouping("words");
        builder.setBolt("partial-key", new PassBolt(), 2).partialKeyGrouping("words", new Fields("word"));
        builder.setBolt("custom", new PassBolt(), 2).customGrouping("words", new WordLengthGrouping());
        builder.setBolt("sink", new PassBolt(), 1)
                .shuffleGrouping("shuffle").shuffleGrouping("fields").shuffleGrouping("all")
                .shuffleGrouping("global").shuffleGrouping("none").shuffleGrouping("direct")
                .shuffleGrouping("local-or-shuffle").shuffleGrouping("partial-key")
                .shuffleGrouping("custom");
        Config conf = new Config();
        conf.setNumWorkers(2);
        Submit.submit(args, builder.createTopology(), conf);
    }
}

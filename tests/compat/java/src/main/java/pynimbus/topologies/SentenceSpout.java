package pynimbus.topologies;

import java.util.Map;

import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;

/** Emits a fixed list of sentences in a loop, one every 100 ms, on the field {@code field}. */
public class SentenceSpout extends BaseRichSpout {
    static final String[] SENTENCES = {
        "nimbus assigns executors to worker slots",
        "supervisors download the topology jar",
        "spouts emit tuples and bolts process them",
        "storm keeps its state in zookeeper",
        "tuples flow along the stream groupings",
    };

    private final String field;
    private SpoutOutputCollector collector;
    private int next;

    public SentenceSpout(String field) {
        this.field = field;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public void open(Map conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
    }

    @Override
    public void nextTuple() {
        Utils.sleep(100);
        String sentence = SENTENCES[next];
        next = (next + 1) % SENTENCES.length;
        if ("word".equals(field)) {
            sentence = sentence.split(" ")[0];
        }
        collector.emit(new Values(sentence));
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declare(new Fields(field));
    }
}

package pynimbus.topologies;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.storm.Config;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.BaseFunction;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;

/** Trident: sentences -> split -> groupBy(word) -> persistentAggregate(Count) in memory. */
public class TridentWordCount {
    public static class Split extends BaseFunction {
        @Override
        public void execute(TridentTuple tuple, TridentCollector collector) {
            for (String word : tuple.getString(0).split(" ")) {
                collector.emit(new Values(word));
            }
        }
    }

    static List<List<Object>> sentenceRows() {
        List<List<Object>> rows = new ArrayList<List<Object>>();
        for (String sentence : SentenceSpout.SENTENCES) {
            rows.add(Collections.<Object>singletonList(sentence));
        }
        return rows;
    }

    public static void main(String[] args) throws Exception {
        TridentTopology topology = new TridentTopology();
        topology.newStream("sentences", new BatchSpout(new Fields("sentence"), sentenceRows(), 3))
                .parallelismHint(1)
                .each(new Fields("sentence"), new Split(), new Fields("word"))
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"))
                .parallelismHint(2);
        Config conf = new Config();
        conf.setNumWorkers(2);
        Submit.submit(args, topology.build(), conf);
    }
}

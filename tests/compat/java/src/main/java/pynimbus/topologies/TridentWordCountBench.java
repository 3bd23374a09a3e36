package pynimbus.topologies;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.testing.FixedBatchSpout;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.tuple.Fields;

/**
 * The Trident word count of bench/bench_trident_wordcount.py (its Java side): a cycling
 * {@code FixedBatchSpout} over {@code corpus rows} sentences (SentenceSpout's, repeated in
 * order), split, groupBy(word), persistentAggregate(Count) into a MemoryMapState.  The Python
 * side is bench/trident_wordcount_program.py, the same program.
 *
 * <p>Arguments: {@code <topology name> <num workers> <batch size> <parallelism> <corpus rows>};
 * the parallelism is the persistent aggregate's (the spout and the split run at 1, as
 * FixedBatchSpout allows no more).  Other settings come with {@code storm jar -c}.
 */
public class TridentWordCountBench {
    static List<Object>[] corpus(int rows) {
        List<List<Object>> out = new ArrayList<List<Object>>();
        for (int i = 0; i < rows; i++) {
            out.add(Collections.<Object>singletonList(
                    SentenceSpout.SENTENCES[i % SentenceSpout.SENTENCES.length]));
        }
        @SuppressWarnings("unchecked")
        List<Object>[] array = out.toArray(new List[0]);
        return array;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException(
                    "arguments: <topology name> <num workers> <batch size> <parallelism> "
                    + "<corpus rows>");
        }
        int batchSize = Integer.parseInt(args[2]);
        int parallelism = Integer.parseInt(args[3]);
        FixedBatchSpout spout = new FixedBatchSpout(new Fields("sentence"), batchSize,
                corpus(Integer.parseInt(args[4])));
        spout.setCycle(true);
        TridentTopology topology = new TridentTopology();
        topology.newStream("spout1", spout)
                .each(new Fields("sentence"), new TridentWordCount.Split(), new Fields("word"))
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"))
                .parallelismHint(parallelism);
        Config conf = new Config();
        conf.setNumWorkers(Integer.parseInt(args[1]));
        StormSubmitter.submitTopology(args[0], conf, topology.build());
    }
}

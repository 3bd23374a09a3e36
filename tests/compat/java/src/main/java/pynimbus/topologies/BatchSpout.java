package pynimbus.topologies;

import java.util.List;
import java.util.Map;

import org.apache.storm.task.TopologyContext;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.spout.IBatchSpout;
import org.apache.storm.tuple.Fields;

/** A Trident batch spout cycling through fixed rows, {@code batchSize} rows per batch. */
public class BatchSpout implements IBatchSpout {
    private final Fields fields;
    private final List<List<Object>> rows;
    private final int batchSize;
    private int next;

    public BatchSpout(Fields fields, List<List<Object>> rows, int batchSize) {
        this.fields = fields;
        this.rows = rows;
        this.batchSize = batchSize;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public void open(Map conf, TopologyContext context) {
    }

    @Override
    public void emitBatch(long batchId, TridentCollector collector) {
        for (int i = 0; i < batchSize; i++) {
            collector.emit(rows.get(next));
            next = (next + 1) % rows.size();
        }
    }

    @Override
    public void ack(long batchId) {
    }

    @Override
    public void close() {
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return null;
    }

    @Override
    public Fields getOutputFields() {
        return fields;
    }
}

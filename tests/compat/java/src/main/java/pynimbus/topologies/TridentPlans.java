package pynimbus.topologies;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.SpoutSpec;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.StreamInfo;
import org.apache.storm.trident.Stream;
import org.apache.storm.trident.TridentState;
import org.apache.storm.trident.TridentTopology;
import org.apache.storm.trident.operation.Consumer;
import org.apache.storm.trident.operation.FlatMapFunction;
import org.apache.storm.trident.operation.MapFunction;
import org.apache.storm.trident.operation.ReducerAggregator;
import org.apache.storm.trident.operation.TridentCollector;
import org.apache.storm.trident.operation.builtin.Count;
import org.apache.storm.trident.operation.builtin.FilterNull;
import org.apache.storm.trident.operation.builtin.FirstN;
import org.apache.storm.trident.operation.builtin.MapGet;
import org.apache.storm.trident.operation.builtin.Sum;
import org.apache.storm.trident.state.BaseStateUpdater;
import org.apache.storm.trident.state.map.MapState;
import org.apache.storm.trident.testing.FixedBatchSpout;
import org.apache.storm.trident.testing.MemoryMapState;
import org.apache.storm.trident.testing.Split;
import org.apache.storm.trident.testing.StringLength;
import org.apache.storm.trident.testing.TrueFilter;
import org.apache.storm.trident.tuple.TridentTuple;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;

import pynimbus.topologies.UserScoreTopology.PrintEachFunc;
import pynimbus.topologies.UserScoreTopology.UserCountAggregator;

/**
 * Golden data of Trident's planner: builds each scenario of the Trident plan goldens with
 * {@code TridentTopology.build()} and writes what the resulting StormTopology holds (component
 * ids, streams, inputs and groupings, parallelism hints, component confs, and the coordination
 * state of the deserialized component objects, read by reflection) as
 * {@code <outdir>/<scenario>.json}, keys sorted.  Used by tests/compat/trident_plans.py.
 *
 * <p>Usage: {@code TridentPlans <outdir>}.
 */
public class TridentPlans {

    // ---- helper operations of the scenarios ----

    /** MapFunction: (word, n, len) -> (WORD, n, len). */
    public static class UpperCaseMap implements MapFunction {
        @Override
        public Values execute(TridentTuple input) {
            return new Values(input.getString(0).toUpperCase(), input.getValue(1), input.getValue(2));
        }
    }

    /** FlatMapFunction: the input values twice. */
    public static class DuplicateFlatMap implements FlatMapFunction {
        @Override
        public Iterable<Values> execute(TridentTuple input) {
            List<Values> out = new ArrayList<Values>();
            out.add(new Values(input.getValues().toArray()));
            out.add(new Values(input.getValues().toArray()));
            return out;
        }
    }

    /** Consumer: prints the tuple. */
    public static class PrintPeek implements Consumer {
        @Override
        public void accept(TridentTuple input) {
            System.out.println("PrintPeek: " + input);
        }
    }

    /** ReducerAggregator: the sum of the first input field, as a long. */
    public static class SumReducer implements ReducerAggregator<Long> {
        @Override
        public Long init() {
            return 0L;
        }

        @Override
        public Long reduce(Long curr, TridentTuple tuple) {
            return curr + ((Number) tuple.getValue(0)).longValue();
        }
    }

    /** State updater that changes nothing and emits each tuple's word. */
    @SuppressWarnings("rawtypes")
    public static class NoopUpdater extends BaseStateUpdater<MapState> {
        @Override
        public void updateState(MapState state, List<TridentTuple> tuples, TridentCollector collector) {
            for (TridentTuple t : tuples) {
                collector.emit(new Values(t.getValue(0)));
            }
        }
    }

    // ---- data (the values do not matter for planning) ----

    static List<List<Object>> wordRows() {
        return Arrays.asList(
            Arrays.<Object>asList("the", 1),
            Arrays.<Object>asList("cow", 2),
            Arrays.<Object>asList("the", 3));
    }

    static List<List<Object>> oneFieldRows() {
        return Arrays.asList(
            Collections.<Object>singletonList("the cow jumped over the moon"),
            Collections.<Object>singletonList("the man went to the store"),
            Collections.<Object>singletonList("four score and seven years ago"));
    }

    @SuppressWarnings("unchecked")
    static FixedBatchSpout fixed(Fields fields, int maxBatchSize, List<List<Object>> data) {
        return new FixedBatchSpout(fields, maxBatchSize, data.toArray(new List[0]));
    }

    // ---- the scenarios ----

    interface Scenario {
        void define(TridentTopology topology);
    }

    static Map<String, Scenario> scenarios() {
        Map<String, Scenario> s = new LinkedHashMap<String, Scenario>();

        s.put("seed_example", topology -> {
            topology.newStream("spout1", fixed(new Fields("user", "score"), 3, UserScoreTopology.scoreRows()))
                .groupBy(new Fields("user"))
                .aggregate(new Fields("user", "score"), new UserCountAggregator(), new Fields("val"))
                .toStream().parallelismHint(1)
                .each(new Fields("val"), new PrintEachFunc(), new Fields());
        });

        s.put("seed_example_uncapped", topology -> {
            topology.newStream("spout1", new BatchSpout(new Fields("user", "score"), UserScoreTopology.scoreRows(), 3))
                .parallelismHint(3)
                .groupBy(new Fields("user"))
                .aggregate(new Fields("user", "score"), new UserCountAggregator(), new Fields("val"))
                .toStream().parallelismHint(2)
                .each(new Fields("val"), new PrintEachFunc(), new Fields());
        });

        s.put("word_count", topology -> {
            FixedBatchSpout spout = fixed(new Fields("sentence"), 3, oneFieldRows());
            spout.setCycle(true);
            topology.newStream("spout1", spout).parallelismHint(16)
                .each(new Fields("sentence"), new Split(), new Fields("word"))
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"))
                .parallelismHint(16);
        });

        s.put("word_count_uncapped", topology -> {
            topology.newStream("spout1", new BatchSpout(new Fields("sentence"), oneFieldRows(), 3)).parallelismHint(16)
                .each(new Fields("sentence"), new Split(), new Fields("word"))
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"))
                .parallelismHint(16);
        });

        s.put("join", topology -> {
            Stream a = topology.newStream("a", new BatchSpout(new Fields("key", "x"), wordRows(), 2));
            Stream b = topology.newStream("b", new BatchSpout(new Fields("key", "y"), wordRows(), 2));
            topology.join(a, new Fields("key"), b, new Fields("key"), new Fields("key", "x", "y"))
                .each(new Fields("key", "x", "y"), new PrintEachFunc(), new Fields());
        });

        s.put("merge", topology -> {
            Stream a = topology.newStream("a", new BatchSpout(new Fields("key", "x"), wordRows(), 2));
            Stream b = topology.newStream("b", new BatchSpout(new Fields("key", "y"), wordRows(), 2));
            topology.merge(a, b).each(new Fields("key"), new PrintEachFunc(), new Fields());
        });

        s.put("named", topology -> {
            topology.newStream("spout1", new BatchSpout(new Fields("sentence"), oneFieldRows(), 3))
                .name("split-stage")
                .each(new Fields("sentence"), new Split(), new Fields("word"))
                .name("count-stage")
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"));
        });

        s.put("state_query_beside_persist", topology -> {
            TridentState counts = topology.newStream("words", new BatchSpout(new Fields("word"), oneFieldRows(), 3))
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"));
            topology.newStream("queries", new BatchSpout(new Fields("word"), oneFieldRows(), 3))
                .stateQuery(counts, new Fields("word"), new MapGet(), new Fields("count"))
                .each(new Fields("word", "count"), new PrintEachFunc(), new Fields());
        });

        s.put("two_batch_groups", topology -> {
            topology.newStream("s1", new BatchSpout(new Fields("a"), oneFieldRows(), 2))
                .each(new Fields("a"), new PrintEachFunc(), new Fields());
            topology.newStream("s2", fixed(new Fields("b"), 2, oneFieldRows()))
                .each(new Fields("b"), new PrintEachFunc(), new Fields());
        });

        s.put("operations", topology -> {
            topology.newStream("ops", new BatchSpout(new Fields("word", "n"), wordRows(), 2)).parallelismHint(2)
                .each(new Fields("word"), new StringLength(), new Fields("len"))
                .filter(new Fields("word"), new TrueFilter())
                .map(new UpperCaseMap())
                .flatMap(new DuplicateFlatMap())
                .peek(new PrintPeek())
                .project(new Fields("word", "n"))
                .shuffle()
                .each(new Fields("word"), new StringLength(), new Fields("len2")).parallelismHint(3)
                .partitionBy(new Fields("word"))
                .partitionAggregate(new Fields("word"), new Count(), new Fields("c"))
                .global()
                .each(new Fields("c"), new PrintEachFunc(), new Fields())
                .batchGlobal()
                .each(new Fields("c"), new PrintEachFunc(), new Fields())
                .broadcast()
                .each(new Fields("c"), new PrintEachFunc(), new Fields());
        });

        s.put("aggregations", topology -> {
            Stream st = topology.newStream("agg", new BatchSpout(new Fields("word", "n"), wordRows(), 2));
            st.aggregate(new Fields("n"), new Sum(), new Fields("sum"))
                .each(new Fields("sum"), new PrintEachFunc(), new Fields());
            st.aggregate(new Fields("n"), new SumReducer(), new Fields("rsum"))
                .each(new Fields("rsum"), new PrintEachFunc(), new Fields());
            st.groupBy(new Fields("word")).chainedAgg()
                .aggregate(new Fields("n"), new Sum(), new Fields("sum"))
                .aggregate(new Count(), new Fields("count"))
                .chainEnd()
                .each(new Fields("word", "sum", "count"), new PrintEachFunc(), new Fields());
            st.chainedAgg()
                .partitionAggregate(new Count(), new Fields("c"))
                .partitionAggregate(new Fields("n"), new Sum(), new Fields("s"))
                .chainEnd()
                .each(new Fields("c", "s"), new PrintEachFunc(), new Fields());
            st.applyAssembly(new FirstN(2, "n"))
                .each(new Fields("word", "n"), new PrintEachFunc(), new Fields());
        });

        s.put("persist_and_values", topology -> {
            TridentState state = topology.newStream("p", new BatchSpout(new Fields("word"), oneFieldRows(), 3))
                .partitionPersist(new MemoryMapState.Factory(), new Fields("word"), new NoopUpdater(),
                                  new Fields("word"));
            state.newValuesStream().each(new Fields("word"), new PrintEachFunc(), new Fields());
            topology.newStream("q", new BatchSpout(new Fields("word"), oneFieldRows(), 3))
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"))
                .newValuesStream()
                .each(new Fields("word", "count"), new PrintEachFunc(), new Fields());
        });

        s.put("drpc_word_count", topology -> {
            FixedBatchSpout spout = fixed(new Fields("sentence"), 3, oneFieldRows());
            spout.setCycle(true);
            TridentState counts = topology.newStream("spout1", spout).parallelismHint(16)
                .each(new Fields("sentence"), new Split(), new Fields("word"))
                .groupBy(new Fields("word"))
                .persistentAggregate(new MemoryMapState.Factory(), new Count(), new Fields("count"))
                .parallelismHint(16);
            topology.newDRPCStream("words")
                .each(new Fields("args"), new Split(), new Fields("word"))
                .groupBy(new Fields("word"))
                .stateQuery(counts, new Fields("word"), new MapGet(), new Fields("count"))
                .each(new Fields("count"), new FilterNull())
                .aggregate(new Fields("count"), new Sum(), new Fields("sum"));
        });

        s.put("drpc_streams", topology -> {
            topology.newDRPCStream("lengths")
                .each(new Fields("args"), new StringLength(), new Fields("len"))
                .project(new Fields("len"));
            topology.newDRPCStream("counts").parallelismHint(3)
                .each(new Fields("args"), new Split(), new Fields("word"))
                .shuffle()
                .groupBy(new Fields("word"))
                .aggregate(new Count(), new Fields("count")).parallelismHint(2);
            topology.newDRPCStream("same")
                .name("same-stage")
                .each(new Fields("args"), new TrueFilter());
        });

        return s;
    }

    // ---- describing a StormTopology ----

    static Object field(Object obj, String name) throws Exception {
        Class<?> c = obj.getClass();
        while (c != null) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(obj);
            } catch (NoSuchFieldException e) {
                c = c.getSuperclass();
            }
        }
        throw new NoSuchFieldException(obj.getClass().getName() + "." + name);
    }

    /**
     * A JSON text parsed with the json-simple Storm bundles: shaded in storm-core 1.x, plain in
     * storm-client 2.x (looked up at run time so the module compiles against both).
     */
    static Object parseJson(String text) throws Exception {
        Class<?> jsonValue;
        try {
            jsonValue = Class.forName("org.apache.storm.shade.org.json.simple.JSONValue");
        } catch (ClassNotFoundException e) {
            jsonValue = Class.forName("org.json.simple.JSONValue");
        }
        return jsonValue.getMethod("parseWithException", String.class).invoke(null, text);
    }

    static String className(Object obj) {
        return obj == null ? null : obj.getClass().getName();
    }

    static String streamId(GlobalStreamId id) {
        return id == null ? null : id.get_componentId() + ":" + id.get_streamId();
    }

    static Object grouping(Grouping g) throws Exception {
        Map<String, Object> out = new TreeMap<String, Object>();
        switch (g.getSetField()) {
            case FIELDS:
                out.put("fields", new ArrayList<Object>(g.get_fields()));
                break;
            case SHUFFLE:
                out.put("shuffle", true);
                break;
            case ALL:
                out.put("all", true);
                break;
            case NONE:
                out.put("none", true);
                break;
            case DIRECT:
                out.put("direct", true);
                break;
            case LOCAL_OR_SHUFFLE:
                out.put("local_or_shuffle", true);
                break;
            case CUSTOM_OBJECT:
                out.put("custom_object", g.get_custom_object().get_full_class_name());
                break;
            case CUSTOM_SERIALIZED:
                Object csg = Utils.javaDeserialize(g.get_custom_serialized(), Object.class);
                out.put("custom_serialized", className(csg));
                if (csg instanceof org.apache.storm.trident.partition.IndexHashGrouping) {
                    out.put("index", field(csg, "_index"));
                }
                break;
            default:
                throw new IllegalStateException("unknown grouping " + g);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> component(ComponentObject co, ComponentCommon common) throws Exception {
        Map<String, Object> out = new TreeMap<String, Object>();
        out.put("parallelism_hint", common.is_set_parallelism_hint() ? common.get_parallelism_hint() : null);
        out.put("json_conf", common.is_set_json_conf() ? parseJson(common.get_json_conf()) : null);

        Map<String, Object> streams = new TreeMap<String, Object>();
        for (Map.Entry<String, StreamInfo> e : common.get_streams().entrySet()) {
            Map<String, Object> info = new TreeMap<String, Object>();
            info.put("fields", new ArrayList<Object>(e.getValue().get_output_fields()));
            info.put("direct", e.getValue().is_direct());
            streams.put(e.getKey(), info);
        }
        out.put("streams", streams);

        TreeMap<String, Object> inputs = new TreeMap<String, Object>();
        for (Map.Entry<GlobalStreamId, Grouping> e : common.get_inputs().entrySet()) {
            Map<String, Object> input = new TreeMap<String, Object>();
            input.put("component", e.getKey().get_componentId());
            input.put("stream", e.getKey().get_streamId());
            input.put("grouping", grouping(e.getValue()));
            // (component, stream) order: NUL cannot occur in either, so it sorts pairs correctly
            inputs.put(e.getKey().get_componentId() + "\u0000" + e.getKey().get_streamId(), input);
        }
        out.put("inputs", new ArrayList<Object>(inputs.values()));

        if (co.getSetField() != ComponentObject._Fields.SERIALIZED_JAVA) {
            throw new IllegalStateException("not a serialized Java component: " + co);
        }
        Object obj = Utils.javaDeserialize(co.get_serialized_java(), Object.class);
        out.put("object", className(obj));
        Object wrapped = null;
        if (obj instanceof org.apache.storm.trident.topology.TridentBoltExecutor
                || obj instanceof org.apache.storm.topology.BasicBoltExecutor) {
            wrapped = field(obj, "_bolt");
        }
        out.put("wrapped", className(wrapped));

        Object coordination = null;
        if (obj instanceof org.apache.storm.trident.topology.TridentBoltExecutor) {
            Map<String, Object> coord = new TreeMap<String, Object>();
            Map<String, Object> batchGroups = new TreeMap<String, Object>();
            for (Map.Entry<GlobalStreamId, String> e
                    : ((Map<GlobalStreamId, String>) field(obj, "_batchGroupIds")).entrySet()) {
                batchGroups.put(streamId(e.getKey()), e.getValue());
            }
            coord.put("batch_groups", batchGroups);
            Map<String, Object> specs = new TreeMap<String, Object>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) field(obj, "_coordSpecs")).entrySet()) {
                Map<String, Object> spec = new TreeMap<String, Object>();
                Map<String, Object> coords = new TreeMap<String, Object>();
                for (Map.Entry<String, Object> c : ((Map<String, Object>) field(e.getValue(), "coords")).entrySet()) {
                    Map<String, Object> ct = new TreeMap<String, Object>();
                    ct.put("single_count", field(c.getValue(), "singleCount"));
                    coords.put(c.getKey(), ct);
                }
                spec.put("coords", coords);
                spec.put("commit_stream", streamId((GlobalStreamId) field(e.getValue(), "commitStream")));
                specs.put(e.getKey(), spec);
            }
            coord.put("coord_specs", specs);
            coordination = coord;
        }
        out.put("coordination", coordination);

        Object master = null;
        if (obj instanceof org.apache.storm.trident.topology.MasterBatchCoordinator) {
            Map<String, Object> m = new TreeMap<String, Object>();
            m.put("managed_spout_ids", new ArrayList<Object>((List<Object>) field(obj, "_managedSpoutIds")));
            List<Object> spouts = new ArrayList<Object>();
            for (Object sp : (List<Object>) field(obj, "_spouts")) {
                spouts.add(className(sp));
            }
            m.put("spouts", spouts);
            master = m;
        }
        out.put("master", master);

        Object spoutExecutor = null;
        if (wrapped instanceof org.apache.storm.trident.spout.TridentSpoutExecutor) {
            Map<String, Object> se = new TreeMap<String, Object>();
            se.put("tx_state_id", field(wrapped, "_txStateId"));
            se.put("stream", field(wrapped, "_streamName"));
            se.put("spout", className(field(wrapped, "_spout")));
            spoutExecutor = se;
        } else if (wrapped instanceof org.apache.storm.trident.spout.TridentSpoutCoordinator) {
            Map<String, Object> se = new TreeMap<String, Object>();
            se.put("tx_state_id", field(wrapped, "_id"));
            se.put("spout", className(field(wrapped, "_spout")));
            spoutExecutor = se;
        }
        out.put("spout_executor", spoutExecutor);

        Object batchPerTuple = null;
        if (obj instanceof org.apache.storm.trident.spout.RichSpoutBatchTriggerer) {
            Map<String, Object> bt = new TreeMap<String, Object>();
            Object delegate = field(obj, "_delegate");
            bt.put("stream", field(obj, "_stream"));
            bt.put("coord_stream", field(obj, "_coordStream"));
            bt.put("spout", className(delegate));
            bt.put("function", field(delegate, "_function"));
            batchPerTuple = bt;
        }
        out.put("batch_per_tuple", batchPerTuple);
        return out;
    }

    static Map<String, Object> describe(String name, StormTopology topology) throws Exception {
        if (topology.get_state_spouts_size() != 0) {
            throw new IllegalStateException(name + ": unexpected state spouts");
        }
        Map<String, Object> spouts = new TreeMap<String, Object>();
        for (Map.Entry<String, SpoutSpec> e : topology.get_spouts().entrySet()) {
            spouts.put(e.getKey(), component(e.getValue().get_spout_object(), e.getValue().get_common()));
        }
        Map<String, Object> bolts = new TreeMap<String, Object>();
        for (Map.Entry<String, Bolt> e : topology.get_bolts().entrySet()) {
            bolts.put(e.getKey(), component(e.getValue().get_bolt_object(), e.getValue().get_common()));
        }
        Map<String, Object> out = new TreeMap<String, Object>();
        out.put("scenario", name);
        out.put("spouts", spouts);
        out.put("bolts", bolts);
        return out;
    }

    // ---- JSON, keys sorted, two-space indentation ----

    static void writeJson(StringBuilder sb, Object value, String indent) {
        if (value == null) {
            sb.append("null");
        } else if (value instanceof String) {
            writeString(sb, (String) value);
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte) {
            sb.append(value.toString());
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("not a JSON number: " + d);
            }
            sb.append(Double.toString(d));
        } else if (value instanceof Map) {
            Map<String, Object> sorted = new TreeMap<String, Object>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                sorted.put(String.valueOf(e.getKey()), e.getValue());
            }
            if (sorted.isEmpty()) {
                sb.append("{}");
                return;
            }
            String inner = indent + "  ";
            sb.append("{\n");
            boolean first = true;
            for (Map.Entry<String, Object> e : sorted.entrySet()) {
                if (!first) {
                    sb.append(",\n");
                }
                first = false;
                sb.append(inner);
                writeString(sb, e.getKey());
                sb.append(": ");
                writeJson(sb, e.getValue(), inner);
            }
            sb.append("\n").append(indent).append("}");
        } else if (value instanceof Collection) {
            Collection<?> items = (Collection<?>) value;
            if (items.isEmpty()) {
                sb.append("[]");
                return;
            }
            String inner = indent + "  ";
            sb.append("[\n");
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    sb.append(",\n");
                }
                first = false;
                sb.append(inner);
                writeJson(sb, item, inner);
            }
            sb.append("\n").append(indent).append("]");
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass() + " as JSON");
        }
    }

    static void writeString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                default:
                    if (c < 0x20 || c > 0x7e) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: TridentPlans <output directory>");
            System.exit(2);
        }
        File outDir = new File(args[0]);
        outDir.mkdirs();
        for (Map.Entry<String, Scenario> e : scenarios().entrySet()) {
            TridentTopology topology = new TridentTopology();
            e.getValue().define(topology);
            StringBuilder sb = new StringBuilder();
            writeJson(sb, describe(e.getKey(), topology.build()), "");
            sb.append("\n");
            try (Writer w = new OutputStreamWriter(
                    new FileOutputStream(new File(outDir, e.getKey() + ".json")), StandardCharsets.UTF_8)) {
                w.write(sb.toString());
            }
        }
    }
}

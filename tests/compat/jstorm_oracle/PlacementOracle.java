// The JStorm 2.2.1 side of tests/compat/test_jstorm_placement.py: reads a JSON array of placement
// cases (the format of pynimbus/jstorm_port/case_json.py), runs JStorm's own
// DefaultTopologyScheduler.assignTasks on each, and writes a JSON array of placements (or errors)
// to the output file.  Compiled at test time against jstorm-core from Maven Central; nothing here
// is JStorm's code.

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import backtype.storm.generated.Bolt;
import backtype.storm.generated.ComponentCommon;
import backtype.storm.generated.ComponentObject;
import backtype.storm.generated.GlobalStreamId;
import backtype.storm.generated.Grouping;
import backtype.storm.generated.NullStruct;
import backtype.storm.generated.SpoutSpec;
import backtype.storm.generated.StateSpoutSpec;
import backtype.storm.generated.StormTopology;
import backtype.storm.generated.StreamInfo;
import com.alibaba.jstorm.daemon.supervisor.SupervisorInfo;
import com.alibaba.jstorm.schedule.Assignment;
import com.alibaba.jstorm.schedule.TopologyAssignContext;
import com.alibaba.jstorm.schedule.default_assign.DefaultTopologyScheduler;
import com.alibaba.jstorm.schedule.default_assign.ResourceWorkerSlot;
import shade.storm.org.json.simple.JSONValue;

public class PlacementOracle {

    public static void main(String[] args) throws Exception {
        quietLogging();
        List<Object> cases;
        try (Reader in = new InputStreamReader(new FileInputStream(args[0]), StandardCharsets.UTF_8)) {
            cases = (List<Object>) JSONValue.parse(in);
        }
        List<Object> results = new ArrayList<Object>();
        for (Object c : cases) {
            results.add(place((Map<String, Object>) c));
        }
        try (Writer out = new OutputStreamWriter(new FileOutputStream(args[1]), StandardCharsets.UTF_8)) {
            out.write(JSONValue.toJSONString(results));
        }
    }

    private static void quietLogging() {
        org.slf4j.Logger root = org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger) {
            ((ch.qos.logback.classic.Logger) root).setLevel(ch.qos.logback.classic.Level.OFF);
        }
    }

    private static Object place(Map<String, Object> c) {
        try {
            DefaultTopologyScheduler scheduler = new DefaultTopologyScheduler();
            scheduler.prepare(new HashMap<Object, Object>());
            Set<ResourceWorkerSlot> workers = scheduler.assignTasks(context(c));
            List<Map<String, Object>> placed = new ArrayList<Map<String, Object>>();
            for (ResourceWorkerSlot w : workers) {
                placed.add(workerJson(w));
            }
            Collections.sort(placed, (a, b) -> {
                String na = a.get("node_id") == null ? "" : (String) a.get("node_id");
                String nb = b.get("node_id") == null ? "" : (String) b.get("node_id");
                int byNode = na.compareTo(nb);
                return byNode != 0 ? byNode : ((Integer) a.get("port")).compareTo((Integer) b.get("port"));
            });
            return placed;
        } catch (Exception e) {
            Map<String, Object> error = new HashMap<String, Object>();
            error.put("error", e.getClass().getSimpleName());
            if (e.getClass().getSimpleName().equals("FailedAssignTopologyException")) {
                error.put("message", e.getMessage());
            }
            return error;
        }
    }

    private static Map<String, Object> workerJson(ResourceWorkerSlot w) {
        Map<String, Object> json = new HashMap<String, Object>();
        json.put("node_id", w.getNodeId());
        json.put("hostname", w.getHostname());
        json.put("port", w.getPort());
        List<Integer> tasks = new ArrayList<Integer>(w.getTasks() == null ? new HashSet<Integer>() : w.getTasks());
        Collections.sort(tasks);
        json.put("tasks", tasks);
        json.put("mem", w.getMemSize());
        json.put("cpu", w.getCpu());
        json.put("jvm", w.getJvm());
        return json;
    }

    private static int intOf(Object o) {
        return ((Number) o).intValue();
    }

    // A java.util.HashSet filled in the order the case lists its elements.
    private static Set<Integer> intSet(Object list) {
        Set<Integer> set = new HashSet<Integer>();
        if (list != null) {
            for (Object o : (List<Object>) list) {
                set.add(intOf(o));
            }
        }
        return set;
    }

    private static TopologyAssignContext context(Map<String, Object> c) {
        TopologyAssignContext ctx = new TopologyAssignContext();
        ctx.setTopologyId("oracle-topology");
        ctx.setAssignType(intOf(c.get("assign_type")));
        Map<Object, Object> conf = new HashMap<Object, Object>();
        if (c.get("storm_conf") != null) {
            conf.putAll((Map<Object, Object>) c.get("storm_conf"));
        }
        ctx.setStormConf(conf);
        ctx.setRawTopology(topology((Map<String, Object>) c.get("topology")));

        Map<Integer, String> taskToComponent = new TreeMap<Integer, String>();
        for (Map.Entry<String, Object> e : ((Map<String, Object>) c.get("task_to_component")).entrySet()) {
            taskToComponent.put(Integer.valueOf(e.getKey()), (String) e.getValue());
        }
        ctx.setTaskToComponent(taskToComponent);
        ctx.setAllTaskIds(taskToComponent.keySet());
        if (c.get("topology_master_task_id") != null) {
            ctx.setTopologyMasterTaskId(intOf(c.get("topology_master_task_id")));
        }

        Map<String, SupervisorInfo> cluster = new TreeMap<String, SupervisorInfo>();
        for (Object o : (List<Object>) c.get("supervisors")) {
            Map<String, Object> s = (Map<String, Object>) o;
            SupervisorInfo info = new SupervisorInfo((String) s.get("hostname"), (String) s.get("id"),
                    intSet(s.get("ports")), new HashMap<Object, Object>());
            info.setAvailableWorkerPorts(info.getWorkerPorts());
            for (Integer used : intSet(s.get("used_ports"))) {
                info.getAvailableWorkerPorts().remove(used);
            }
            cluster.put((String) s.get("id"), info);
        }
        ctx.setCluster(cluster);

        Map<String, Object> old = (Map<String, Object>) c.get("old_assignment");
        if (old != null) {
            Set<ResourceWorkerSlot> workers = new HashSet<ResourceWorkerSlot>();
            Map<String, String> nodeHost = new HashMap<String, String>();
            for (Object o : (List<Object>) old.get("workers")) {
                Map<String, Object> w = (Map<String, Object>) o;
                ResourceWorkerSlot slot = new ResourceWorkerSlot((String) w.get("node_id"), intOf(w.get("port")));
                slot.setHostname((String) w.get("hostname"));
                slot.setTasks(intSet(w.get("tasks")));
                if (w.get("mem") != null) {
                    slot.setMemSize(((Number) w.get("mem")).longValue());
                }
                if (w.get("cpu") != null) {
                    slot.setCpu(intOf(w.get("cpu")));
                }
                slot.setJvm((String) w.get("jvm"));
                workers.add(slot);
                nodeHost.put(slot.getNodeId(), slot.getHostname());
            }
            ctx.setOldAssignment(new Assignment("/nowhere", workers, nodeHost, new HashMap<Integer, Integer>()));
        }
        ctx.setDeadTaskIds(intSet(c.get("dead_tasks")));
        ctx.setUnstoppedTaskIds(intSet(c.get("unstopped_tasks")));
        ctx.setIsReassign(Boolean.TRUE.equals(c.get("is_reassign")));
        return ctx;
    }

    private static ComponentCommon common(Map<String, Object> component, Map<GlobalStreamId, Grouping> inputs) {
        Map<String, StreamInfo> streams = new HashMap<String, StreamInfo>();
        List<String> fields = new ArrayList<String>();
        fields.add("word");
        streams.put("default", new StreamInfo(fields, false));
        ComponentCommon common = new ComponentCommon(inputs, streams);
        common.set_parallelism_hint(component.get("parallelism") == null ? 1 : intOf(component.get("parallelism")));
        if (component.get("conf") != null) {
            common.set_json_conf(JSONValue.toJSONString(component.get("conf")));
        }
        return common;
    }

    private static Grouping grouping(String kind) {
        if ("fields".equals(kind)) {
            List<String> fields = new ArrayList<String>();
            fields.add("word");
            return Grouping.fields(fields);
        }
        if ("all".equals(kind)) {
            return Grouping.all(new NullStruct());
        }
        return Grouping.shuffle(new NullStruct());
    }

    private static StormTopology topology(Map<String, Object> t) {
        ComponentObject nothing = ComponentObject.serialized_java(new byte[0]);
        Map<String, SpoutSpec> spouts = new HashMap<String, SpoutSpec>();
        Map<String, Bolt> bolts = new HashMap<String, Bolt>();
        Map<String, Object> spoutDefs = (Map<String, Object>) t.get("spouts");
        Map<String, Object> boltDefs = (Map<String, Object>) t.get("bolts");
        if (spoutDefs != null) {
            for (Map.Entry<String, Object> e : spoutDefs.entrySet()) {
                Map<String, Object> def = (Map<String, Object>) e.getValue();
                spouts.put(e.getKey(), new SpoutSpec(nothing, common(def, new HashMap<GlobalStreamId, Grouping>())));
            }
        }
        if (boltDefs != null) {
            for (Map.Entry<String, Object> e : boltDefs.entrySet()) {
                Map<String, Object> def = (Map<String, Object>) e.getValue();
                Map<GlobalStreamId, Grouping> inputs = new HashMap<GlobalStreamId, Grouping>();
                List<Object> from = (List<Object>) def.get("inputs");
                List<Object> kinds = (List<Object>) def.get("groupings");
                if (from != null) {
                    for (int i = 0; i < from.size(); i++) {
                        String kind = kinds == null ? "shuffle" : (String) kinds.get(i);
                        inputs.put(new GlobalStreamId((String) from.get(i), "default"), grouping(kind));
                    }
                }
                bolts.put(e.getKey(), new Bolt(nothing, common(def, inputs)));
            }
        }
        return new StormTopology(spouts, bolts, new HashMap<String, StateSpoutSpec>());
    }
}

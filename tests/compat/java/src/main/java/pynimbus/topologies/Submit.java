package pynimbus.topologies;

import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.StormTopology;

/** Command-line handling shared by the topologies: {@code <topology name> [num workers]}. */
final class Submit {
    private Submit() {
    }

    static void submit(String[] args, StormTopology topology, Config conf) throws Exception {
        if (args.length < 1 || args.length > 2) {
            throw new IllegalArgumentException("arguments: <topology name> [num workers]");
        }
        if (args.length == 2) {
            conf.setNumWorkers(Integer.parseInt(args[1]));
        }
        StormSubmitter.submitTopology(args[0], conf, topology);
    }
}

package pynimbus.topologies;

import java.util.Map;

import org.apache.storm.generated.DRPCExecutionException;
import org.apache.storm.utils.DRPCClient;
import org.apache.storm.utils.Utils;

/**
 * Storm's own Java DRPC client, for the compat tests: {@code <host> <port> <function> <args>}.
 * Prints {@code result: <result>}, or {@code failed: <message>} and exits with 3 when the
 * server answers with a DRPCExecutionException.
 */
public final class DrpcCall {
    private DrpcCall() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("arguments: <host> <port> <function> <args>");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> conf = (Map<String, Object>) (Map<?, ?>) Utils.readStormConfig();
        DRPCClient client = new DRPCClient(conf, args[0], Integer.parseInt(args[1]));
        try {
            System.out.println("result: " + client.execute(args[2], args[3]));
        } catch (DRPCExecutionException e) {
            System.out.println("failed: " + e.get_msg());
            System.exit(3);
        } finally {
            client.close();
        }
    }
}

/*
 * pynimbus compat tests: a launcher for the REST API of Storm 2.x's UI, bound to 127.0.0.1.
 *
 * Why it exists: Storm 2.8.8's UIServer.main creates its HTTP connector without a host (2.x has
 * no ui.host key), so it listens on every interface, and pynimbus's tests may listen on loopback
 * only.  This class is our own wiring of the same pieces UIServer.main puts behind /api/v1/ (the
 * org.apache.storm.daemon.ui.resources package, the authorized-user and response-header filters,
 * the three exception mappers, the metrics registry binding and the request-context filter) on a
 * connector bound to 127.0.0.1 and ui.port.  It serves no static pages (the HTML/JS bundle needs
 * a Node build) and installs no ui.filter; nothing else differs for the REST endpoints.
 *
 * Compiled by tests/compat/storm_ui.py together with a storm-webapp source checkout; never
 * committed as a class file.
 */

import java.util.Map;
import org.apache.storm.DaemonConfig;
import org.apache.storm.daemon.ui.UIHelpers;
import org.apache.storm.daemon.ui.UIServer;
import org.apache.storm.daemon.ui.exceptionmappers.AuthorizationExceptionMapper;
import org.apache.storm.daemon.ui.exceptionmappers.DefaultExceptionMapper;
import org.apache.storm.daemon.ui.exceptionmappers.NotAliveExceptionMapper;
import org.apache.storm.daemon.ui.filters.AuthorizedUserFilter;
import org.apache.storm.daemon.ui.filters.HeaderResponseFilter;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.utils.ConfigUtils;
import org.apache.storm.utils.ObjectReader;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.glassfish.hk2.utilities.binding.AbstractBinder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

public final class PynimbusLoopbackUIServer {
    private static final String LOOPBACK = "127.0.0.1";

    private PynimbusLoopbackUIServer() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, Object> conf = ConfigUtils.readStormConfig();
        Server server = UIHelpers.jettyCreateServer(
            ObjectReader.getInt(conf.get(DaemonConfig.UI_PORT)), LOOPBACK, 0,
            ObjectReader.getInt(conf.get(DaemonConfig.UI_HEADER_BUFFER_BYTES)), false);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath("/");
        server.setHandler(context);

        final StormMetricsRegistry registry = new StormMetricsRegistry();
        ResourceConfig api = new ResourceConfig()
            .packages("org.apache.storm.daemon.ui.resources")
            .registerInstances(new AbstractBinder() {
                @Override
                protected void configure() {
                    bind(registry).to(StormMetricsRegistry.class);
                }
            })
            .register(AuthorizedUserFilter.class)
            .register(HeaderResponseFilter.class)
            .register(AuthorizationExceptionMapper.class)
            .register(NotAliveExceptionMapper.class)
            .register(DefaultExceptionMapper.class);
        ServletHolder apiServlet = new ServletHolder(new ServletContainer(api));
        apiServlet.setInitOrder(0);
        context.addServlet(apiServlet, UIServer.STORM_API_URL_PREFIX + "*");
        UIServer.addRequestContextFilter(context, DaemonConfig.UI_HTTP_CREDS_PLUGIN, conf);

        server.start();
        server.join();
    }
}

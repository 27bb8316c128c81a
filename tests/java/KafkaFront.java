import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ByteBufferSend;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.network.ChannelBuilders;
import org.apache.kafka.common.network.ChannelState;
import org.apache.kafka.common.network.KafkaChannel;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.network.NetworkReceive;
import org.apache.kafka.common.network.NetworkSend;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.authenticator.CredentialCache;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCache;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;

/**
 * Test-only front for a broker that serves neither TLS nor a working SASL login (Tansu): a listener
 * built from the broker-side network code of the kafka-clients jar, as a Kafka broker's SocketServer
 * builds its listeners. ChannelBuilders.serverChannelBuilder gives the TLS transport (JSSE SSLEngine,
 * optional client certificates) and SaslServerAuthenticator, which answers ApiVersions, SaslHandshake
 * and SaslAuthenticate before authentication (SCRAM through ScramSaslServer with credentials made by
 * ScramFormatter, PLAIN through PlainSaslServer, OAUTHBEARER through OAuthBearerSaslServer and the
 * unsecured-JWS validator) and closes the connection on any other request. After authentication each
 * request is handled as the broker's processor does (KIP-368: a SaslHandshake starts re-authentication,
 * a request after the session expired closes the connection; one request in flight per connection)
 * and then relayed to the upstream broker over plain TCP; ApiVersions is answered by the front.
 *
 * Usage: KafkaFront --port P --upstream HOST:PORT --protocol SASL_SSL|SSL|SASL_PLAINTEXT
 *   [--mechanisms SCRAM-SHA-512,PLAIN,...] [--users FILE (lines: user TAB password)]
 *   [--keystore PEM (PKCS#8 key + chain)] [--truststore PEM] [--client-auth required|requested|none]
 *   [--session-lifetime-ms N] [--oauth-required-scope S]
 * Prints "LISTENING <port>" on stdout once it accepts connections; logs to stderr.
 */
public class KafkaFront {
    private static final ListenerName LISTENER = ListenerName.normalised("FRONT");
    private static final PrintStream LOG = System.err;

    /** The upstream connection of one client connection, and its reader. */
    private static final class Upstream {
        final Socket socket;
        final DataOutputStream out;

        Upstream(Socket socket) throws IOException {
            this.socket = socket;
            this.out = new DataOutputStream(socket.getOutputStream());
        }
    }

    private static final Queue<SocketChannel> ACCEPTED = new ConcurrentLinkedQueue<>();
    private static final Queue<Object[]> FROM_UPSTREAM = new ConcurrentLinkedQueue<>();  // {id, payload or null at EOF}
    private static final Map<String, Upstream> UPSTREAMS = new HashMap<>();
    private static final Map<String, Queue<NetworkSend>> PENDING = new HashMap<>();
    private static Selector selector;
    private static String upstreamHost;
    private static int upstreamPort;
    private static ApiVersionsResponseData apiVersions;

    static void log(String message) {
        LOG.println(Instant.now() + " " + message);
        LOG.flush();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) opt.put(args[i], args[i + 1]);
        int port = Integer.parseInt(opt.getOrDefault("--port", "0"));
        String[] upstream = opt.get("--upstream").split(":");
        upstreamHost = upstream[0];
        upstreamPort = Integer.parseInt(upstream[1]);
        SecurityProtocol protocol = SecurityProtocol.forName(opt.getOrDefault("--protocol", "SASL_SSL"));
        List<String> mechanisms = Arrays.asList(opt.getOrDefault("--mechanisms", "SCRAM-SHA-512").split(","));
        Map<String, String> users = new HashMap<>();
        if (opt.containsKey("--users")) {
            for (String line : Files.readAllLines(Paths.get(opt.get("--users")), StandardCharsets.UTF_8)) {
                int tab = line.indexOf('\t');
                if (tab > 0) users.put(line.substring(0, tab), line.substring(tab + 1));
            }
        }

        // the listener's configuration, as a broker's server.properties would give it
        String prefix = LISTENER.configPrefix();
        Map<String, Object> props = new HashMap<>();
        props.put(BrokerSecurityConfigs.SASL_ENABLED_MECHANISMS_CONFIG, String.join(",", mechanisms));
        props.put(BrokerSecurityConfigs.CONNECTIONS_MAX_REAUTH_MS_CONFIG, opt.getOrDefault("--session-lifetime-ms", "0"));
        if (opt.containsKey("--keystore")) {
            props.put("ssl.keystore.type", "PEM");
            props.put("ssl.keystore.location", opt.get("--keystore"));
        }
        if (opt.containsKey("--truststore")) {
            props.put("ssl.truststore.type", "PEM");
            props.put("ssl.truststore.location", opt.get("--truststore"));
        }
        props.put(prefix + BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG, opt.getOrDefault("--client-auth", "none"));
        StringBuilder plain = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
        CredentialCache credentials = new CredentialCache();
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            CredentialCache.Cache<ScramCredential> cache = credentials.createCache(mechanism.mechanismName(), ScramCredential.class);
            ScramFormatter formatter = new ScramFormatter(mechanism);
            for (Map.Entry<String, String> user : users.entrySet())
                cache.put(user.getKey(), formatter.generateCredential(user.getValue(), 4096));
        }
        for (Map.Entry<String, String> user : users.entrySet())
            plain.append(" user_").append(user.getKey()).append("=\"").append(user.getValue()).append('"');
        for (String mechanism : mechanisms) {
            String jaas;
            if (mechanism.startsWith("SCRAM-")) {
                jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
            } else if (mechanism.equals("PLAIN")) {
                jaas = plain + ";";
            } else if (mechanism.equals("OAUTHBEARER")) {
                // the broker's own login (unused here) and the options of the unsecured-JWS validator
                jaas = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
                    + " unsecuredLoginStringClaim_sub=\"kafka-front\""
                    + (opt.containsKey("--oauth-required-scope")
                       ? " unsecuredValidatorRequiredScope=\"" + opt.get("--oauth-required-scope") + "\"" : "")
                    + ";";
            } else {
                throw new IllegalArgumentException("unsupported mechanism " + mechanism);
            }
            props.put(prefix + mechanism.toLowerCase() + ".sasl.jaas.config", jaas);
        }
        // the broker's security settings, plus the SSL and SASL ones it shares with clients
        ConfigDef definitions = new ConfigDef(BrokerSecurityConfigs.CONFIG_DEF);
        for (ConfigDef.ConfigKey key : new ConfigDef().withClientSslSupport().withClientSaslSupport().configKeys().values())
            if (!definitions.configKeys().containsKey(key.name)) definitions.define(key);
        AbstractConfig config = new AbstractConfig(definitions, props, false);

        apiVersions = upstreamApiVersions(upstreamHost, upstreamPort);
        ChannelBuilder builder = ChannelBuilders.serverChannelBuilder(
            LISTENER, false, protocol, config, credentials, new DelegationTokenCache(ScramMechanism.mechanismNames()),
            Time.SYSTEM, new LogContext("[front] "), version -> new ApiVersionsResponse(apiVersions.duplicate()));
        // as a broker: no idle limit here, a failed authentication answered, then closed after 100 ms
        selector = new Selector(100 * 1024 * 1024, Selector.NO_IDLE_TIMEOUT_MS, 100, new Metrics(), Time.SYSTEM,
            "front", new HashMap<>(), false, builder, new LogContext("[front] "));

        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress("127.0.0.1", port));
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    ACCEPTED.add(server.accept());
                    selector.wakeup();
                }
            } catch (IOException e) {
                log("acceptor stopped: " + e);
            }
        }, "acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        int bound = ((InetSocketAddress) server.getLocalAddress()).getPort();
        log("listening on 127.0.0.1:" + bound + " (" + protocol
            + (protocol.name().startsWith("SASL") ? ", " + mechanisms : "") + ", client auth "
            + opt.getOrDefault("--client-auth", "none") + ", session lifetime "
            + opt.getOrDefault("--session-lifetime-ms", "0") + " ms) relaying to " + upstreamHost + ":" + upstreamPort);
        System.out.println("LISTENING " + bound);
        System.out.flush();

        AtomicLong connections = new AtomicLong();
        while (true) {
            for (SocketChannel accepted; (accepted = ACCEPTED.poll()) != null; ) {
                accepted.configureBlocking(false);
                accepted.socket().setTcpNoDelay(true);
                String id = "c" + connections.incrementAndGet() + "-" + accepted.getRemoteAddress();
                selector.register(id, accepted);
                log(id + ": accepted");
            }
            for (Object[] item; (item = FROM_UPSTREAM.poll()) != null; ) {
                String id = (String) item[0];
                if (item[1] == null) {
                    if (selector.channel(id) != null) {
                        log(id + ": upstream closed the connection; closing");
                        close(id);
                    }
                } else {
                    respond(id, new NetworkSend(id, ByteBufferSend.sizePrefixed((ByteBuffer) item[1])));
                }
            }
            selector.poll(500);
            for (NetworkSend sent : selector.completedSends()) {
                String id = sent.destinationId();
                Queue<NetworkSend> pending = PENDING.get(id);
                if (pending != null && !pending.isEmpty()) selector.send(pending.poll());
                selector.unmute(id);  // the response went out: read the next request (as the broker)
            }
            for (NetworkReceive receive : selector.completedReceives()) {
                try {
                    handle(receive);
                } catch (Exception e) {
                    log(receive.source() + ": closing after " + e);
                    close(receive.source());
                }
            }
            selector.clearCompletedReceives();
            for (Map.Entry<String, ChannelState> gone : selector.disconnected().entrySet()) {
                ChannelState state = gone.getValue();
                log(gone.getKey() + ": disconnected, " + state.state()
                    + (state.exception() != null ? " (" + state.exception().getClass().getSimpleName() + ": "
                       + state.exception().getMessage() + ")" : ""));
                closeUpstream(gone.getKey());
            }
        }
    }

    /** One request from an authenticated connection: what SocketServer's processor and KafkaApis do with it. */
    private static void handle(NetworkReceive receive) throws IOException {
        String id = receive.source();
        KafkaChannel channel = selector.channel(id);
        ByteBuffer payload = receive.payload();
        RequestHeader header = RequestHeader.parse(payload.duplicate());
        if (header.apiKey() == ApiKeys.SASL_HANDSHAKE && channel.maybeBeginServerReauthentication(receive, System::nanoTime)) {
            log(id + ": re-authentication begins");
            return;
        }
        if (channel.serverAuthenticationSessionExpired(System.nanoTime())) {
            log(id + ": session expired, closing at " + header.apiKey());
            close(id);
            return;
        }
        selector.mute(id);  // one request in flight per connection, as the broker
        AbstractResponse local = null;
        if (header.apiKey() == ApiKeys.API_VERSIONS && header.isApiVersionSupported()) {
            local = new ApiVersionsResponse(apiVersions.duplicate());
        } else if (header.apiKey() == ApiKeys.SASL_HANDSHAKE) {  // after authentication, without re-authentication
            local = new SaslHandshakeResponse(new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code()));
        } else if (header.apiKey() == ApiKeys.SASL_AUTHENTICATE) {
            local = new SaslAuthenticateResponse(new SaslAuthenticateResponseData()
                .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                .setErrorMessage("SaslAuthenticate request received after successful authentication"));
        }
        if (local != null) {
            respond(id, new NetworkSend(id, local.toSend(header.toResponseHeader(), header.apiVersion())));
            return;
        }
        Upstream up = UPSTREAMS.get(id);
        if (up == null) up = openUpstream(id);
        byte[] bytes = new byte[payload.remaining()];
        payload.duplicate().get(bytes);
        up.out.writeInt(bytes.length);
        up.out.write(bytes);
        up.out.flush();
        if (header.apiKey() == ApiKeys.PRODUCE) {
            ByteBuffer body = payload.duplicate();
            RequestHeader.parse(body);
            ProduceRequest produce = (ProduceRequest) AbstractRequest.parseRequest(
                header.apiKey(), header.apiVersion(), new ByteBufferAccessor(body)).request;
            if (produce.acks() == 0) selector.unmute(id);  // no answer comes: read on
        }
    }

    private static void respond(String id, NetworkSend send) {
        KafkaChannel channel = selector.channel(id);
        if (channel == null) return;  // the client went away meanwhile
        if (channel.hasSend()) PENDING.computeIfAbsent(id, k -> new ArrayDeque<>()).add(send);
        else selector.send(send);
    }

    private static Upstream openUpstream(String id) throws IOException {
        Socket socket = new Socket(upstreamHost, upstreamPort);
        socket.setTcpNoDelay(true);
        Upstream up = new Upstream(socket);
        UPSTREAMS.put(id, up);
        Thread reader = new Thread(() -> {
            try (DataInputStream in = new DataInputStream(socket.getInputStream())) {
                while (true) {
                    int size = in.readInt();
                    byte[] response = new byte[size];
                    in.readFully(response);
                    FROM_UPSTREAM.add(new Object[] {id, ByteBuffer.wrap(response)});
                    selector.wakeup();
                }
            } catch (IOException e) {
                FROM_UPSTREAM.add(new Object[] {id, null});
                selector.wakeup();
            }
        }, "upstream-" + id);
        reader.setDaemon(true);
        reader.start();
        return up;
    }

    private static void close(String id) {
        selector.close(id);
        closeUpstream(id);
    }

    private static void closeUpstream(String id) {
        PENDING.remove(id);
        Upstream up = UPSTREAMS.remove(id);
        if (up != null) {
            try {
                up.socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** The upstream's ApiVersions (v0), with SaslHandshake and SaslAuthenticate as this front serves them. */
    private static ApiVersionsResponseData upstreamApiVersions(String host, int port) throws IOException {
        short version = 0;
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, version, "kafka-front", 1);
        ByteBuffer request = new ApiVersionsRequest.Builder().build(version).serializeWithHeader(header);
        try (Socket socket = new Socket(host, port)) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(request.remaining());
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ByteBuffer buffer = ByteBuffer.wrap(response);
            ResponseHeader.parse(buffer, ApiKeys.API_VERSIONS.responseHeaderVersion(version));
            ApiVersionsResponseData data = ApiVersionsResponse.parse(new ByteBufferAccessor(buffer), version).data();
            if (data.errorCode() != 0) throw new EOFException("upstream ApiVersions error " + data.errorCode());
            for (ApiKeys key : new ApiKeys[] {ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE}) {
                ApiVersionsResponseData.ApiVersion old = data.apiKeys().find(key.id);
                if (old != null) data.apiKeys().remove(old);
                data.apiKeys().add(ApiVersionsResponse.toApiVersion(key));
            }
            return data;
        }
    }
}

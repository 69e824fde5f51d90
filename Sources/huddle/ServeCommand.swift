import ArgumentParser
import Foundation
import HuddleCore
import HuddlePostgres
import HuddleServer
import HuddleSQLite
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the APNs-compatible provider endpoint and the device API.",
        discussion: """
            Providers push with the APNs client they already use (POST /3/device/<token>); devices register \
            and read their Notification Center through the device API (/v1/devices, described at /openapi.yaml). \
            One port speaks HTTP/1.1 and HTTP/2: h2c with prior knowledge in cleartext, or with \
            --tls-certificate/--tls-key, HTTP/2 with or without ALPN, and HTTP/1.1.

            Every option can also be set by the environment, as HUDDLE_ and its name in capitals \
            (HUDDLE_MAX_STREAMS=100 for --max-streams 100; --database is HUDDLE_DATABASE_URL); a flag's variable \
            is true or false, a repeatable option's a comma-separated list. The command line wins.
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port = 8443

    @OptionGroup var database: DatabaseOption

    @Option(help: "A PEM certificate chain, for TLS.")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String?

    @Option(help: ArgumentHelp(
        "A certificate authority (PEM, such as huddle certs ca's ca.pem) whose provider certificates the TLS port "
            + "accepts: clients are asked for a certificate, not required to give one, so tokens work beside it."))
    var clientCa: String?

    @Flag(help: "Accept pushes without a provider token (loopback addresses only).")
    var development = false

    @Option(help: ArgumentHelp(
        "A host name the device API and the pages answer to, besides loopback names and IP addresses "
            + "(repeat it for several; * for any). Requests naming another host get 421, which stops DNS rebinding."))
    var publicHost: [String] = []

    @Option(help: "The bearer token of the admin API (default: $HUDDLE_ADMIN_TOKEN; off when neither is set).")
    var adminToken: String?

    @Option(help: ArgumentHelp(
        "The bearer token POST /v1/devices needs (default: $HUDDLE_REGISTRATION_TOKEN; on a non-loopback address "
            + "without one, a token is made up and logged)."))
    var registrationToken: String?

    @Flag(help: "Let anyone who reaches the server register devices, even beyond the loopback address.")
    var openRegistration = false

    @Option(help: "The bearer token /metrics needs (default: $HUDDLE_METRICS_TOKEN; open when neither is set).")
    var metricsToken: String?

    @Option(help: ArgumentHelp(
        "The access token every send to Expo's push API must present, as a project with enhanced push security requires "
            + "(default: $HUDDLE_EXPO_ACCESS_TOKEN; none needed when neither is set)."))
    var expoAccessToken: String?

    @OptionGroup(title: "Limits") var limits: LimitOptions

    @Flag(help: "Start with a demo device whose apps replay the WWDC session's stories, and print its page's address.")
    var demo = false

    @Flag(help: ArgumentHelp("Add POST /bench/accept and /bench/check/3/device/<token>, routes that store nothing, for benchmarks.", visibility: .hidden))
    var benchmarkRoutes = false

    func validate() throws {
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together.")
        }
        if clientCa != nil, tlsCertificate == nil {
            throw ValidationError("--client-ca is for TLS client certificates: it needs --tls-certificate and --tls-key.")
        }
        if development, !isLoopback {
            throw ValidationError("--development accepts unsigned pushes, so it only listens on a loopback address.")
        }
        if openRegistration, registrationToken != nil {
            throw ValidationError("--open-registration and --registration-token contradict each other.")
        }
        _ = try tokens()
        if let host = publicHost.first(where: { $0.isEmpty || $0.contains(where: { $0 == "/" || $0 == " " }) }) {
            throw ValidationError("--public-host \"\(host)\": expected a host name, such as huddle.example.com")
        }
    }

    /// The admin, registration, metrics and Expo access tokens (the environment's, if any, are options by now: see
    /// ``EnvironmentOptions``).
    private func tokens() throws -> (admin: String?, registration: String?, metrics: String?, expo: String?) {
        (
            try Self.token(option: "--admin-token", given: adminToken),
            try Self.token(option: "--registration-token", given: registrationToken),
            try Self.token(option: "--metrics-token", given: metricsToken),
            try Self.token(option: "--expo-access-token", given: expoAccessToken)
        )
    }

    /// A token, refused when empty, since it would be a password everyone knows (and an empty registration
    /// token would quietly open registration).
    private static func token(option: String, given: String?) throws -> String? {
        guard let token = given else { return nil }
        guard !token.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("\(option) is empty: give a token (or leave it out to turn it off)")
        }
        return token
    }

    private var isLoopback: Bool { ServerConfiguration.isLoopback(host) }

    func run() async throws {
        try await reportingFailures {
            // The log's last lines go out before the server's exit, and before a failure it reports.
            defer { QueuedLogWriter.standardError.flush() }
            try await serve()
        }
    }

    private func serve() async throws {
        // Lines are written by a thread of their own: an event loop that logs never waits on standard error.
        let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        LoggingSystem.bootstrap { label in QueuedLogHandler(label: label, level: level) }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "huddle")
        logger.info("huddle \(Version.description)")

        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.tlsCertificatePath = tlsCertificate
        configuration.tlsKeyPath = tlsKey
        configuration.clientCertificateAuthorityPath = clientCa
        configuration.developmentMode = development
        let tokens = try tokens()
        configuration.adminToken = tokens.admin
        configuration.metricsToken = tokens.metrics
        configuration.expoAccessToken = tokens.expo
        configuration.publicHosts = publicHost
        configuration.benchmarkRoutes = benchmarkRoutes
        configuration.demo = demo
        configuration.limits = limits.limits
        if !openRegistration { configuration.registrationToken = tokens.registration }
        if configuration.registrationToken == nil, !openRegistration, !isLoopback {
            // Beyond the loopback address, strangers may reach the server: registering a device takes a token.
            let token = ServerConfiguration.makeToken()
            configuration.registrationToken = token
            logger.notice("registering devices needs this token (Authorization: Bearer \(token)); set --registration-token to choose one")
        }

        let scheme = tlsCertificate == nil ? "http" : "https"
        if development {
            logger.warning("DEVELOPMENT MODE: pushes are accepted WITHOUT a provider token. Never expose this server.")
        }
        let url = "\(scheme)://\(host):\(port)"
        switch try database.location() {
        case .memory:
            logger.warning("the store is in memory: everything is lost when the server stops")
            try await serve(store: InMemoryNotificationStore(), configuration: configuration, registry: registry, logger: logger, url: url)
        case .sqlite(let path):
            // Migrated before serving, as PostgreSQL is: a database newer than this build is refused here.
            let applied = try SQLiteMigrations.migrate(path: path)
            let store = try SQLiteNotificationStore(path: path)
            logger.info("store: SQLite at \(path)\(applied.isEmpty ? "" : " (migrated: \(applied.joined(separator: ", ")))")")
            try await serve(store: store, configuration: configuration, registry: registry, logger: logger, url: url)
        case .postgres(let postgres):
            // Before serving: a database newer than this build is refused here, with the reason.
            let applied = try await PostgresMigrations.migrate(postgres, logger: logger)
            let store = PostgresNotificationStore(database: postgres, logger: logger)
            logger.info("store: PostgreSQL at \(postgres)\(applied.isEmpty ? "" : " (migrated: \(applied.joined(separator: ", ")))")")
            try await serve(
                store: store, runningFirst: [store], configuration: configuration, registry: registry, logger: logger, url: url)
        }
    }

    /// Runs the app on a store, after the services it needs (a store's connections), which are stopped after
    /// it; with `--demo`, installs the demo device once the store runs.
    private func serve(
        store: some NotificationStore, runningFirst services: [any Service] = [], configuration: ServerConfiguration,
        registry: PrometheusCollectorRegistry, logger: Logger, url: String
    ) async throws {
        var services = services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        if demo {
            let installer = DemoInstaller(store: store, url: url, logger: logger)
            services.append(.init(service: installer, successTerminationBehavior: .ignore))
        }
        services.append(.init(service: try buildApplication(configuration: configuration, store: store, metrics: registry, logger: logger) {
            logger.info("Huddle listening on \(url) (provider endpoint POST \(url)/3/device/<token>, device API \(url)/v1/devices)")
        }))
        // A client that never answers the shutdown's HTTP/2 PING would hold a graceful shutdown open
        // forever; past a few seconds, remaining connections are cancelled.
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        configuration.maximumCancellationDuration = .seconds(5)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CommandFailure(.unavailable, "\(host):\(port) is in use by another program; choose another port with --port")
        } catch let error as IOError where error.errnoCode == EADDRNOTAVAIL {
            throw CommandFailure(.unavailable, "\(host) is not an address of this machine; choose another with --host")
        }
    }
}

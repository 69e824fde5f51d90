import Foundation
import HTTPTypes
import HuddleAPNs
public import HuddleCore
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import NIOSSL
public import Prometheus

/// Builds the Huddle server: the APNs provider endpoint, the device and admin APIs, metrics.
///
/// - Parameters:
///   - store: where devices and notifications live; the server never names a backend.
///   - metrics: the registry `/metrics` shows (the one the executable bootstrapped swift-metrics with).
///   - onListening: called once the server listens (after its port was bound).
public func buildApplication(
    configuration: ServerConfiguration, store: some NotificationStore, metrics: PrometheusCollectorRegistry,
    logger: Logger, onListening: @escaping @Sendable () async -> Void = {}
) throws -> some ApplicationProtocol {
    // The group the server reads and answers on; the commit queue's writer runs on one of its loops (``CommitQueue``).
    let eventLoopGroup = EventLoopGroupProvider.singleton.eventLoopGroup
    let centers = DeviceCenters(
        store: store, maximumSessions: configuration.maximumLoadedDevices, notificationsPerApp: configuration.limits.notificationsPerApp,
        writerExecutor: EventLoopTaskExecutor(eventLoopGroup.next()), clock: configuration.clock, logger: logger)
    let requestLog = SenderRequestLog(configuration: configuration)
    let (router, provider, senderRoutes) = buildRouter(configuration: configuration, store: store, centers: centers, requestLog: requestLog, metrics: metrics)
    var tls: TLSConfiguration?
    if let certificatePath = configuration.tlsCertificatePath, let keyPath = configuration.tlsKeyPath {
        tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: keyPath, format: .pem)))
        // TLS 1.0 and 1.1 are broken and deprecated (RFC 8996); APNs itself requires 1.2.
        tls?.minimumTLSVersion = .tlsv12
        if let authorityPath = configuration.clientCertificateAuthorityPath {
            // Asked for, checked when presented, not required: a client with a certificate from another authority
            // (or an expired one) fails its handshake, as with APNs; a client without one uses tokens.
            tls?.certificateVerification = .optionalVerification
            tls?.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authorityPath))
            tls?.sendCANameList = true
        }
    }
    let limits = configuration.limits
    let connections = ConnectionLimit(maximum: limits.connections, logger: logger)
    let server = HTTPServerBuilder { [tls] responder in
        try PortChannel(
            responder: responder, tlsConfiguration: tls, limits: limits, connections: connections, provider: provider, senderRoutes: senderRoutes,
            servesAcceptRoute: configuration.benchmarkRoutes)
    }
    var application = Application(
        router: router, server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Huddle"),
        onServerRunning: { _ in await onListening() }, eventLoopGroupProvider: .shared(eventLoopGroup), logger: logger)
    application.addServices(StreamHeartbeat(interval: configuration.heartbeatInterval, beats: [centers.heartbeat, requestLog.heartbeat]))
    application.addServices(MemoryReturn(connections: connections))
    application.addServices(SummaryDelivery(centers: centers, clock: configuration.clock, logger: logger))
    application.addServices(ReceiptRetention(store: store, clock: configuration.clock, logger: logger))
    if let notices = store.noticesFromOtherServers() {
        application.addServices(DeviceCentersService(centers: centers, notices: notices, logger: logger))
    }
    return application
}

extension SenderRequestLog {
    /// The history the server's limits allow.
    convenience init(configuration: ServerConfiguration) {
        self.init(configuration: .init(
            maximumRecords: configuration.limits.requestHistory, maximumBytes: configuration.limits.requestHistoryBytes))
    }
}

/// The routes, without a server: what `app.test(.router)` exercises.
public func buildRouter(
    configuration: ServerConfiguration, store: some NotificationStore, metrics: PrometheusCollectorRegistry
) -> Router<HuddleRequestContext> {
    buildRouter(
        configuration: configuration, store: store,
        centers: DeviceCenters(store: store, notificationsPerApp: configuration.limits.notificationsPerApp, clock: configuration.clock),
        requestLog: SenderRequestLog(configuration: configuration), metrics: metrics
    ).router
}

func buildRouter(
    configuration: ServerConfiguration, store: some NotificationStore, centers: DeviceCenters, requestLog: SenderRequestLog,
    metrics: PrometheusCollectorRegistry
) -> (router: Router<HuddleRequestContext>, provider: ProviderEndpoint, senderRoutes: [any SenderRoute]) {
    let router = Router(context: HuddleRequestContext.self)
    router.add(middleware: HTTPErrorMiddleware())
    let keys = SigningKeyCache(store: store)
    let streamSlots = StreamSlots(maximumPerDevice: configuration.limits.streamsPerDevice, maximum: configuration.limits.streams)
    let faults = SenderFaults()
    // Also answers HTTP/2 pushes on their streams, without the router (PortHTTP2Connection).
    let siteHosts = AllowedHosts(publicHosts: configuration.publicHosts, listeningHost: configuration.host)
    let appleHosts = APNsEnvironment.allCases.flatMap { [$0.host, $0.channelHost] }
    let provider = ProviderEndpoint(
        centers: centers, store: store, keys: keys,
        requiresProviderToken: !configuration.developmentMode,
        uncheckedRequestHosts: AllowedHosts(publicHosts: configuration.publicHosts + appleHosts, listeningHost: configuration.host),
        servesCheckOnlyRoute: configuration.benchmarkRoutes,
        intake: SenderIntake(
            log: requestLog, tls: configuration.servesTLS, counterLabel: ProviderEndpoint.counterLabel, refusalDimension: "reason",
            acceptedCounter: { ProviderEndpoint.acceptedCounter }, clock: configuration.clock),
        faults: faults, readsClientCertificates: configuration.clientCertificateAuthorityPath != nil, clock: configuration.clock)
    router.add(middleware: provider)
    router.add(middleware: BroadcastEndpoint(provider: provider, maximumChannelsPerApp: configuration.limits.channelsPerApp))
    let serviceAccounts = ServiceAccountCache(store: store)
    let firebaseRecipients = FirebaseRecipients(centers: centers, store: store)
    let fcm = FCMEndpoint(
        centers: centers, store: store,
        authentication: FCMAuthentication(accounts: serviceAccounts, requiresToken: !configuration.developmentMode, hosts: siteHosts),
        recipients: firebaseRecipients,
        intake: SenderIntake(
            log: requestLog, tls: configuration.servesTLS, counterLabel: FCMEndpoint.counterLabel, refusalDimension: "error",
            acceptedCounter: { FCMEndpoint.acceptedCounter }, clock: configuration.clock),
        faults: faults, clock: configuration.clock)
    router.add(middleware: fcm)
    let webPushDelivery = WebPushDelivery(centers: centers, maximumApps: configuration.limits.appsPerDevice, clock: configuration.clock)
    let webPush = WebPushEndpoint(
        delivery: webPushDelivery, store: store,
        intake: SenderIntake(
            log: requestLog, tls: configuration.servesTLS, counterLabel: WebPushEndpoint.counterLabel, refusalDimension: "reason",
            acceptedCounter: { WebPushEndpoint.acceptedCounter }, clock: configuration.clock),
        faults: faults, tls: configuration.servesTLS, clock: configuration.clock)
    router.add(middleware: webPush)
    router.add(middleware: ExpoEndpoint(
        centers: centers, store: store, recipients: firebaseRecipients,
        intake: SenderIntake(
            log: requestLog, tls: configuration.servesTLS, counterLabel: ExpoEndpoint.counterLabel, refusalDimension: "error",
            acceptedCounter: { ExpoEndpoint.acceptedCounter }, clock: configuration.clock),
        faults: faults, accessToken: configuration.expoAccessToken, clock: configuration.clock))
    // After the provider endpoint, which answers APNs clients whatever host and origin they name.
    let formTokens = FormTokens(secureCookies: configuration.servesTLS)
    router.add(middleware: SiteGuard(hosts: siteHosts, formTokens: formTokens))
    let attempts = SignInAttempts()
    let admin = AdminAccess(token: configuration.adminToken, attempts: attempts)
    InspectorController(
        log: requestLog, pages: .shared, centers: centers, access: admin, slots: streamSlots, clock: configuration.clock
    ).addRoutes(to: router)
    DeviceController(
        centers: centers, store: store, clock: configuration.clock, registrationToken: configuration.registrationToken,
        attempts: attempts, limits: configuration.limits, slots: streamSlots
    ).addRoutes(to: router)
    StreamController(
        centers: centers, store: store, slots: streamSlots, bufferBytes: configuration.limits.streamBufferBytes
    ).addRoutes(to: router)
    WebController(
        centers: centers, store: store, pages: .shared, secureCookies: configuration.servesTLS,
        developmentMode: configuration.developmentMode, listeningAddress: configuration.listeningAddress, formTokens: formTokens,
        clock: configuration.clock
    ).addRoutes(to: router)
    HomeController(store: store, centers: centers, pages: .shared, configuration: configuration, admin: admin, formTokens: formTokens).addRoutes(to: router)
    AdminController(
        store: store, centers: centers, keys: keys, serviceAccounts: serviceAccounts, access: admin, clock: configuration.clock
    ).addRoutes(to: router)
    WebPushSubscriptionController(
        centers: centers, store: store, maximumApps: configuration.limits.appsPerDevice, delivery: webPushDelivery, tls: configuration.servesTLS,
        clock: configuration.clock
    ).addRoutes(to: router)
    FaultController(faults: faults, access: admin, clock: configuration.clock).addRoutes(to: router)
    router.get("/metrics") { request, context in
        if let token = configuration.metricsToken,
            try await !attempts.verify(Secrets.bearer(request), is: token, kind: .metrics, client: context.clientAddress)
        {
            throw APIError(.unauthorized, "the metrics need the metrics token: send Authorization: Bearer <token>")
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
    }
    router.get("/health") { _, _ in Response.json(["status": "ok"]) }
    // Read once: every answer shares the one buffer, so that answers a client leaves unread hold no copy of it.
    let openAPIDocument = Bundle.module.url(forResource: "openapi", withExtension: "yaml").flatMap { try? Data(contentsOf: $0) }
        .map { ByteBuffer(bytes: $0) }
    router.get("/openapi.yaml") { _, _ in
        guard let openAPIDocument else { throw APIError(.notFound, "the OpenAPI document is missing from this build") }
        return Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: openAPIDocument))
    }
    if configuration.benchmarkRoutes {
        // Over HTTP/1.1; SenderStreams answers it over HTTP/2.
        router.post("/bench/accept") { request, context in
            _ = try await request.collectBody(limit: 5120)
            SenderAccepted.tell(context)
            return Response(status: .ok, headers: [.apnsID: UUID.timeOrderedLowercasedString(at: Date())])
        }
    }
    // Each sender's message route, which the port's transport answers itself (SenderRoutes).
    return (router, provider, [FCMSendRoute(endpoint: fcm), webPush])
}

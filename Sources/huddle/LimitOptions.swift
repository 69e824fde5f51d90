import ArgumentParser
import HuddleServer

/// The limits of ``ServerConfiguration/Limits``, as options.
struct LimitOptions: ParsableArguments {
    @Option(help: "Open connections in all.")
    var maxConnections = ServerConfiguration.Limits().connections

    @Option(help: "Seconds a request has to arrive whole (a total, from its first byte); also how long an HTTP/1.1 connection may send nothing between requests.")
    var requestTimeout = Int(ServerConfiguration.Limits().requestTimeout.components.seconds)

    @Option(
        name: [.customLong("write-timeout"), .customLong("stream-write-timeout")],
        help: "Seconds one write of an answer (a live stream's event included) may wait for its client to take it before its HTTP/2 stream is reset or its HTTP/1.1 connection closed.")
    var writeTimeout = Int(ServerConfiguration.Limits().writeTimeout.components.seconds)

    @Option(help: "Bytes of answers one HTTP/2 connection may hold for a client that does not read them.")
    var maxHeldAnswerBytes = ServerConfiguration.Limits().heldAnswerBytesPerConnection

    @Option(help: "Seconds an HTTP/2 connection may stay open with no request under way, once it has finished one.")
    var idleTimeout = Int(ServerConfiguration.Limits().connectionIdleTimeout.components.seconds)

    @Option(help: "Open live streams of one device.")
    var maxStreamsPerDevice = ServerConfiguration.Limits().streamsPerDevice

    @Option(help: "Open live streams in all.")
    var maxStreams = ServerConfiguration.Limits().streams

    @Option(help: "Bytes of events a live stream may have waiting before it is closed (its client resumes).")
    var streamBufferBytes = ServerConfiguration.Limits().streamBufferBytes

    @Option(help: "Devices the server keeps.")
    var maxDevices = ServerConfiguration.Limits().devices

    @Option(help: "Apps one device may install.")
    var maxAppsPerDevice = ServerConfiguration.Limits().appsPerDevice

    @Option(help: "Broadcast channels one app may have in each environment (Apple: 10,000).")
    var maxChannelsPerApp = ServerConfiguration.Limits().channelsPerApp

    @Option(help: "Notifications one app keeps on a device; past that, its first delivered are removed.")
    var maxNotificationsPerApp = ServerConfiguration.Limits().notificationsPerApp

    @Option(help: "Bytes of localization files one app may upload in all.")
    var maxLocalizationBytes = ServerConfiguration.Limits().localizationBytesPerApp

    @Option(help: "Provider requests the request inspector keeps (/requests, /v1/admin/requests).")
    var requestHistory = ServerConfiguration.Limits().requestHistory

    @Option(help: "Bytes of provider requests the request inspector keeps.")
    var requestHistoryBytes = ServerConfiguration.Limits().requestHistoryBytes

    func validate() throws {
        let values = [
            maxConnections, requestTimeout, writeTimeout, maxHeldAnswerBytes, idleTimeout, maxStreamsPerDevice, maxStreams, streamBufferBytes, maxDevices,
            maxAppsPerDevice, maxChannelsPerApp, maxNotificationsPerApp, maxLocalizationBytes, requestHistory, requestHistoryBytes,
        ]
        guard values.allSatisfy({ $0 > 0 }) else { throw ValidationError("every limit must be a positive number") }
    }

    var limits: ServerConfiguration.Limits {
        var limits = ServerConfiguration.Limits()
        limits.connections = maxConnections
        limits.requestTimeout = .seconds(requestTimeout)
        limits.writeTimeout = .seconds(writeTimeout)
        limits.heldAnswerBytesPerConnection = maxHeldAnswerBytes
        limits.connectionIdleTimeout = .seconds(idleTimeout)
        limits.streamsPerDevice = maxStreamsPerDevice
        limits.streams = maxStreams
        limits.streamBufferBytes = streamBufferBytes
        limits.devices = maxDevices
        limits.appsPerDevice = maxAppsPerDevice
        limits.channelsPerApp = maxChannelsPerApp
        limits.notificationsPerApp = maxNotificationsPerApp
        limits.localizationBytesPerApp = maxLocalizationBytes
        limits.requestHistory = requestHistory
        limits.requestHistoryBytes = requestHistoryBytes
        return limits
    }
}

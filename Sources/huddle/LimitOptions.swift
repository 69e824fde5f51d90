import ArgumentParser
import HuddleServer

/// The limits of ``ServerConfiguration/Limits``, as options.
struct LimitOptions: ParsableArguments {
    @Option(help: "Open connections in all.")
    var maxConnections = ServerConfiguration.Limits().connections

    @Option(help: "Seconds an HTTP/1.1 connection may send nothing (to finish its headers, or between requests).")
    var requestTimeout = Int(ServerConfiguration.Limits().requestIdleTimeout.components.seconds)

    @Option(help: "Seconds an HTTP/2 connection may stay open with no request under way, once it has finished one.")
    var idleTimeout = Int(ServerConfiguration.Limits().connectionIdleTimeout.components.seconds)

    @Option(help: "Open live streams of one device.")
    var maxStreamsPerDevice = ServerConfiguration.Limits().streamsPerDevice

    @Option(help: "Open live streams in all.")
    var maxStreams = ServerConfiguration.Limits().streams

    @Option(help: "Bytes of events a live stream may have waiting before it is closed (its client resumes).")
    var streamBufferBytes = ServerConfiguration.Limits().streamBufferBytes

    @Option(help: "Seconds one write to a live stream may wait for its client to read before the connection is closed.")
    var streamWriteTimeout = Int(ServerConfiguration.Limits().streamWriteTimeout.components.seconds)

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
            maxConnections, requestTimeout, idleTimeout, maxStreamsPerDevice, maxStreams, streamBufferBytes, streamWriteTimeout, maxDevices,
            maxAppsPerDevice, maxChannelsPerApp, maxNotificationsPerApp, maxLocalizationBytes, requestHistory, requestHistoryBytes,
        ]
        guard values.allSatisfy({ $0 > 0 }) else { throw ValidationError("every limit must be a positive number") }
    }

    var limits: ServerConfiguration.Limits {
        var limits = ServerConfiguration.Limits()
        limits.connections = maxConnections
        limits.requestIdleTimeout = .seconds(requestTimeout)
        limits.connectionIdleTimeout = .seconds(idleTimeout)
        limits.streamsPerDevice = maxStreamsPerDevice
        limits.streams = maxStreams
        limits.streamBufferBytes = streamBufferBytes
        limits.streamWriteTimeout = .seconds(streamWriteTimeout)
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

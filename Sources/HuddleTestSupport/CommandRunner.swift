public import Foundation

/// Runs the built `huddle` executable (or any program) and captures what it printed.
public struct CommandRunner: Sendable {
    public struct Output: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    public let executable: URL

    public init(executable: URL) {
        self.executable = executable
    }

    /// The `huddle` executable that `swift build` put beside the test bundle.
    public static func huddle() throws -> CommandRunner {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("huddle")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return CommandRunner(executable: candidate) }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "huddle next to \(testBinary.path); build it with swift build"])
    }

    /// Runs to completion; output goes through files so a chatty program cannot fill a pipe and stall.
    ///
    /// Waits for the program without holding a thread: tests run on the few threads of Swift's cooperative
    /// pool (two on a two-core machine), and two tests blocked in `waitUntilExit()` would stall every other
    /// test, including any the programs they wait for depend on.
    public func run(_ arguments: [String], currentDirectory: URL? = nil, environment: [String: String] = [:]) async throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let (exited, exit) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exit.finish() }
        try process.run()
        for await _ in exited {}
        try out.close()
        try err.close()
        return Output(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

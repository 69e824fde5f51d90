import ArgumentParser
import AsyncHTTPClient
import Foundation
import HuddleCore
import NIOCore
import NIOPosix

/// Why a command could not do its work, in words a user can act on, and the exit status that tells scripts
/// which kind of failure it was (sysexits.h; `huddle --help` lists them).
struct CommandFailure: Error, CustomStringConvertible {
    enum Kind {
        /// The server answered, and refused (a push's reason, a wrong admin token): 1.
        case refused
        /// The input is there but wrong (a payload or key that cannot be read as one): 65, EX_DATAERR.
        case badInput
        /// A file named on the command line is missing or cannot be read: 66, EX_NOINPUT.
        case missingInput
        /// A server that cannot be reached, or a port that cannot be listened on: 69, EX_UNAVAILABLE.
        case unavailable
        /// A file the command makes cannot be written: 73, EX_CANTCREAT.
        case cannotWrite

        var exitCode: ExitCode {
            switch self {
            case .refused: ExitCode(1)
            case .badInput: ExitCode(65)
            case .missingInput: ExitCode(66)
            case .unavailable: ExitCode(69)
            case .cannotWrite: ExitCode(73)
            }
        }
    }

    var kind: Kind
    var description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    var exitCode: ExitCode { kind.exitCode }

    /// The exit statuses, for `huddle --help`.
    static let exitStatuses = """
        Exit status: 0 done; 1 the server refused (a push's reason, a wrong token); 64 a wrong command line; \
        65 input that cannot be read as what it should be (a payload, a key); 66 a file that is missing or \
        unreadable; 69 a server that cannot be reached, or a port that cannot be listened on; 73 a file that \
        cannot be written.
        """

    /// A file's bytes, or a failure that names the file and says what is wrong in plain words.
    static func contents(of path: String, what: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            throw CommandFailure(.missingInput, "\(what) \(path): no such file")
        } catch let error as CocoaError where error.code == .fileReadNoPermission {
            throw CommandFailure(.missingInput, "\(what) \(path): not allowed to read it")
        } catch {
            throw CommandFailure(.missingInput, "\(what) \(path): cannot be read (\(error.localizedDescription))")
        }
    }

    /// A file's text (UTF-8), as ``contents(of:what:)`` reads it.
    static func text(of path: String, what: String) throws -> String {
        guard let text = String(data: try contents(of: path, what: what), encoding: .utf8) else {
            throw CommandFailure(.badInput, "\(what) \(path): not UTF-8 text")
        }
        return text
    }

    /// What a store's error means to a command's user: a database that cannot be reached (69), one written
    /// by a newer Huddle or damaged (65), a file that cannot be opened (66).
    static func store(_ error: any Error, at name: String) -> CommandFailure {
        switch error {
        case let error as StoreError where error.code == .unavailable: CommandFailure(.unavailable, "\(name): \(error.message)")
        case let error as StoreError: CommandFailure(.badInput, "\(name): \(error.message)")
        default: CommandFailure(.missingInput, "\(name): cannot be opened as a database (\(error))")
        }
    }

    /// The failure of a request to `url` that got no answer: the server is not there, or did not answer.
    static func unreachable(_ url: String, _ error: any Error) -> CommandFailure {
        let reason = switch error {
        case let error as HTTPClientError where error == .connectTimeout || error == .deadlineExceeded: "no answer in time"
        case is NIOConnectionError: "nothing answers there (is the server running, on that port?)"
        case let error as IOError where error.errnoCode == ECONNREFUSED: "the connection was refused (is the server running, on that port?)"
        default: "\(error)"
        }
        return CommandFailure(.unavailable, "\(url): \(reason)")
    }
}

extension AsyncParsableCommand {
    /// Runs a command's work, turning a ``CommandFailure`` into its message on standard error and its exit
    /// status (instead of ArgumentParser's usage text, which is for a wrong command line).
    /// - Parameter name: the command as typed after `huddle` (a subcommand's includes its parent's).
    func reportingFailures(as name: String = Self._commandName, _ work: () async throws -> Void) async throws {
        do {
            try await work()
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("huddle \(name): \(failure.description)\n".utf8))
            throw failure.exitCode
        }
    }
}

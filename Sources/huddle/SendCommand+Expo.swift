import ArgumentParser
import AsyncHTTPClient
import Foundation
import HuddleCore
import HuddleExpo
import NIOCore
import NIOHTTP1

extension SendCommand {
    /// Expo messages as Expo's SDKs send them: the file's message or array, checked as Expo's API reads it, posted to
    /// `push/send`; the status and the tickets printed.
    func sendExpo() async throws {
        let body = payload == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try CommandFailure.contents(of: payload, what: "the messages")
        do {
            _ = try ExpoPushRequest(json: try JSONParser.parse(body))
        } catch let error as JSONParseError {
            throw CommandFailure(.badInput, "not JSON: \(error)")
        } catch let error as ExpoRequestError {
            throw CommandFailure(.badInput, "Expo's push API would refuse this: \(error)")
        }
        let address = url.trimmingSuffix("/") + "/--/api/v2/push/send"
        var request = HTTPClientRequest(url: address)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "accept", value: "application/json")
        if let expoAccessToken { request.headers.add(name: "authorization", value: "Bearer \(expoAccessToken)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        let (response, responseBody) = try await execute(request, at: address)
        let text = String(buffer: responseBody).trimmingCharacters(in: .whitespacesAndNewlines)
        print("\(response.status.code) \(text)")
        // Every ticket ok: an error ticket is a refusal as much as a refused request is.
        guard response.status.code == 200, let answer = try? JSONParser.parse(responseBody.readableBytesView), let data = answer["data"] else { throw ExitCode(1) }
        let tickets: [JSONValue] = if case .array(let tickets) = data { tickets } else { [data] }
        if tickets.contains(where: { $0["status"] != .string("ok") }) { throw ExitCode(1) }
    }
}

import Foundation
import HuddleCore
import Hummingbird

/// `/v1/admin/faults`: failures on demand for the provider endpoint, behind the admin token. Each server
/// holds its own (they are test set-up, not stored data): with several servers behind one address, set them
/// on each.
struct FaultController {
    let faults: SenderFaults
    let access: AdminAccess
    let clock: @Sendable () -> Date

    func addRoutes(to router: Router<HuddleRequestContext>) {
        let group = router.group("/v1/admin/faults")
        group.get(use: list)
        group.post(use: add)
        group.delete(use: removeAll)
        group.delete(":id", use: remove)
    }

    /// Adds a fault (``SenderFault/init(id:json:now:)``): 201 with the fault as it is kept.
    @Sendable func add(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        let body = try await request.jsonBody(limit: 4096)
        let now = clock()
        let fault = try faults.add { id throws(JSONReadError) in try SenderFault(id: id, json: body, now: now) }
        return .json(fault.json, status: .created)
    }

    /// `{"faults": [...]}`, oldest first: the order pushes are matched in.
    @Sendable func list(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        return .json(["faults": .array(faults.all.map(\.json))])
    }

    @Sendable func remove(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        guard let id = Int(try context.parameters.require("id")), faults.remove(id: id) else {
            throw APIError(.notFound, "no such fault")
        }
        return Response(status: .noContent)
    }

    /// Removes every fault: `{"removed": <count>}`.
    @Sendable func removeAll(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        try await access.authorize(request, context: context, acceptingCookie: false)
        return .json(["removed": .integer(Int64(faults.removeAll()))])
    }
}

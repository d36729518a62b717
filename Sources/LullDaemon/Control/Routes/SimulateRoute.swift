import Foundation
import LullAPI
import LullCore
import NIOFoundationCompat

/// `POST /v1/simulate`: what the scheduler would do in a world that differs from this one.
extension ControlRouter {
    func simulate(_ request: ControlRequest) async throws -> ControlResponse {
        try checkQuery(request, allowed: ["limit"])
        let body = request.body.readableBytes == 0 ? Data("{}".utf8) : Data(buffer: request.body)
        let hypothesis = try WireDecoding.decode(SimulateRequest.self, from: body)
        if let battery = hypothesis.battery, !(0...100).contains(battery) {
            throw ValidationError(.invalidValue, field: "battery", "battery must be a percentage from 0 to 100")
        }
        let limit = Int(try integer(request.query["limit"], field: "limit", range: 1...1000) ?? 100)
        let world = hypothesis.applied(to: await dispatcher.currentWorld)
        // Everyone's jobs compete in the simulation; a uid is shown only its own.
        let owner = request.peer.isAdmin ? nil : request.peer.owner
        let simulation = await dispatcher.simulate(world, explainLimit: limit, owner: owner)
        let wouldStart = simulation.decision.start.filter { owner == nil || $0.owner == owner }.map(\.id.rawValue)
        let waiting = simulation.waiting.map {
            SimulationView.Waiting(jobId: $0.id.rawValue, reasons: $0.reasons.map(WaitingReasonView.init))
        }
        return .encode(
            .ok,
            SimulationView(
                world: WorldView(world),
                wouldStart: wouldStart,
                waiting: waiting,
                waitingCount: simulation.waitingCount
            )
        )
    }
}

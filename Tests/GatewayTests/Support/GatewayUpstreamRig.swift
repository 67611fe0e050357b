import Foundation
import GatewayApp
import Gradebook
import GradebookTestSupport
import HTTPClient
import TestSupport

/// The whole application against the gradebook simulator as a separate process over HTTPS
/// (``UpstreamSimulator``): a gateway trusting its certificate, and source 7 pointing at it.
/// (The Gradebook module alone against the same upstream: GradebookTests' GradebookUpstreamTests.)
final class GatewayUpstreamRig: @unchecked Sendable {
    let simulator: UpstreamSimulator
    let gateway: TestGateway

    init(timeoutSeconds: Int = 2, configure: (inout GatewayConfiguration) -> Void = { _ in }) async throws {
        simulator = try await UpstreamSimulator.started()
        let ca = simulator.caFile
        gateway = try TestGateway { config in
            config.gradebookCAFile = ca
            config.gradebookTimeoutSeconds = timeoutSeconds
            config.environment = [:]
            configure(&config)
        }
        _ = try await gateway.app.gradebookSources.put(GradebookSource(
            id: 7, name: "HTTPS simulator", baseURL: simulator.gradesURL, requestsPerMinute: 60_000, development: true
        ))
    }

    func stop() {
        simulator.stop()
        gateway.cleanUp()
    }

    func fault(_ json: String) async throws { try await simulator.fault(json) }

    func upstream(_ path: String) async throws -> OutboundResponse { try await simulator.upstream(path) }
}

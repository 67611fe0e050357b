import Foundation
import GradebookSimulator
import GradebookTestSupport
import HTTPClient
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

/// An upstream that answers a page with a script (compromised, or reflecting what it was sent)
/// is never served as a page of the gateway's origin: the compatibility routes declare their
/// own types, and every answer forbids sniffing and scripts.
@Suite("Gradebook proxy against a hostile upstream", .serialized)
struct GradebookHostileUpstreamTests {
    @Test func upstreamHTMLIsNeverServedAsHTML() async throws {
        let rig = try await GatewayUpstreamRig()
        defer { rig.stop() }
        try await rig.fault(#"{"mode": "html"}"#)
        let direct = try await rig.upstream("/grades.json?record=sections")
        #expect(direct.headers.values(for: "Content-Type").first?.hasPrefix("text/html") == true, "the fault is in place")
        try await rig.gateway.withLiveServer { client in
            for (path, type) in [("/gradebook/7/grades.json?record=sections", "application/json"), ("/gradebook/7/auth.txt", "text/plain")] {
                let reply = try await client.execute(uri: path, method: .get, headers: UpstreamSimulator.basic("test")) { $0 }
                // Records that aren't JSON are an upstream failure; the probe's bytes pass
                // through. Either way the page is not served as a page.
                let body = String(buffer: reply.body)
                #expect(reply.status == .ok || reply.status == .badGateway, "\(path)")
                #expect(body == FaultApplierPage.text || !body.contains("<script"), "\(path)")
                #expect(reply.headers[.contentType] == type, "\(path)")
                #expect(reply.headers[.xContentTypeOptions] == "nosniff", "\(path)")
                #expect(reply.headers[.contentSecurityPolicy] == ResponseHeaderTests.sandbox, "\(path)")
            }
        }
    }
}

/// The page the simulator's `html` fault answers.
enum FaultApplierPage {
    static let text = "<!doctype html><html><body><script>document.title = 'owned'</script></body></html>\n"
}

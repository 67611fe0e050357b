public import Hummingbird

/// A Cal Poly gradebook server (`docs/gradebook-simulator.md`, the protocol in
/// `GRADEBOOK_PROTOCOL.md`) for demos and tests, mountable on any Hummingbird router.
///
/// Mounted at `prefix` it serves `<prefix>/grades.json`, `<prefix>/auth.txt`,
/// `<prefix>/file_download` and, with an admin token, `<prefix>/_admin/…`. Copies share one
/// state (data, fault, request counts), so a test can keep a copy to look at what a mounted one saw.
public struct GradebookSimulator: Sendable {
    let state: SimulatorState
    /// The bearer token of the admin routes; nil: they are not mounted (404).
    public let adminToken: String?

    /// A simulator serving `data` (by default the fixed demo data set).
    /// - Parameters:
    ///   - data: What it serves; ``reset()`` and `POST _admin/reset` come back to it.
    ///   - adminToken: With a value, the `_admin` routes answer requests bearing
    ///     `Authorization: Bearer <adminToken>`; without one they are not there.
    public init(data: SimulatorData = .demo, adminToken: String?) {
        state = SimulatorState(data: data)
        self.adminToken = adminToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Adds the simulator's routes to `router` under `prefix` (for example "sim/gradebook": the
    /// base URL is then `/sim/gradebook/grades.json`; "" mounts them at the root).
    /// Leading and trailing slashes of `prefix` are ignored.
    public func register<Context: RequestContext>(on router: some RouterMethods<Context>, prefix: String) {
        let prefix = Self.normalized(prefix)
        let group = router.group(RouterPath(prefix))
        let handlers = ProtocolHandlers(state: state, links: FileLinks(prefix: prefix))
        group.get("grades.json") { request, _ in try await handlers.grades(request) }
        group.get("auth.txt") { request, _ in try await handlers.probe(request) }
        group.get("file_download") { request, _ in handlers.download(request) }
        if let adminToken {
            AdminRoutes(state: state, links: handlers.links).register(on: group.group("_admin"), token: adminToken)
        }
    }

    /// "/sim/gradebook/" → "sim/gradebook".
    static func normalized(_ prefix: String) -> String {
        prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    // MARK: In-process control (what the admin routes do, without HTTP)

    /// The data served now.
    public var data: SimulatorData { state.data }

    /// Changes the data served (for example to add a section in a test).
    public func update(_ change: (inout SimulatorData) -> Void) {
        state.update { change(&$0) }
    }

    /// The fault applied to the next protocol requests.
    public var fault: SimulatorFault { state.fault }

    /// Makes the next protocol requests misbehave (``SimulatorFault/none`` stops it).
    public func setFault(_ fault: SimulatorFault) {
        state.setFault(fault)
    }

    /// Protocol requests received since start or the last ``reset()``.
    public var requestCounts: SimulatorRequestCounts { state.counts }

    /// Restores the data given at init, clears the fault and the request counts.
    public func reset() {
        state.reset()
    }
}

import HummingbirdTesting
import Contracts
import TestSupport
import GatewayHTTP
import GatewayApp
import Foundation
import GatewayCore
import Hummingbird
import Testing

@Suite("Every route declares who may call it")
struct RouteGuardTests {
    @Test func everyRegisteredRouteIsExplicitlyPublicOrGuarded() throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        let router = gateway.app.makeRouter()
        let declared = Dictionary(
            gateway.app.routes.all.map { ("\($0.method) \($0.path)", $0.access) }, uniquingKeysWith: { a, _ in a }
        )
        let actual = router.routes.map { "\($0.method.rawValue) \($0.path.description)" }
        #expect(!actual.isEmpty)
        for route in actual {
            #expect(declared[route] != nil, "route \(route) was added without a declared access level")
        }
        #expect(Set(actual) == Set(declared.keys))
    }

    @Test func adminRoutesAreGuardedByTheAdminRole() throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        _ = gateway.app.makeRouter()
        // The admin role, or the console's access (admins, and operators for the job system).
        let console = [RouteAccess.console(.read).description, RouteAccess.console(.act).description]
        for entry in gateway.app.routes.all where entry.path.hasPrefix("/v1/admin") {
            #expect(entry.access == RouteAccess.role(.admin).description || console.contains(entry.access), "\(entry.method) \(entry.path)")
        }
        for entry in gateway.app.routes.all where entry.path.hasPrefix("/v1/me") {
            #expect(entry.access != RouteAccess.public.description, "\(entry.method) \(entry.path)")
        }
    }

    @Test func accessLevelsAdmitTheRightRoles() {
        let student = Identity(accountID: 1, username: "s", role: .student)
        let admin = Identity(accountID: 2, username: "a", role: .admin)
        #expect(RouteAccess.public.admits(nil))
        #expect(!RouteAccess.authenticated.admits(nil))
        #expect(RouteAccess.authenticated.admits(student))
        #expect(!RouteAccess.role(.instructor).admits(student))
        #expect(RouteAccess.role(.instructor).admits(admin))
        #expect(RouteAccess.role(.admin).admits(admin))
        let op = Identity(accountID: 3, username: "o", role: .operator)
        #expect(!RouteAccess.role(.instructor).admits(op) && !RouteAccess.role(.admin).admits(op))
        #expect(RouteAccess.role(.student).admits(op))
        #expect(RouteAccess.console(.read).admits(op) && !RouteAccess.console(.act).admits(op))
        #expect(RouteAccess.console(.act).admits(op, operatorCanAct: true))
        #expect(RouteAccess.console(.act).admits(admin) && RouteAccess.console(.read).admits(admin))
        #expect(!RouteAccess.console(.read).admits(student) && !RouteAccess.console(.act).admits(student, operatorCanAct: true))
    }

    /// Every guarded route, called for real: without credentials it answers 401, and with a
    /// token whose role is too low it answers 403, before any handler runs. Admin GETs pass
    /// the guard.
    @Test func everyGuardedRouteRefusesTheWrongCallerOverRealRequests() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        let student = try await gateway.account("stu", role: .student)
        let instructor = try await gateway.account("ins", role: .instructor)
        let admin = try await gateway.account("adm", role: .admin)
        _ = gateway.app.makeRouter()
        let entries = gateway.app.routes.all.filter { $0.access != RouteAccess.public.description }
        #expect(entries.count > 20)
        try await gateway.withRouter { client async throws in
            for entry in entries {
                let method = HTTPRequest.Method(entry.method)!
                let path = entry.path.split(separator: "/").map { $0.hasPrefix(":") ? "1" : String($0) }.joined(separator: "/")
                let uri = "/" + path
                let body: String? = [.post, .put, .patch].contains(method) ? "{}" : nil
                let anonymous = try await client.json(method, uri, body: body)
                #expect(anonymous.status == .unauthorized, "\(entry.method) \(uri) anonymous: \(anonymous.status)")
                let minimum = entry.access
                let console = minimum.hasPrefix("console-")
                if minimum == RouteAccess.role(.admin).description || minimum == RouteAccess.role(.instructor).description || console {
                    let asStudent = try await client.json(method, uri, body: body, token: student)
                    #expect(asStudent.status == .forbidden, "\(entry.method) \(uri) as a student: \(asStudent.status)")
                }
                if minimum == RouteAccess.role(.admin).description || console {
                    let asInstructor = try await client.json(method, uri, body: body, token: instructor)
                    #expect(asInstructor.status == .forbidden, "\(entry.method) \(uri) as an instructor: \(asInstructor.status)")
                }
                if method == .get {
                    let asAdmin = try await client.json(method, uri, token: admin)
                    #expect(asAdmin.status != .unauthorized && asAdmin.status != .forbidden, "\(entry.method) \(uri) as an admin: \(asAdmin.status)")
                }
            }
        }
    }
}

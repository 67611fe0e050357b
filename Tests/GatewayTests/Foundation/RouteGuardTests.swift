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
        for entry in gateway.app.routes.all where entry.path.hasPrefix("/v1/admin") {
            #expect(entry.access == RouteAccess.role(.admin).description, "\(entry.method) \(entry.path)")
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
    }
}

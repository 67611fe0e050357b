public import ModuleKit

/// A module that runs jobs: beside what every ``ModuleKit/GatewayModule`` hands over, its job
/// kinds, their handlers and its schedules. The composition root registers every module of
/// this kind in the one registry; a module that runs none (Web) conforms only to
/// `GatewayModule` and does not depend on Jobs.
public protocol JobRunningModule: GatewayModule {
    /// Registers the module's job kinds, their handlers, and its schedules.
    func register(in registry: JobRegistry) throws
}

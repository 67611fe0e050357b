import ArgumentParser

/// `gradebook-sim`: a Cal Poly gradebook server for demos and tests (docs/gradebook-simulator.md).
@main
struct GradebookSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gradebook-sim",
        abstract: "A Cal Poly gradebook server (grades.json, auth.txt) with demo data and faults.",
        subcommands: [ServeCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}

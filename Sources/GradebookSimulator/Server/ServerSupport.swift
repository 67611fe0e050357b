public import NIOCore

extension GradebookSimulator {
    /// The port a listening channel is bound to (0 when unknown): for `--port 0` and port files.
    public static func boundPort(of channel: any Channel) -> Int {
        channel.localAddress?.port ?? 0
    }

    /// The fixed logins of `data`, one line each, to print at start.
    public static func loginSummary(_ data: SimulatorData) -> [String] {
        data.accounts.map { account in
            let sees: String
            if account.role == .staff {
                sees = "every section, enrollment, user's scores and statistics"
            } else {
                let courses = data.sections
                    .filter { $0.enrollment(username: account.username) != nil }
                    .map { "\($0.term) \($0.dept) \($0.course)" }
                sees = "own scores in " + courses.joined(separator: ", ")
            }
            return "\(account.username) / \(account.password)  (\(account.role.rawValue): \(sees))"
        }
    }
}

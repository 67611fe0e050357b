/// A grade in a student's academic record, as registrars write them.
///
/// Letter grades rank A (best) to D- (the lowest passing letter) and F. `P`/`NP` are
/// pass/no pass, `W` a withdrawal, `I` incomplete and `IP` in progress (the term is not over).
public enum Grade: String, Sendable, Codable, CaseIterable {
    case a = "A", aMinus = "A-", bPlus = "B+", b = "B", bMinus = "B-", cPlus = "C+", c = "C", cMinus = "C-"
    case dPlus = "D+", d = "D", dMinus = "D-", f = "F", pass = "P", noPass = "NP", withdrawn = "W", incomplete = "I", inProgress = "IP"

    /// The letter grades from best to worst, D- the last that passes.
    public static let letters: [Grade] = [.a, .aMinus, .bPlus, .b, .bMinus, .cPlus, .c, .cMinus, .dPlus, .d, .dMinus]

    /// The rank of a letter grade (0 is A); nil for the others.
    public var letterRank: Int? { Self.letters.firstIndex(of: self) }

    /// Whether this grade meets a prerequisite's minimum (`minimum` nil: D- or better):
    /// - a letter meets a minimum it equals or betters;
    /// - `IP` meets any minimum (as Banner allows at registration; the class is checked again
    ///   when the grade posts);
    /// - `P` meets a minimum of C or lower;
    /// - `F`, `NP`, `W` and `I` never do.
    public func satisfies(minimum: Grade?) -> Bool {
        let floor = minimum ?? .dMinus
        switch self {
        case .inProgress: return true
        case .pass:
            guard let rank = floor.letterRank else { return false }
            return rank >= Grade.c.letterRank!
        case .f, .noPass, .withdrawn, .incomplete: return false
        default:
            guard let mine = letterRank, let needed = floor.letterRank else { return false }
            return mine <= needed
        }
    }
}

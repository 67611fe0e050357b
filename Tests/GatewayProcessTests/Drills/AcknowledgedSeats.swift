import Testing

extension CrashDrillSlowTests {
    /// Each student's last acknowledged answer per class against what the database holds
    /// (`[student, class]` pairs): enrolled, waitlisted or gone as told; unknown pairs (the last
    /// request went unanswered) either way. Most pairs must be known, and no student may hold
    /// more than the class limit. Both crash drills check their databases with it.
    /// Returns how many pairs' final state was known.
    @discardableResult
    static func expectAcknowledged(
        _ models: [Int: [Int64: Seat]], enrolled: Set<[Int64]>, waitlisted: Set<[Int64]>, classes: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Int {
        var known = 0
        for (n, seats) in models {
            for (classID, seat) in seats {
                let pair = [Int64(n), classID]
                switch seat {
                case .enrolled:
                    #expect(enrolled.contains(pair), "student \(n) was told 'Course added' for \(classID) last, and isn't enrolled", sourceLocation: sourceLocation)
                case .waitlisted:
                    #expect(waitlisted.contains(pair), "student \(n) was told they were waitlisted for \(classID) last, and isn't", sourceLocation: sourceLocation)
                case .absent:
                    #expect(
                        !enrolled.contains(pair) && !waitlisted.contains(pair),
                        "student \(n) was told they left \(classID) last (or never joined), and is still in it", sourceLocation: sourceLocation
                    )
                case .unknown: break
                }
                if seat != .unknown { known += 1 }
            }
        }
        #expect(known >= students * classes / 2, "most pairs' final state is known: \(known)", sourceLocation: sourceLocation)
        for n in 0..<students {
            #expect(enrolled.filter { $0[0] == Int64(n) }.count <= 3, "student \(n) holds more than the class limit", sourceLocation: sourceLocation)
        }
        return known
    }
}

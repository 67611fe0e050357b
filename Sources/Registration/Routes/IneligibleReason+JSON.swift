import Foundation
import GatewayCore
import GatewayHTTP

extension IneligibleReason {
    /// The reason as v1 answers it: `rule`, `message`, and what would make the student
    /// eligible (the hold, the window's dates, the unmet part of a prerequisite...).
    func json(timeZone: TimeZone) -> ProblemValue {
        var object: [String: ProblemValue] = ["rule": .string(rule), "message": .string(message(timeZone: timeZone))]
        switch self {
        case .hold(let hold):
            var value: [String: ProblemValue] = ["id": .int(Int(hold.id)), "code": .string(hold.code), "reason": .string(hold.reason)]
            if let until = hold.until { value["until"] = .string(Self.timestamp(until)) }
            object["hold"] = .object(value)
        case .window(let opensAt, let closesAt, let closed):
            if let opensAt { object["opensAt"] = .string(Self.timestamp(opensAt)) }
            if let closesAt { object["closesAt"] = .string(Self.timestamp(closesAt)) }
            object["closed"] = .bool(closed)
        case .prerequisite(let missing): object["missing"] = Self.json(missing)
        case .corequisite(let missing): object["missing"] = .array(missing.map(ProblemValue.string))
        case .restriction(let kind, let allowed):
            object["restriction"] = .string(kind)
            object["allowed"] = .array(allowed.map(ProblemValue.string))
        case .maxUnits(let limit, let units):
            object["limit"] = .double(limit)
            object["units"] = .double(units)
        case .duplicateCourse(let classID, let course):
            object["classId"] = .int(Int(classID))
            object["course"] = .string(course)
        case .timeConflict(let classID): object["conflictingClassId"] = .int(Int(classID))
        case .classLimit(let limit): object["limit"] = .int(limit)
        case .classFull: break
        }
        return .object(object)
    }

    static func json(_ requisite: Requisite) -> ProblemValue {
        switch requisite {
        case .course(let course, let minimum):
            var value: [String: ProblemValue] = ["course": .string(course)]
            if let minimum { value["minGrade"] = .string(minimum.rawValue) }
            return .object(value)
        case .all(let members): return .object(["all": .array(members.map(json))])
        case .any(let members): return .object(["any": .array(members.map(json))])
        }
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601.string(from: date)
    }
}

extension RegistrationError {
    /// The v1 problem of an eligibility refusal: 409 `registration-ineligible`, every reason.
    static func ineligibleProblem(_ reasons: [IneligibleReason], timeZone: TimeZone) -> Problem {
        Problem(
            type: "registration-ineligible", title: "Not eligible to register", status: .conflict,
            detail: reasons.map { $0.message(timeZone: timeZone) }.joined(separator: "; ") + ".",
            extensions: ["reasons": .array(reasons.map { $0.json(timeZone: timeZone) })]
        )
    }

    /// The SDSU protocol's one message for an eligibility refusal: the first reason's, the
    /// registrar's own rules before the seed's (full, limit, conflict, in the seed's order), so
    /// the seed's strings stay what they were when they are all there is.
    static func sdsuMessage(_ reasons: [IneligibleReason], timeZone: TimeZone) -> String {
        let seedOrder = ["class-full", "class-limit", "time-conflict"]
        let first = reasons.first { !seedOrder.contains($0.rule) }
            ?? reasons.min { (seedOrder.firstIndex(of: $0.rule) ?? 9) < (seedOrder.firstIndex(of: $1.rule) ?? 9) }
        switch first {
        case .classFull?: return SDSUResponses.message(for: .violation(.classFull))
        case .classLimit(let limit)?: return SDSUResponses.message(for: .violation(.classLimit(limit: limit)))
        case .timeConflict(let classID)?: return SDSUResponses.message(for: .violation(.timeConflict(classID: classID)))
        case let reason?: return reason.message(timeZone: timeZone)
        case nil: return "Not eligible"
        }
    }
}

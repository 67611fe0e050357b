import Foundation

// The records exactly as the protocol spells them. Property names are camelCase and become
// snake_case through `WireJSON.encoder` (`firstDay` → `first_day`); flags are Ints (0/1);
// optional fields are left out when nil.

struct WireSection: Encodable {
    let id: Int
    let polynum: Int
    let term: Int
    let termname: String
    let dept: String
    let course: String
    let title: String
    let firstDay: Int
    let lastDay: Int
}

struct WireFile: Encodable {
    let id: Int
    let fileExtension: String
    let mimetype: String
    let url: String
}

struct WireEnrollment: Encodable {
    let id: Int
    let emplid: Int
    let role: Int
    let dropped: Int
    let adminFailure: Int
    let ferpa: Int
    let age: Int
    let emailLevel: Int
    let username: String
    let cscUsername: String
    let bbId: String
    let firstName: String
    let middleName: String
    let lastName: String
    let major: String
    let picture: WireFile
}

struct WirePermissions: Encodable {
    let id: Int
    let person: Int
    let visible: Int
    let viewFiles: Int
    let viewStats: Int
    let viewHistogram: Int
    let viewPermissions: Int
    let create: Int
    let change: Int
    let viewComputedBy: Int
}

struct WireScore: Encodable {
    let id: Int
    let score: Double
    let displayScore: DisplayScore
    let counts: Int
    let postDate: Int
    let feedback: WireFile?
    let studentWork: WireFile?
}

struct WireUserScore: Encodable {
    let id: Int
    let name: String
    let abbreviatedName: String
    let maxPoints: Int
    let extraCreditAllowed: Int
    let emailNotification: Int
    let sortOrder: Int
    let computeFunc: Int
    let displayType: Int
    let dueDate: Int?
    let permissions: WirePermissions
    let studentPermissions: WirePermissions?
    let scores: [WireScore]
}

struct WireAsnStats: Encodable {
    let id: Int
    let points: Double
    let minScore: Double
    let maxScore: Double
    let meanScore: Double
    let medianScore: Double
    let stdDev: Double
    let attempts: Int
    let uniqueStudents: Int
}

extension DisplayScore: Encodable {
    /// A string or a number, as the protocol allows.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        }
    }
}

/// The protocol's JSON encoding.
enum WireJSON {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func encode(_ value: some Encodable) throws -> Data {
        try encoder().encode(value)
    }
}

extension Bool {
    /// The protocol's 0/1 flag.
    var flag: Int { self ? 1 : 0 }
}

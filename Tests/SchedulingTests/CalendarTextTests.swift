import Foundation
import PropertyBased
import Scheduling
import Testing

/// Content-line text rules: escaping, folding at 75 octets, CRLF.
@Suite("Calendar text (RFC 5545 content lines)")
struct CalendarTextTests {
    @Test func escapingCoversBackslashSemicolonCommaAndLineBreaks() {
        #expect(ICalendarText.escape(#"a\b;c,d"#) == #"a\\b\;c\,d"#)
        #expect(ICalendarText.escape("one\ntwo\r\nthree\rfour") == #"one\ntwo\nthree\nfour"#)
        #expect(ICalendarText.escape("tab\there\u{07}bell") == "tab\there" + "bell")
        #expect(ICalendarText.escape("Café: 10:00") == "Café: 10:00")
    }

    @Test func shortLinesAreNotFolded() {
        let line = String(repeating: "x", count: 75)
        #expect(ICalendarText.fold(line) == line)
        #expect(ICalendarText.fold(line + "y") == line + "\r\n y")
    }

    @Test func foldingNeverSplitsAMultibyteCharacter() {
        // 73 ASCII octets, then a 4-octet emoji: 77 octets, the emoji moves whole.
        let line = "DESCRIPTION:" + String(repeating: "a", count: 61) + "😀" + "é"
        let folded = ICalendarText.fold(line)
        let physical = folded.components(separatedBy: "\r\n")
        #expect(physical.count == 2)
        #expect(physical[0].utf8.count == 73)
        #expect(physical[1] == " 😀é")
        #expect(ICalendarText.unfold(folded) == line)
    }

    @Test func everyFoldedLineFitsAndUnfoldingRestoresIt() async {
        let pieces: [Character] = ["a", "Z", " ", ";", ",", "\\", ":", "é", "ß", "€", "中", "😀", "👩‍💻", "\u{301}"]
        let text = Gen<Character?>.element(of: pieces).map { $0! }.string(of: 0...400)
        await propertyCheck(count: 200, input: text) { value in
            let line = "SUMMARY:" + ICalendarText.escape(value)
            let folded = ICalendarText.fold(line)
            for physical in Self.physicalLines(folded) {
                #expect(physical.count <= 75)
                // A UTF-8 continuation octet (10xxxxxx) never starts a line.
                #expect(physical.first.map { $0 & 0xC0 != 0x80 } ?? true)
                #expect(String(validating: physical, as: UTF8.self) != nil)
            }
            #expect(ICalendarText.unfold(folded) == line)
        }
    }

    @Test func aRenderedDocumentUsesCRLFOnlyAndFoldsEveryLine() throws {
        var section = CalendarTestData.cmsc131
        section.title = "Object-Oriented Programming I — an unusually long title, with commas; semicolons \\ and ✓ marks"
        section.instructors = ["Zoë Ångström", "José Núñez", "李小龙"]
        let document = CalendarTestData.render([section], name: "Plan A — 春 2024")
        let bytes = Array(document.utf8)
        #expect(bytes.suffix(2) == [0x0D, 0x0A])
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            #expect(index > 0 && bytes[index - 1] == 0x0D, "a bare LF at octet \(index)")
        }
        for (index, byte) in bytes.enumerated() where byte == 0x0D {
            #expect(index + 1 < bytes.count && bytes[index + 1] == 0x0A, "a bare CR at octet \(index)")
        }
        let physical = Self.physicalLines(document)
        #expect(physical.last == [], "the document ends with CRLF")
        #expect(physical.allSatisfy { $0.count <= 75 })
        #expect(physical.allSatisfy { String(validating: $0, as: UTF8.self) != nil })
        #expect(physical.contains { $0.first == 0x20 }, "the long description should fold")
        let description = try #require(CalendarTestData.lines(document).first { $0.hasPrefix("DESCRIPTION:") })
        #expect(description.contains(#"an unusually long title\, with commas\; semicolons \\ and ✓ marks\nSection: 0101"#))
        #expect(description.contains(#"Instructors: Zoë Ångström\, José Núñez\, 李小龙"#))
        #expect(CalendarTestData.lines(document).contains("X-WR-CALNAME:Plan A — 春 2024"))
    }

    /// The octets of each physical line (split at CRLF).
    static func physicalLines(_ text: String) -> [[UInt8]] {
        var lines: [[UInt8]] = [[]]
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                lines.append([])
                index += 2
            } else {
                lines[lines.count - 1].append(bytes[index])
                index += 1
            }
        }
        return lines
    }
}

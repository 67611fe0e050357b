import Foundation
import Gradebook
import Testing

/// The pure parts of file pass-through: which links and queries are accepted, how types are
/// delivered, and the byte-preserving rewrite of record JSON.
@Suite("Gradebook files: links, types, rewriting")
struct FileModelTests {
    static let source = GradebookSource(
        id: 1, name: "Cal Poly", baseURL: URL(string: "https://users.csc.calpoly.edu/~bellardo/cgi-bin/grades.json")!
    )

    @Test func onlyTheSourcesOwnFileDownloadIsLinked() throws {
        let real = "/~bellardo/cgi-bin/file_download?file=32550&enrollment=858&name=file&term=2152&course=458"
        let query = try #require(FileDownloadQuery(linkedFrom: real, source: Self.source))
        #expect(query.encoded == "file=32550&enrollment=858&name=file&term=2152&course=458")
        #expect(query.upstreamURL(Self.source).absoluteString == "https://users.csc.calpoly.edu" + real)
        #expect(FileDownloadQuery(linkedFrom: "file_download?file=3", source: Self.source) != nil, "relative to the base")
        #expect(FileDownloadQuery(linkedFrom: "https://users.csc.calpoly.edu" + real, source: Self.source) != nil)
        for other in [
            "https://evil.example/~bellardo/cgi-bin/file_download?file=1", "http://users.csc.calpoly.edu" + real,
            "/~bellardo/cgi-bin/other?file=1", "/~bellardo/cgi-bin/../cgi-bin/file_download?file=1", "/file_download?file=1",
            "/~bellardo/cgi-bin/file_download", "/~bellardo/cgi-bin/file_download?name=x",
            "/~bellardo/cgi-bin/file_download?file=1&name=..%2Fx", "https://u:p@users.csc.calpoly.edu" + real,
        ] {
            #expect(FileDownloadQuery(linkedFrom: other, source: Self.source) == nil, "\(other)")
        }
    }

    @Test func queriesAreBounded() throws {
        #expect(try FileDownloadQuery([("file", "7"), ("name", "a b/c")]).encoded == "file=7&name=a%20b%2Fc")
        let refused: [[(String, String)]] = [
            [], [("name", "x")], [("file", "1"), ("na-me", "x")], [("file", "..")], [("file", "1\n")],
            [("file", String(repeating: "9", count: 257))], Array(repeating: ("file", "1"), count: 17),
            [("file", "1")] + (1..<16).map { ("p\($0)", String(repeating: "é", count: 40)) },
        ]
        for pairs in refused {
            #expect(throws: FileDownloadQuery.Refusal.self, "\(pairs.prefix(2))") { try FileDownloadQuery(pairs) }
        }
    }

    @Test func onlyImagesPDFAndPlainTextAreInline() {
        for type in ["image/png", "image/jpeg", "IMAGE/GIF", "image/webp", "application/pdf"] {
            let delivery = FileDelivery(upstreamType: type, upstreamDisposition: nil, fallbackName: "file-1")
            #expect(delivery.contentType == type.lowercased() && delivery.disposition == #"inline; filename="file-1""#)
        }
        #expect(FileDelivery(upstreamType: "text/plain; charset=ISO-8859-1", upstreamDisposition: nil, fallbackName: "f").contentType == "text/plain; charset=iso-8859-1")
        #expect(FileDelivery(upstreamType: "text/plain; charset=\"a;b\"", upstreamDisposition: nil, fallbackName: "f").contentType.hasPrefix("text/plain"))
        for type in ["text/html", "text/html; charset=utf-8", "image/svg+xml", "application/javascript", "application/zip", "", "text/plain+html"] {
            let delivery = FileDelivery(upstreamType: type, upstreamDisposition: #"inline; filename="page.html""#, fallbackName: "file-2")
            #expect(delivery.contentType == "application/octet-stream", "\(type)")
            #expect(delivery.disposition == #"attachment; filename="page.html""#)
        }
        #expect(FileDelivery(upstreamType: nil, upstreamDisposition: nil, fallbackName: "file-3").disposition == #"attachment; filename="file-3""#)
        let hostile = FileDelivery(upstreamType: "application/pdf", upstreamDisposition: #"attachment; filename="../\"x\r\n.pdf""#, fallbackName: "f")
        #expect(!hostile.disposition.dropFirst(#"inline; filename=""#.count).dropLast().contains { "\"\\/\r\n".contains($0) })
    }

    @Test func rewritingChangesOnlyTheURLsOfFiles() {
        let record = #"{"enrollments": [ {"username":"jdoe", "picture" : {"id":1,"url" : "\/~bellardo\/cgi-bin\/file_download?file=1&name=file"}, "note": "url"},"#
            + #" {"url": 5, "x": ["url", "a\"b"], "feedback": {"url":"/elsewhere?file=2"}}]}"#
        let rewritten = FileLinkRewriter.rewrite(Data(record.utf8)) { url in
            FileDownloadQuery(linkedFrom: url, source: Self.source).map { "/gradebook/1/file_download?\($0.encoded)" }
        }
        let expected = record.replacingOccurrences(
            of: #""\/~bellardo\/cgi-bin\/file_download?file=1&name=file""#, with: #""/gradebook/1/file_download?file=1&name=file""#
        )
        #expect(String(decoding: rewritten, as: UTF8.self) == expected)
        #expect(FileLinkRewriter.rewrite(Data("not json \"url\": \"x".utf8)) { _ in "y" } == Data("not json \"url\": \"x".utf8))
        #expect(FileLinkRewriter.rewrite(Data(#""Incorrect permission""#.utf8)) { _ in "y" } == Data(#""Incorrect permission""#.utf8))
    }
}

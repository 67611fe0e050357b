import HTTPTypes

/// The files the data set mentions, and the placeholders served for them.
enum FileDownloads {
    struct Found {
        let file: SimulatedFile
        /// The username of the enrollment it belongs to.
        let owner: String
        /// "picture", "feedback" or "student_work".
        let kind: String
    }

    static func find(_ id: Int, in data: SimulatorData) -> Found? {
        for section in data.sections {
            for enrollment in section.enrollments where enrollment.picture.id == id {
                return Found(file: enrollment.picture, owner: enrollment.username, kind: "picture")
            }
            for assignment in section.assignments {
                for score in assignment.scores {
                    if let file = score.feedback, file.id == id { return Found(file: file, owner: score.username, kind: "feedback") }
                    if let file = score.studentWork, file.id == id {
                        return Found(file: file, owner: score.username, kind: "student_work")
                    }
                }
            }
        }
        return nil
    }

    /// A 1×1 PNG for images, a one-page PDF for PDFs, an HTML page with a script for HTML (what
    /// a proxy must never serve as a page), a line of text (with the file's mimetype) for
    /// anything else; each with the file's mimetype as its type, as the real server does.
    static func placeholder(_ found: Found) -> ProtocolResponse {
        let file = found.file
        var response: ProtocolResponse
        if file.mimetype == "image/png" {
            response = ProtocolResponse(status: .ok, contentType: "image/png", body: onePixelPNG)
        } else if file.mimetype == "application/pdf" {
            response = ProtocolResponse(status: .ok, contentType: "application/pdf", body: Array(pdf(found).utf8))
        } else if file.mimetype == "text/html" {
            let page = "<!doctype html><html><body><h1>\(found.kind) \(file.id)</h1><script>document.title = 'ran'</script></body></html>\n"
            response = ProtocolResponse(status: .ok, contentType: "text/html; charset=utf-8", body: Array(page.utf8))
        } else {
            response = .text(
                "Gradebook simulator placeholder for \(found.kind) file \(file.id) (\(file.mimetype))\n",
                contentType: file.mimetype
            )
        }
        response.headers[.contentDisposition] = "inline; filename=\"\(found.kind)-\(file.id).\(file.fileExtension)\""
        return response
    }

    /// A minimal one-page PDF naming the file (its cross-reference offsets are exact).
    static func pdf(_ found: Found) -> String {
        let text = "Gradebook simulator \(found.kind) file \(found.file.id)"
        let stream = "BT /F1 12 Tf 72 720 Td (\(text)) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        var document = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(document.utf8.count)
            document += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = document.utf8.count
        document += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { document += String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n" }
        document += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return document
    }

    /// A white 1×1 PNG.
    static let onePixelPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xFF, 0xFF, 0x3F,
        0x03, 0x00, 0x08, 0xFC, 0x02, 0xFE, 0xA7, 0x9A, 0xA0, 0xA0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

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

    /// A 1×1 PNG for images; a line of text (with the file's mimetype) for anything else.
    static func placeholder(_ found: Found) -> ProtocolResponse {
        let file = found.file
        var response: ProtocolResponse
        if file.mimetype == "image/png" {
            response = ProtocolResponse(status: .ok, contentType: "image/png", body: onePixelPNG)
        } else {
            response = .text(
                "Gradebook simulator placeholder for \(found.kind) file \(file.id) (\(file.mimetype))\n",
                contentType: file.mimetype
            )
        }
        response.headers[.contentDisposition] = "inline; filename=\"\(found.kind)-\(file.id).\(file.fileExtension)\""
        return response
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

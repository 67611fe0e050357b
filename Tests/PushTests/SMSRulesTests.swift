import Foundation
import HTTPClient
import PropertyBased
import Testing
@testable import Push

/// The pure rules of text messages: numbers, keywords, Twilio's signature, form encoding, what
/// Twilio's answers mean, and texts' length (with random inputs: any course title, any
/// headline, any body, the text stays GSM-safe within two segments and keeps its link whole).
@Suite struct SMSRulesTests {
    @Test func numbersAreStrictE164() throws {
        for good in ["+16195550123", "+4915112345678", "+12345678", "+123456789012345"] {
            #expect(try PhoneNumber(validating: good).value == good)
        }
        for bad in ["16195550123", "+06195550123", "+1234567", "+1234567890123456", "+1 6195550123", "+1-619-555-0123", "+1619555012a",
                    "", "+", "0016195550123", " +16195550123", "+16195550123\n", "+１６１９５５５０１２３"] {
            #expect(throws: DeviceProblem.self, "\(bad)") { try PhoneNumber(validating: bad) }
            do { _ = try PhoneNumber(validating: bad) } catch { #expect(error.field == "phone") }
        }
        #expect(try PhoneNumber(validating: "+16195550123").masked == "+16•••••••23")
        #expect(!"\(try PhoneNumber(validating: "+16195550123"))".contains("6195550123"))
    }

    @Test func keywordsFollowTheCarriersRules() {
        for word in ["STOP", "stop", " Stop \n", "STOPALL", "unsubscribe", "CANCEL", "end", "QUIT", "OPTOUT", "REVOKE"] {
            #expect(SMSKeyword(body: word) == .stop, "\(word)")
        }
        for word in ["START", "start", "UNSTOP", "yes", " Yes "] { #expect(SMSKeyword(body: word) == .start, "\(word)") }
        for word in ["stop it", "please stop", "HELP", "", "STOP!", "S T O P"] { #expect(SMSKeyword(body: word) == .other, "\(word)") }
    }

    /// Twilio's own documented example, and one computed with Python's hmac for the inbound route.
    @Test func signaturesMatchTwilios() {
        let documented: [(name: String, value: String)] = [
            ("CallSid", "CA1234567890ABCDE"), ("Caller", "+12349013030"), ("Digits", "1234"), ("From", "+12349013030"), ("To", "+18005551212"),
        ]
        let url = "https://mycompany.com/myapp.php?foo=1&bar=2"
        #expect(TwilioSignature.sign(url: url, parameters: documented, authToken: "12345") == "0/KCTR6DLpKmkAf8muzZqo1nDgQ=")
        #expect(TwilioSignature.sign(url: url, parameters: documented.reversed(), authToken: "12345") == "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", "order of the post")
        let inbound: [(name: String, value: String)] = [
            ("From", "+16195550123"), ("To", "+16195550100"), ("Body", "Stop please"), ("MessageSid", "SM123"), ("AccountSid", "AC1"), ("NumMedia", "0"),
        ]
        let route = "https://gateway.example.edu/v1/sms/inbound"
        #expect(TwilioSignature.verify("MJnW2IRZfgwWpcQnSf7xtUHpgFs=", url: route, parameters: inbound, authToken: "12345"))
        #expect(!TwilioSignature.verify("MJnW2IRZfgwWpcQnSf7xtUHpgFs=", url: route + "/", parameters: inbound, authToken: "12345"))
        #expect(!TwilioSignature.verify("MJnW2IRZfgwWpcQnSf7xtUHpgFs=", url: route, parameters: inbound, authToken: "12346"))
        #expect(!TwilioSignature.verify("MJnW2IRZfgwWpcQnSf7xtUHpgFs=", url: route, parameters: Array(inbound.dropLast()), authToken: "12345"))
        #expect(!TwilioSignature.verify(nil, url: route, parameters: inbound, authToken: "12345"))
        #expect(!TwilioSignature.verify("", url: route, parameters: inbound, authToken: ""))
    }

    @Test func formsEncodeAndDecode() {
        let fields: [(name: String, value: String)] = [("To", "+16195550123"), ("Body", "a b&c=d é/?*-._~")]
        let encoded = FormEncoding.encode(fields)
        #expect(encoded == "To=%2B16195550123&Body=a+b%26c%3Dd+%C3%A9%2F%3F*-._%7E")
        let decoded = FormEncoding.decode(encoded)
        #expect(decoded.map(\.name) == ["To", "Body"] && decoded.map(\.value) == fields.map(\.value))
        #expect(FormEncoding.decode("A=1&A=2&B").map(\.value) == ["1", "2", ""])
    }

    static func response(_ status: Int, code: Int? = nil, retryAfter: String? = nil) -> OutboundResponse {
        let headers = HTTPHeaderFields(retryAfter.map { [("Retry-After", $0)] } ?? [])
        let body = code.map { #"{"code": \#($0), "message": "The 'To' number +16195550123 is not valid", "more_info": "https://www.twilio.com/docs/errors/\#($0)", "status": \#(status)}"# } ?? "{}"
        return OutboundResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    @Test func twilioAnswersMapToOutcomes() {
        let now = Date()
        #expect(TwilioSMSSender.outcome(for: Self.response(201), now: now) == .delivered(status: 201))
        #expect(TwilioSMSSender.outcome(for: Self.response(429, code: 20429, retryAfter: "30"), now: now) == .retry(after: .seconds(30), reason: "the SMS provider answered 429"))
        #expect(TwilioSMSSender.outcome(for: Self.response(503), now: now) == .retry(after: nil, reason: "the SMS provider answered 503"))
        #expect(TwilioSMSSender.outcome(for: Self.response(400, code: 21610), now: now) == .deactivate(reason: SMSOutcome.optedOutReason))
        guard case .deactivate(let invalid) = TwilioSMSSender.outcome(for: Self.response(400, code: 21211), now: now) else {
            Issue.record("21211 deactivates")
            return
        }
        #expect(!invalid.contains("6195550123"), "Twilio's message, which quotes the number, is not the reason")
        guard case .retry = TwilioSMSSender.outcome(for: Self.response(401, code: 20003), now: now) else {
            Issue.record("bad credentials are the operator's to fix: retried")
            return
        }
        #expect(TwilioSMSSender.outcome(for: Self.response(400, code: 21602), now: now) == .discarded(reason: "the SMS provider refused the text (400, Twilio 21602)"))
    }

    @Test func theRequestIsTwiliosForm() throws {
        let configuration = TwilioSMSSender.Configuration(
            apiURL: URL(string: "https://api.twilio.com/")!, accountSID: "AC123", authToken: "secret-token", from: "+16195550100"
        )
        let sender = TwilioSMSSender(configuration: configuration, client: NoClient())
        let request = sender.request(SMSMessage(to: try PhoneNumber(validating: "+16195550123"), body: "Hi there"))
        #expect(request.url.absoluteString == "https://api.twilio.com/2010-04-01/Accounts/AC123/Messages.json")
        #expect(request.method == .post)
        #expect(request.basicCredentials == BasicCredentials(username: "AC123", password: "secret-token"))
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == "To=%2B16195550123&From=%2B16195550100&Body=Hi+there")
        #expect(!"\(configuration)".contains("secret-token") && !"\(request)".contains("secret-token"))
        let service = TwilioSMSSender(configuration: .init(apiURL: configuration.apiURL, accountSID: "AC123", authToken: "t", from: "MG" + String(repeating: "a", count: 32)), client: NoClient())
        #expect(String(decoding: service.request(SMSMessage(to: try PhoneNumber(validating: "+16195550123"), body: "x")).body ?? Data(), as: UTF8.self).contains("MessagingServiceSid=MG"))
    }

    struct NoClient: HTTPClient {
        func execute(_ request: OutboundRequest) async throws -> OutboundResponse { throw CancellationError() }
    }

    @Test func segmentsCountGSM7() {
        #expect(SMSText.segments(String(repeating: "a", count: 160)) == 1)
        #expect(SMSText.segments(String(repeating: "a", count: 161)) == 2)
        #expect(SMSText.segments(String(repeating: "a", count: 306)) == 2)
        #expect(SMSText.segments(String(repeating: "a", count: 307)) == 3)
        #expect(SMSText.gsmSafe("Étude {1} [a] ~x | \\ ^ `q` “hi” – ok…\n\u{1F600}") == "Etude (1) (a) -x - / - 'q' \"hi\" - ok. ")
    }

    @Test func aSeatTextNamesCourseSectionAndLinksToTheClass() {
        let note = OutgoingNotification(
            id: "n", category: "seat.open", title: "CS 540-02 (class 7036): 1 seat open", body: "A seat is open in CS 540-02 (class 7036), Operating Systems...",
            data: ["classId": "7036", "course": "CS 540", "section": "02", "courseTitle": "Operating Systems", "seatAlertId": "9"], urgent: true
        )
        let text = SMSText.notification(note, publicURL: "https://gateway.example.edu/")
        #expect(text == "Campus Gateway: CS 540-02 (class 7036): 1 seat open. Operating Systems https://gateway.example.edu/#/catalog?class=7036")
        #expect(SMSText.segments(text) == 1)
        let long = OutgoingNotification(
            id: "n", category: "seat.open", title: note.title, body: note.body,
            data: ["classId": "7036", "courseTitle": String(repeating: "Advanced Topics in Distributed Systems and Networks ", count: 10)], urgent: true
        )
        let cut = SMSText.notification(long, publicURL: "https://gateway.example.edu")
        #expect(cut.count <= SMSText.maximumLength && SMSText.segments(cut) == 2)
        #expect(cut.contains("CS 540-02 (class 7036)") && cut.hasSuffix(" https://gateway.example.edu/#/catalog?class=7036") && cut.contains("..."))
    }

    /// Any headline, course title or body, any link: GSM-safe, at most two segments, the link
    /// whole at the end, the headline whole when it fits beside it, and nothing but these.
    @Test func textsStayWithinTwoSegments() async {
        let pieces = Gen.oneOf(
            Gen.ascii.string(of: 0...400),
            Gen.latin1.string(of: 0...200),
            Gen.character(in: "\u{20}"..."\u{2FFF}").string(of: 0...150)
        )
        let input = zip(pieces, pieces, Gen.int(in: 0...99_999), Gen.bool)
        await propertyCheck(count: 500, input: input) { headline, detail, classID, withLink in
            let link = withLink ? "https://gateway.example.edu/#/catalog?class=\(classID)" : nil
            let text = SMSText.compose(headline: headline, detail: detail, link: link)
            #expect(text.count <= SMSText.maximumLength, "\(text.count): \(text)")
            #expect(SMSText.segments(text) <= 2)
            #expect(SMSText.isGSMSafe(text), "\(text)")
            #expect(text.hasPrefix("Campus Gateway"))
            if let link { #expect(text.hasSuffix(" " + link)) }
            let safeHead = SMSText.gsmSafe(headline).trimmingCharacters(in: .whitespaces)
            if safeHead.count + 60 < SMSText.maximumLength - (link?.count ?? 0), !safeHead.isEmpty, !safeHead.hasSuffix(".") {
                #expect(text.contains(safeHead), "a headline that fits is kept whole")
            }
        }
    }
}

import GatewayCore
import Foundation
import Push
import Testing
import TestSupport

/// A real `gateway serve --demo` child on SQLite, logging at trace level to a file, driven
/// through a session that handles every kind of secret the gateway sees. Afterwards none of
/// those values may be found, in any of the forms listed in ``Secret`` (text, percent- and
/// form-encoded, JSON-escaped, base64 and base64url, raw bytes and hex where the value encodes
/// bytes), in:
/// - the log file (standard error) and standard output (less the demo banner's one-time print of
///   the documented demo passwords, which `--demo` is for);
/// - every file of the database folder but the vault's key file (`gateway.sqlite`, `-wal`,
///   `-shm`), read while the server runs and again after it stopped;
/// - every value of every table read through SQLite, and the `jobs` table's `args` and `errors`
///   also as decoded JSON strings;
/// - the answers that list what the secrets belong to (devices, stored accounts, jobs, notifications).
///
/// The secrets checked: the sign-up password, a wrong guess, the new password after a change,
/// an admin-created account's password, the student's and the gradebook's HTTP Basic
/// credentials, four bearer tokens (JSON sign-in, Basic sign-in, after the password change,
/// the admin's), the gradebook password (stored account, proxy Basic and QuickHAC
/// `account_add`), the QuickHAC device uuid, a webhook signing secret (`whsec_…` and its
/// bytes), a Web Push subscription's `auth` and `p256dh`, the VAPID private key and a VAPID
/// token (JWT) the gateway signed, the APNs signing key (the .p8 file's key), the SMTP
/// password, an email confirmation code and link token, the SMS provider's auth token and a
/// texted confirmation code (a Twilio stand-in, with a signed inbound post), an SDSU password (in a JSON body and a
/// `?password=` query), a calendar feed's token, the metrics token, the simulator's admin token
/// and the vault key.
@Suite("Secrets never reach logs or the database", .serialized)
struct SecretGrepSessionTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func random(_ count: Int = 12) -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(count))
    }

    static func randomBytes(_ count: Int) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: 0...255) })
    }

    @Test func aWholeSessionLeavesNoSecretInTheLogOrTheDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("secrets-session-\(UUID().uuidString)")
        let dataDirectory = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let databasePath = dataDirectory.appendingPathComponent("gateway.sqlite").path

        let receiver = try LoopbackReceiver(host: "127.0.0.1", behaviour: .answer, lifetime: .seconds(150))
        defer { receiver.stop() }
        // An OTLP/HTTP collector: the session's spans (JSON encoding, so they can be read here)
        // are searched like the log, and checked for their links.
        let collector = try LoopbackReceiver(host: "127.0.0.1", behaviour: .answer, lifetime: .seconds(150))
        defer { collector.stop() }
        let smtpPassword = "smtp pass/\(Self.random())"
        // The SMTP stand-in needs the venv's aiosmtpd (make test installs it); without it the
        // email part is left out and says so.
        let smtp: SMTPStandIn?
        do { smtp = try await SMTPStandIn.started(username: "gateway", password: smtpPassword) } catch {
            smtp = nil
            Issue.record("email devices not checked: \(error)")
        }
        defer { smtp?.stop() }

        // Texts go to a Twilio stand-in; its auth token comes from a file, as in production.
        let twilio = try TwilioStandIn(authToken: "twilio/\(Self.random(24))")
        defer { twilio.stop() }
        let tokenFile = directory.appendingPathComponent("twilio-auth-token")
        try Data((twilio.authToken + "\n").utf8).write(to: tokenFile)

        let vapid = VAPIDKeys.generate()
        let metricsToken = "metrics-\(Self.random(24))"
        let simulatorToken = "simulator-\(Self.random(24))"
        let apnsKeyFile = Self.packageRoot.appendingPathComponent("Tests/PushTests/Fixtures/apns_test_key.p8")
        var environment = [
            "GATEWAY_VAPID_PRIVATE_KEY": vapid.privateKeyBase64URL,
            "GATEWAY_METRICS_TOKEN": metricsToken,
            "GATEWAY_SIMULATOR_ADMIN_TOKEN": simulatorToken,
            "GATEWAY_APNS_KEY_FILE": apnsKeyFile.path, "GATEWAY_APNS_KEY_ID": "KEY1234567", "GATEWAY_APNS_TEAM_ID": "TEAM123456",
            // A closed loopback port stands for Apple: the provider token is made, the send fails.
            "GATEWAY_APNS_URL": "https://127.0.0.1:9",
            "GATEWAY_SMS_API_URL": twilio.baseURL.absoluteString, "GATEWAY_SMS_ACCOUNT_SID": twilio.accountSID,
            "GATEWAY_SMS_AUTH_TOKEN_FILE": tokenFile.path, "GATEWAY_SMS_FROM": TwilioStandIn.fromNumber,
            "GATEWAY_PUBLIC_URL": "https://gateway.example.edu/",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_SERVICE_NAME": "campus-gateway-session", "OTEL_BSP_SCHEDULE_DELAY": "200",
        ]
        if let smtp {
            environment["GATEWAY_SMTP_URL"] = smtp.url.absoluteString
            environment["GATEWAY_SMTP_FROM"] = "gateway@campus.example.edu"
            environment["GATEWAY_SMTP_USERNAME"] = "gateway"
            environment["GATEWAY_SMTP_PASSWORD"] = smtpPassword
            environment["GATEWAY_SMTP_CA_FILE"] = smtp.caFile
        }
        let server = try await LoggingGateway.started(
            arguments: ["--demo", "--demo-passwords", "documented", "--database", databasePath, "--allow-insecure-push-endpoints"],
            directory: directory, logLevel: "trace", environment: environment
        )
        defer { server.kill9() }
        let client = ChildClient(port: server.port)
        var secrets: [Secret] = []
        var answersToSearch: [(String, Data)] = []

        // Sign up, a wrong guess, sign in with JSON and with Basic.
        let username = "sam\(Self.random(6))"
        let password = "quartz sphinx/judge+vow&é \(Self.random())"
        let wrongGuess = "not it?=\(Self.random())"
        let signUp = try await client.send("POST", "/v1/accounts", json: #"{"username": "\#(username)", "password": \#(ChildClient.quoted(password)), "email": "\#(username)@example.edu"}"#)
        #expect(signUp.status == 201, "\(signUp.text)")
        let wrong = try await client.send("POST", "/v1/auth/token", json: #"{"username": "\#(username)", "password": \#(ChildClient.quoted(wrongGuess))}"#)
        #expect(wrong.status == 403)
        let issued = try await client.send("POST", "/v1/auth/token", json: #"{"username": "\#(username)", "password": \#(ChildClient.quoted(password)), "lifetimeMinutes": 60}"#)
        let token = try #require(issued.object["token"] as? String, "\(issued.status) \(issued.text)")
        let basicIssued = try await client.send("POST", "/v1/auth/token?lifetimeMinutes=5", headers: ["Authorization": ChildClient.basic(username, password)])
        let basicToken = try #require(basicIssued.object["token"] as? String, "\(basicIssued.status) \(basicIssued.text)")
        #expect(try await client.send("GET", "/v1/me", token: token).status == 200)
        #expect(try await client.send("GET", "/v1/me", headers: ["Authorization": ChildClient.basic(username, password)]).status == 200)
        secrets += [
            Secret("sign-up password", password), Secret("wrong password guess", wrongGuess),
            Secret("student Basic credentials", "\(username):\(password)"),
            Secret("bearer token (JSON sign-in)", token), Secret("bearer token (Basic sign-in)", basicToken),
        ]

        // A stored gradebook account, the proxy with Basic, the simulator's admin routes.
        let gradebookPassword = "gradebook-test-1"
        let stored = try await client.send("POST", "/v1/me/gradebook-accounts", json: #"{"sourceId": 1, "username": "test", "password": "\#(gradebookPassword)"}"#, token: token)
        #expect(stored.status == 201, "\(stored.text)")
        #expect(try await client.send("GET", "/v1/gradebook/1/sections", token: token).status == 200, "the stored account reads the gradebook")
        let proxied = try await client.send("GET", "/gradebook/1/grades.json?record=sections", headers: ["Authorization": ChildClient.basic("test", gradebookPassword)])
        #expect(proxied.status == 200)
        #expect(try await client.send("GET", "/sim/gradebook/_admin/requests", token: simulatorToken).status == 200)
        secrets += [
            Secret("gradebook password", gradebookPassword), Secret("gradebook Basic credentials", "test:\(gradebookPassword)"),
            Secret("simulator admin token", simulatorToken),
        ]

        // A Canvas account (the demo's stand-in, source 2): the access token goes in, is checked,
        // read with, and never comes out.
        let canvasToken = "demo-canvas-token"
        let canvasStored = try await client.send("POST", "/v1/me/gradebook-accounts", json: #"{"sourceId": 2, "accessToken": "\#(canvasToken)"}"#, token: token)
        #expect(canvasStored.status == 201, "\(canvasStored.text)")
        let myGrades = try await client.send("GET", "/v1/me/grades?refresh=1", token: token)
        #expect(myGrades.status == 200)
        #expect(myGrades.text.contains("MATH 141"), "the Canvas courses are read")
        answersToSearch += [("stored Canvas account", canvasStored.body), ("my grades", myGrades.body)]
        secrets += [Secret("Canvas access token", canvasToken), Secret("Canvas bearer header", "Bearer \(canvasToken)")]

        // A webhook device, with a delivery signed with its secret.
        let webhook = try await client.send("POST", "/v1/me/devices", json: #"{"channel": "webhook", "url": "\#(receiver.url("/hook"))"}"#, token: token)
        #expect(webhook.status == 201, "\(webhook.text)")
        let webhookSecret = try #require(webhook.object["webhookSecret"] as? String)
        let webhookID = try #require((webhook.object["device"] as? [String: Any])?["id"] as? Int)
        #expect(try await client.send("POST", "/v1/me/devices/\(webhookID)/test", token: token).status == 202)
        let hooked = await eventually(seconds: 20) { receiver.requests.contains { $0.requestLine.contains("/hook") } }
        #expect(hooked, "the webhook delivery arrived")
        if let delivery = receiver.requests.first(where: { $0.requestLine.contains("/hook") }), let secret = WebhookSecret(displayValue: webhookSecret) {
            let signature = delivery.headers["webhook-signature"] ?? ""
            let expected = WebhookSignature.sign(
                id: delivery.headers["webhook-id"] ?? "", timestamp: Int64(delivery.headers["webhook-timestamp"] ?? "") ?? 0, body: delivery.body, secret: secret.bytes
            )
            #expect(signature.contains(expected), "the delivery was signed with the secret shown once")
        }
        secrets.append(Secret("webhook signing secret", webhookSecret, encodedBytes: Secret.decodeBase64(String(webhookSecret.dropFirst("whsec_".count)))))

        // A Web Push subscription (keys made here), delivered with a VAPID token.
        let subscriber = VAPIDKeys.generate()
        let p256dh = subscriber.publicKeyBase64URL
        let auth = Secret.base64url(Self.randomBytes(16))
        let webPush = try await client.send(
            "POST", "/v1/me/devices", json: #"{"channel": "webpush", "endpoint": "\#(receiver.url("/push"))", "p256dh": "\#(p256dh)", "auth": "\#(auth)"}"#, token: token
        )
        #expect(webPush.status == 201, "\(webPush.text)")
        let webPushID = try #require((webPush.object["device"] as? [String: Any])?["id"] as? Int)
        #expect(try await client.send("POST", "/v1/me/devices/\(webPushID)/test", token: token).status == 202)
        let pushed = await eventually(seconds: 20) { receiver.requests.contains { $0.requestLine.contains("/push") } }
        #expect(pushed, "the Web Push delivery arrived")
        let vapidHeader = receiver.requests.first { $0.requestLine.contains("/push") }?.headers["authorization"] ?? ""
        if let jwt = vapidHeader.split(separator: " ").first(where: { $0.hasPrefix("t=") }).map({ String($0.dropFirst(2).trimmingCharacters(in: CharacterSet(charactersIn: ","))) }) {
            secrets.append(Secret("VAPID token (JWT)", jwt))
            if let signature = jwt.split(separator: ".").last { secrets.append(Secret("VAPID token signature", String(signature))) }
        } else {
            Issue.record("no VAPID token in \(vapidHeader)")
        }
        secrets += [
            Secret("Web Push auth secret", auth, encodedBytes: Secret.decodeBase64(auth)),
            Secret("Web Push p256dh key", p256dh, encodedBytes: Secret.decodeBase64(p256dh)),
            Secret("VAPID private key", vapid.privateKeyBase64URL, encodedBytes: Secret.decodeBase64(vapid.privateKeyBase64URL)),
        ]

        // An APNs device: a test notification makes the channel sign a provider token.
        let apnsToken = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let apns = try await client.send(
            "POST", "/v1/me/devices", json: #"{"channel": "apns", "token": "\#(apnsToken)", "topic": "edu.campus.gateway", "environment": "sandbox"}"#, token: token
        )
        #expect(apns.status == 201, "\(apns.text)")
        let apnsID = try #require((apns.object["device"] as? [String: Any])?["id"] as? Int)
        #expect(try await client.send("POST", "/v1/me/devices/\(apnsID)/test", token: token).status == 202)
        let pem = try String(contentsOf: apnsKeyFile, encoding: .utf8)
        let pemBody = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        secrets.append(Secret(
            "APNs signing key", pemBody.joined(), encodedBytes: Secret.decodeBase64(pemBody.joined()),
            extraForms: pemBody.enumerated().map { ("PEM line \($0.offset + 1)", Data($0.element.utf8)) }
        ))

        // An email device, confirmed with the mailed code; the link's token is looked at too.
        if let smtp {
            let email = try await client.send("POST", "/v1/me/devices", json: #"{"channel": "email", "email": "\#(username)@example.edu"}"#, token: token)
            #expect(email.status == 201, "\(email.text)")
            let emailID = try #require((email.object["device"] as? [String: Any])?["id"] as? Int)
            #expect(await eventually(seconds: 20) { !smtp.messages().isEmpty }, "the confirmation mail arrived")
            let mail = try #require(smtp.messages().first)
            #expect(mail.tls && mail.authenticated)
            let code = try #require(mail.text.split(separator: "\n").first { $0.hasPrefix("Your confirmation code: ") }.map { String($0.dropFirst("Your confirmation code: ".count)) })
            let link = try #require(mail.text.split(separator: "\n").first { $0.hasPrefix("https://") && $0.contains("token=") })
            let linkToken = String(link[try #require(link.range(of: "token=")).upperBound...].prefix(43))
            #expect(try await client.send("GET", "/v1/email/confirm?token=\(linkToken)").status == 200)
            let confirmed = try await client.send("POST", "/v1/me/devices/\(emailID)/confirm", json: #"{"code": "\#(code)"}"#, token: token)
            #expect(confirmed.status == 200, "\(confirmed.text)")
            secrets += [Secret("SMTP password", smtpPassword), Secret("email confirmation code", code), Secret("email confirmation link token", linkToken)]
        }

        // An SMS device, confirmed with the texted code; then the carrier's signed inbound START.
        let sms = try await client.send("POST", "/v1/me/devices", json: #"{"channel": "sms", "phone": "+16195550123"}"#, token: token)
        #expect(sms.status == 201, "\(sms.text)")
        let smsID = try #require((sms.object["device"] as? [String: Any])?["id"] as? Int)
        #expect(await eventually(seconds: 20) { !twilio.messages.isEmpty }, "the confirmation text arrived")
        let text = try #require(twilio.messages.first?.field("Body"))
        let smsCode = String(try #require(text.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }))
        let smsConfirmed = try await client.send("POST", "/v1/me/devices/\(smsID)/confirm", json: #"{"code": "\#(smsCode)"}"#, token: token)
        #expect(smsConfirmed.status == 200, "\(smsConfirmed.text)")
        let inbound: [(name: String, value: String)] = [("From", "+16195550123"), ("To", TwilioStandIn.fromNumber), ("Body", "START"), ("AccountSid", twilio.accountSID)]
        let signature = TwilioSignature.sign(url: "https://gateway.example.edu/v1/sms/inbound", parameters: inbound, authToken: twilio.authToken)
        let started = try await client.send("POST", "/v1/sms/inbound", form: TwilioStandIn.encodeForm(inbound), headers: ["X-Twilio-Signature": signature])
        #expect(started.status == 200, "\(started.text)")
        secrets += [Secret("SMS provider auth token", twilio.authToken), Secret("SMS confirmation code", smsCode), Secret("inbound text signature", signature)]

        // QuickHAC: a device uuid (its only credential) and an account_add with a password.
        let uuid = "device-\(UUID().uuidString)"
        #expect(try await client.send("POST", "/ios/register", form: "uuid=\(uuid)").status == 200)
        let added = try await client.send("POST", "/ios/account_add", form: "uuid=\(uuid)&user=jdoe&pass=\(ChildClient.formValue(gradebookPassword))&district=1")
        #expect(added.status == 200, "\(added.text)")
        #expect(added.object["status"] as? Int == 0, "\(added.text)")
        secrets.append(Secret("QuickHAC device uuid", uuid))

        // SDSU: a student with a password, then a GET carrying it in the query.
        let redID = String(format: "%09d", Int.random(in: 100_000_000...999_999_999))
        let sdsuPassword = "red id & pass=\(Self.random())"
        let addStudent = try await client.send(
            "POST", "/registration/addstudent",
            json: #"{"firstname": "Sam", "lastname": "Secret", "redid": "\#(redID)", "password": \#(ChildClient.quoted(sdsuPassword)), "email": "\#(redID)@sdsu.edu"}"#
        )
        #expect(addStudent.object["ok"] != nil, "\(addStudent.text)")
        let registered = try await client.send("GET", "/registration/registerclass?redid=\(redID)&password=\(ChildClient.formValue(sdsuPassword))&courseid=7033")
        #expect(registered.status == 200)
        #expect(registered.object["ok"] != nil, "the query's password was accepted: \(registered.text)")
        secrets.append(Secret("SDSU password", sdsuPassword))

        // A calendar feed: its address is the credential.
        let feed = try await client.send("POST", "/v1/me/calendar-feed", token: token)
        #expect(feed.status == 201, "\(feed.text)")
        let feedPath = try #require(feed.object["path"] as? String)
        #expect(try await client.send("GET", feedPath).status == 200)
        secrets.append(Secret("calendar feed token", String(feedPath.dropFirst("/calendar/".count).dropLast(".ics".count))))

        // Metrics behind their token.
        #expect(try await client.send("GET", "/metrics", token: metricsToken).status == 200)
        secrets.append(Secret("metrics token", metricsToken))

        // A password change, then a sign-in with the new password.
        let newPassword = "a newer engine+\(Self.random())"
        let changed = try await client.send("PUT", "/v1/me/password", json: #"{"currentPassword": \#(ChildClient.quoted(password)), "newPassword": \#(ChildClient.quoted(newPassword))}"#, token: token)
        #expect(changed.status == 204, "\(changed.text)")
        #expect(try await client.send("GET", "/v1/me", token: basicToken).status == 401, "the other token was revoked")
        let renewed = try await client.send("POST", "/v1/auth/token", json: #"{"username": "\#(username)", "password": \#(ChildClient.quoted(newPassword))}"#)
        let renewedToken = try #require(renewed.object["token"] as? String, "\(renewed.text)")
        secrets += [Secret("changed password", newPassword), Secret("bearer token (after the change)", renewedToken)]

        // The admin: an account with a password, a job, the job list.
        let adminIssued = try await client.send("POST", "/v1/auth/token", headers: ["Authorization": ChildClient.basic("admin", "demo-admin-pass")])
        let adminToken = try #require(adminIssued.object["token"] as? String, "\(adminIssued.text)")
        let instructorPassword = "lecture notes/\(Self.random())"
        let instructor = try await client.send(
            "POST", "/v1/admin/accounts", json: #"{"username": "prof\#(Self.random(6))", "password": \#(ChildClient.quoted(instructorPassword)), "role": "instructor"}"#,
            token: adminToken
        )
        #expect(instructor.status == 201, "\(instructor.text)")
        let job = try await client.send("POST", "/v1/admin/jobs", json: #"{"kind": "diagnostics.sleep", "args": {"seconds": 1}}"#, token: adminToken)
        #expect(job.status == 201, "\(job.text)")
        // A Canvas developer key's secret, as an admin registers it: sealed at once, never answered.
        let clientSecret = "canvas-key/\(Self.random())"
        let keyed = try await client.send(
            "PUT", "/v1/admin/gradebook/sources/9",
            json: #"{"name": "Campus Canvas", "kind": "canvas", "baseUrl": "http://127.0.0.1:\#(client.port)/sim/canvas", "development": true, "oauthClientId": "170000000000009", "oauthClientSecret": \#(ChildClient.quoted(clientSecret))}"#,
            token: adminToken
        )
        #expect(keyed.status == 201, "\(keyed.text)")
        #expect(keyed.object["oauthClientSecretSet"] as? Bool == true)
        let keyedRead = try await client.send("GET", "/v1/admin/gradebook/sources/9", token: adminToken)
        answersToSearch += [("canvas source as created", keyed.body), ("canvas source read back", keyedRead.body)]
        secrets += [
            Secret("admin bearer token", adminToken), Secret("admin-created account password", instructorPassword),
            Secret("Canvas developer key secret", clientSecret),
        ]
        // The demo's documented passwords are printed once on standard output by design; they
        // are looked for everywhere else.
        let demoSecrets = [Secret("demo admin password", "demo-admin-pass"), Secret("admin Basic credentials", "admin:demo-admin-pass")]

        // Revocation, and what the listings answer.
        #expect(try await client.send("DELETE", "/v1/auth/token", token: renewedToken).status == 204)
        let listings: [(String, String)] = [
            ("/v1/me/devices", adminToken), ("/v1/admin/jobs?limit=200", adminToken), ("/v1/admin/push/notifications", adminToken),
            ("/v1/me/gradebook-accounts", token), ("/v1/me/devices", token), ("/v1/me/calendar-feed", token),
        ]
        for (path, bearer) in listings {
            let answer = try await client.send("GET", path, token: bearer)
            answersToSearch.append(("answer of GET \(path)", answer.body))
        }

        // The vault's key, from its file (which may hold it; nothing else may).
        let keyFile = databasePath + ".vault-keys"
        let keyLine = try String(contentsOfFile: keyFile, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
        let vaultKey = String(keyLine.split(separator: " ").last ?? "")
        #expect(!vaultKey.isEmpty)
        secrets.append(Secret("vault key", vaultKey, encodedBytes: Secret.decodeBase64(vaultKey)))

        // Search, while the server runs (the WAL is there) and after it stopped.
        var findings = SecretFindings()
        let everything = secrets + demoSecrets
        // Let the admin's job finish (and the deliveries before it write what they write).
        let jobID = try #require(job.object["id"] as? Int)
        let finished = await eventually(seconds: 20) {
            try? await Task.sleep(for: .milliseconds(100))
            let state = try? await client.send("GET", "/v1/admin/jobs/\(jobID)", token: adminToken).object["state"] as? String
            return state == "completed"
        }
        #expect(finished, "the admin's job completed")
        func searchFolder(_ when: String) throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: dataDirectory.path).sorted() where !name.hasSuffix(".vault-keys") {
                let data = try Data(contentsOf: dataDirectory.appendingPathComponent(name))
                findings.search(everything, in: data, place: "\(name) (\(when))")
            }
        }
        try searchFolder("while serving")
        #expect(server.terminate() == 0)
        try searchFolder("after shutdown")
        // Every exported span, attributes and names included.
        let exports = collector.requests.filter { $0.requestLine.hasPrefix("POST /v1/traces ") }
        for (index, export) in exports.enumerated() { findings.search(everything, in: export.body, place: "exported spans (batch \(index + 1))") }
        let trace = ExportedSpans(exports.map(\.body))
        #expect(trace.spans.count > 20, "spans were exported: \(trace.spans.count) in \(exports.count) batches")
        #expect(trace.serviceNames == ["campus-gateway-session"])
        // The webhook test: the request, its database transaction, the job it queued and that
        // job's outbound call are one trace, and the call carried it to the receiver.
        let testRequest = try #require(trace.spans.first { $0.name == "POST /v1/me/devices/{deviceId}/test" }, "\(trace.names)")
        #expect(testRequest.attributes["http.route"] == "/v1/me/devices/{deviceId}/test" && testRequest.attributes["http.response.status_code"] == "202")
        let inTrace = trace.spans.filter { $0.traceID == testRequest.traceID }
        #expect(inTrace.contains { $0.name == "sqlite write" && trace.descends($0, from: testRequest) }, "\(inTrace.map(\.name))")
        let delivery = try #require(inTrace.first { $0.name == "job push.deliver" }, "\(inTrace.map(\.name))")
        #expect(trace.descends(delivery, from: testRequest), "the job's run continues the request's trace")
        #expect(delivery.attributes["job.kind"] == "push.deliver")
        let call = try #require(inTrace.first { $0.name == "HTTP POST" && $0.attributes["server.address"] == "127.0.0.1" && trace.descends($0, from: delivery) })
        #expect(!call.spanID.isEmpty)
        // The span is the gateway's own; the student's webhook learns nothing of the trace.
        let delivered = receiver.requests.first { $0.requestLine.contains("/hook") }?.headers["traceparent"]
        #expect(delivered == nil, "a student's webhook gets no trace context: \(delivered ?? "")")
        findings.search(everything, in: server.log, place: "the log (stderr)")
        findings.search(secrets, in: server.output, place: "standard output")
        for (place, body) in answersToSearch { findings.search(everything, in: body, place: place) }
        let jobRows = try findings.searchTables(everything, databasePath: databasePath)

        #expect(server.log.count > 5_000, "the log was written at trace level (\(server.log.count) bytes)")
        #expect(jobRows >= 5, "the jobs table held the session's jobs (\(jobRows))")
        #expect(findings.places.contains { $0.hasPrefix("gateway.sqlite-wal") }, "the WAL was searched: \(findings.places)")
        // The search itself finds what is there: the username, stored in clear, in the file and a table.
        var control = SecretFindings()
        control.search([Secret("username", username)], in: try Data(contentsOf: URL(fileURLWithPath: databasePath)), place: "gateway.sqlite")
        _ = try control.searchTables([Secret("username", username)], databasePath: databasePath)
        #expect(control.lines.contains { $0.contains("in gateway.sqlite") } && control.lines.contains { $0.contains("auth_accounts") || $0.contains("accounts.") }, "\(control.lines)")
        #expect(findings.lines.isEmpty, "secrets found:\n\(findings.lines.joined(separator: "\n"))")
        #expect(secrets.count + demoSecrets.count >= (smtp == nil ? 28 : 31), "\(secrets.map(\.name))")
    }
}

import Foundation
import GatewayCore
import HTTPClient
import Jobs
import Logging
import Push

/// Chooses how mail leaves, from the configuration: SMTP through
/// libcurl on the mail client's own transfer threads when `smtp` is set (with a sender address
/// and a public URL, or the server refuses to start), the log mailer in a demo, and otherwise
/// a sender that discards mails with the reason kept (as APNs without a key).
struct EmailWiring {
    let mail: PushModule.Mail

    init(configuration: GatewayConfiguration, client: CurlHTTPClient, logger: Logger) throws {
        let sender: any EmailSender
        let from: MailAddress
        let publicURL: URL
        if let smtp = configuration.smtp {
            do {
                from = try MailAddress(validating: smtp.from)
            } catch {
                throw StartupRefusal("GATEWAY_SMTP_FROM \(error.reason)")
            }
            guard let url = configuration.publicURL else {
                throw StartupRefusal("email needs GATEWAY_PUBLIC_URL (the https address people reach this server at) for the links in mails")
            }
            publicURL = url
            do {
                let settings = try SMTPMailer.Configuration(url: smtp.url, username: smtp.username, password: smtp.password, additionalCAFile: smtp.caFile)
                sender = TransportEmailSender(transport: SMTPMailer(configuration: settings, client: client), logger: logger)
                logger.info("email: SMTP", metadata: ["server": "\(settings)"])
            } catch {
                throw StartupRefusal("GATEWAY_SMTP_URL: \(error)")
            }
        } else {
            from = try! MailAddress(validating: "notifications@campus-gateway.invalid")
            let host = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1" : configuration.host
            publicURL = configuration.publicURL ?? URL(string: "http://\(host):\(configuration.port)")!
            sender = configuration.demo ? LogEmailSender(logger: logger) : UnconfiguredEmailSender()
        }
        mail = PushModule.Mail(sender: sender, composer: EmailComposer(from: from, publicURL: publicURL))
    }
}

/// No SMTP server and not a demo: mails are discarded with the reason kept on the outbox row
/// (or, for a confirmation mail, on the device).
struct UnconfiguredEmailSender: EmailSender {
    func send(_ message: MailMessage, purpose: MailPurpose) async -> DeliveryOutcome {
        .discarded(reason: "no SMTP server is configured (GATEWAY_SMTP_URL)")
    }
}

import Crypto
import Foundation
import Push
import Testing

/// The pure rules behind confirmation floods and seat-alert flapping.
@Suite("Recipient quota and flap limit rules")
struct RecipientQuotaRulesTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    @Test func addressesNormaliseToOneRecipient() {
        #expect(RecipientQuota.normalized("  Ann.Lee+promo@Example.EDU ", channel: .email) == "ann.lee@example.edu")
        #expect(RecipientQuota.normalized("ann.lee@example.edu", channel: .email) == "ann.lee@example.edu")
        #expect(RecipientQuota.normalized("+tag@example.edu", channel: .email) == "+tag@example.edu", "a local part that is only a tag stays")
        #expect(RecipientQuota.normalized("+1 (619) 555-0100", channel: .sms) == "+16195550100")
        let key = SymmetricKey(size: .bits256), other = SymmetricKey(size: .bits256)
        #expect(RecipientQuota.key("Ann+1@x.edu", channel: .email, secret: key) == RecipientQuota.key("ann+2@X.edu", channel: .email, secret: key))
        #expect(RecipientQuota.key("ann@x.edu", channel: .email, secret: key) != RecipientQuota.key("ann@x.edu", channel: .email, secret: other), "keyed")
        #expect(RecipientQuota.key("ann@x.edu", channel: .email, secret: key) != RecipientQuota.key("ann@x.edu", channel: .sms, secret: key), "per channel")
        #expect(RecipientQuota.key("ann@x.edu", channel: .email, secret: key).count == 32)
    }

    @Test func threePerRecipientADayThenTheHourlyCap() {
        let t = Self.now
        #expect(RecipientQuota.decide(recipientSends: [t - 100, t - 50], hourlySends: 0, oldestHourlySend: nil, hourlyCap: 10, now: t) == .allowed)
        #expect(RecipientQuota.decide(recipientSends: [t - 86_000, t - 100, t - 50], hourlySends: 0, oldestHourlySend: nil, hourlyCap: 10, now: t)
            == .recipientLimit(retryAfterSeconds: 400))
        #expect(RecipientQuota.decide(recipientSends: [t - 90_000, t - 100, t - 50], hourlySends: 0, oldestHourlySend: nil, hourlyCap: 10, now: t)
            == .allowed, "a send past the day no longer counts")
        #expect(RecipientQuota.decide(recipientSends: [], hourlySends: 10, oldestHourlySend: t - 3000, hourlyCap: 10, now: t)
            == .hourlyCap(retryAfterSeconds: 600))
        #expect(RecipientQuota.decide(recipientSends: [], hourlySends: 9, oldestHourlySend: t - 3000, hourlyCap: 10, now: t) == .allowed)
    }

    @Test func aWatcherHearsThreeOpeningsAnHourThenOneFoldedAlert() {
        let t = Self.now
        #expect(SeatAlertFlapLimit.decide(told: [], now: t) == .tell)
        #expect(SeatAlertFlapLimit.decide(told: [t - 30, t - 20], now: t) == .tell)
        #expect(SeatAlertFlapLimit.decide(told: [t - 30, t - 20, t - 10], now: t) == .fold(at: t - 30 + 3600))
        #expect(SeatAlertFlapLimit.decide(told: [t - 3700, t - 20, t - 10], now: t) == .tell, "an hour-old one no longer counts")
        #expect(SeatAlertFlapLimit.decide(told: [t - 40, t - 30, t - 20, t - 10], now: t) == .fold(at: t - 30 + 3600))
    }
}

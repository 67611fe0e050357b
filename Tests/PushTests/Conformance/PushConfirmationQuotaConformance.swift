import Contracts
import Foundation
import Push
import Storage
import TestSupport
import Testing

/// The confirmation-recipient quota's rows, on both backends: one count per recipient and
/// channel whichever account asked, the gateway-wide count, forgetting past a day, and the
/// secret recipients are keyed with.
extension PushStoreConformance {
    @Test(arguments: PushBackend.all)
    func confirmationSendsAreCountedPerRecipientAndChannel(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, _, _ in
            let quota = under.stores.confirmationQuota
            let ann = Data(repeating: 1, count: 32), bob = Data(repeating: 2, count: 32)
            try await transactions.write { tx throws in
                let secret = try quota.recipientSecret(in: tx)
                #expect(secret.count >= 32)
                #expect(try quota.recipientSecret(in: tx) == secret, "one secret, made by the migration")

                try quota.recordSend(channel: .email, recipient: ann, at: Self.start, in: tx)
                try quota.recordSend(channel: .email, recipient: ann, at: Self.start + 60, in: tx)
                try quota.recordSend(channel: .email, recipient: bob, at: Self.start + 120, in: tx)
                try quota.recordSend(channel: .sms, recipient: ann, at: Self.start + 180, in: tx)

                #expect(try quota.sends(channel: .email, recipient: ann, since: Self.start - 1, in: tx) == [Self.start, Self.start + 60])
                #expect(try quota.sends(channel: .email, recipient: ann, since: Self.start, in: tx) == [Self.start + 60], "after `since` only")
                #expect(try quota.sends(channel: .sms, recipient: ann, since: Self.start - 1, in: tx) == [Self.start + 180], "per channel")
                let email = try quota.sendCount(channel: .email, since: Self.start - 1, in: tx)
                #expect(email.count == 3 && email.oldest == Self.start)
                let later = try quota.sendCount(channel: .email, since: Self.start + 60, in: tx)
                #expect(later.count == 1 && later.oldest == Self.start + 120)
                let none = try quota.sendCount(channel: .email, since: Self.start + 1000, in: tx)
                #expect(none.count == 0 && none.oldest == nil)

                // A send a day later forgets what left the day.
                try quota.recordSend(channel: .email, recipient: bob, at: Self.start + 86_400 + 90, in: tx)
                #expect(try quota.sends(channel: .email, recipient: ann, since: .distantPast, in: tx).isEmpty)
                #expect(try quota.sends(channel: .email, recipient: bob, since: .distantPast, in: tx) == [Self.start + 120, Self.start + 86_400 + 90])
            }
        }
    }

    /// Texts are also counted per client network (a keyed hash), with whether each was a new
    /// device's first; sends without a network are not in any network's count.
    @Test(arguments: PushBackend.all)
    func confirmationSendsAreCountedPerNetwork(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, _, _ in
            let quota = under.stores.confirmationQuota
            let ann = Data(repeating: 1, count: 32), bob = Data(repeating: 2, count: 32)
            let here = Data(repeating: 9, count: 32), there = Data(repeating: 10, count: 32)
            try await transactions.write { tx throws in
                try quota.recordSend(channel: .sms, recipient: ann, network: here, newDevice: true, at: Self.start, in: tx)
                try quota.recordSend(channel: .sms, recipient: ann, network: here, newDevice: false, at: Self.start + 60, in: tx)
                try quota.recordSend(channel: .sms, recipient: bob, network: there, newDevice: true, at: Self.start + 120, in: tx)
                try quota.recordSend(channel: .sms, recipient: bob, at: Self.start + 180, in: tx)
                try quota.recordSend(channel: .email, recipient: bob, network: here, newDevice: true, at: Self.start + 240, in: tx)

                #expect(try quota.networkSends(channel: .sms, network: here, since: Self.start - 1, in: tx) == [
                    SMSQuota.Send(at: Self.start, newDevice: true), SMSQuota.Send(at: Self.start + 60, newDevice: false),
                ])
                #expect(try quota.networkSends(channel: .sms, network: here, since: Self.start, in: tx).map(\.at) == [Self.start + 60])
                #expect(try quota.networkSends(channel: .sms, network: there, since: Self.start - 1, in: tx) == [SMSQuota.Send(at: Self.start + 120, newDevice: true)])
                #expect(try quota.networkSends(channel: .email, network: here, since: Self.start - 1, in: tx).count == 1, "per channel")
                #expect(try quota.sendCount(channel: .sms, since: Self.start - 1, in: tx).count == 4, "every text counts gateway-wide")
                #expect(try quota.sends(channel: .sms, recipient: bob, since: Self.start - 1, in: tx) == [Self.start + 120, Self.start + 180])
            }
        }
    }
}

import Contracts
import Foundation
@testable import Push
import Storage
import TestSupport
import Testing

/// The email channel's rows: pending confirmations, the confirmation-mail log and one-click
/// unsubscribe links, on both backends.
extension PushStoreConformance {
    static func emailDevice(_ accountID: Int64, _ address: String, in tx: any StoreTransaction, stores: PushStores) throws -> Device {
        try stores.devices.insert(NewDevice(accountID: accountID, name: address, address: .email(address: address), active: false), at: start, in: tx)
    }

    @Test(arguments: PushBackend.all)
    func aPendingConfirmationIsReplacedCountedAndDeleted(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, _ in
            let emails = under.stores.emails
            try await transactions.write { tx throws in
                let device = try Self.emailDevice(ada, "ada@example.edu", in: tx, stores: under.stores)
                let other = try Self.emailDevice(ada, "ada2@example.edu", in: tx, stores: under.stores)
                let first = PendingEmailConfirmation(
                    deviceID: device.id, codeHash: EmailConfirmation.codeHash("123456", deviceID: device.id),
                    tokenHash: EmailConfirmation.tokenHash("token-1"), expiresAt: Self.start + EmailConfirmation.lifetime, failedAttempts: 0
                )
                try emails.savePending(first, at: Self.start, in: tx)
                #expect(try emails.pending(deviceID: device.id, in: tx) == first)
                #expect(try emails.pending(tokenHash: EmailConfirmation.tokenHash("token-1"), in: tx) == first)
                #expect(try emails.pending(deviceID: other.id, in: tx) == nil)
                try emails.recordWrongCode(deviceID: device.id, in: tx)
                try emails.recordWrongCode(deviceID: device.id, in: tx)
                #expect(try emails.pending(deviceID: device.id, in: tx)?.failedAttempts == 2)

                // A new mail replaces the code and the link, and the count starts over.
                let second = PendingEmailConfirmation(
                    deviceID: device.id, codeHash: EmailConfirmation.codeHash("654321", deviceID: device.id),
                    tokenHash: EmailConfirmation.tokenHash("token-2"), expiresAt: Self.start + 100 + EmailConfirmation.lifetime, failedAttempts: 7
                )
                try emails.savePending(second, at: Self.start + 100, in: tx)
                var expected = second
                expected.failedAttempts = 0
                #expect(try emails.pending(deviceID: device.id, in: tx) == expected)
                #expect(try emails.pending(tokenHash: EmailConfirmation.tokenHash("token-1"), in: tx) == nil, "the old link is dead")
                #expect(try emails.pending(tokenHash: EmailConfirmation.tokenHash("token-2"), in: tx)?.deviceID == device.id)

                try emails.deletePending(deviceID: device.id, in: tx)
                #expect(try emails.pending(deviceID: device.id, in: tx) == nil)
                #expect(try emails.pending(tokenHash: EmailConfirmation.tokenHash("token-2"), in: tx) == nil)
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func confirmationMailsAreCountedPerAccountWithinTheWindow(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let emails = under.stores.emails
            let window = EmailConfirmation.mailWindow
            try await transactions.write { tx throws in
                try emails.recordMail(accountID: ada, deviceID: 5, at: Self.start, in: tx)
                try emails.recordMail(accountID: ada, deviceID: 6, at: Self.start + 60, in: tx)
                try emails.recordMail(accountID: grace, deviceID: 9, at: Self.start + 60, in: tx)
                try emails.recordMail(accountID: ada, deviceID: 5, at: Self.start + 120, in: tx)
                let mails = try emails.mails(accountID: ada, since: Self.start - 1, in: tx)
                #expect(mails.map(\.deviceID) == [5, 6, 5] && mails.map(\.at) == [Self.start, Self.start + 60, Self.start + 120])
                #expect(try emails.mails(accountID: ada, since: Self.start + 60, in: tx).map(\.at) == [Self.start + 120], "after `since` only")
                #expect(try emails.mails(accountID: grace, since: .distantPast, in: tx).map(\.deviceID) == [9])
                // The next mail a window later forgets the account's mails that left it.
                try emails.recordMail(accountID: ada, deviceID: 6, at: Self.start + 60 + window, in: tx)
                #expect(try emails.mails(accountID: ada, since: .distantPast, in: tx).map(\.at) == [Self.start + 120, Self.start + 60 + window])
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func unsubscribeLinksKeepTheirFirstUseAndAgeOut(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, grace in
            let emails = under.stores.emails
            try await transactions.write { tx throws in
                let device = try Self.emailDevice(ada, "ada@example.edu", in: tx, stores: under.stores)
                let hers = try Self.emailDevice(grace, "grace@example.edu", in: tx, stores: under.stores)
                let (old, fresh, other) = (EmailConfirmation.tokenHash("u-old"), EmailConfirmation.tokenHash("u-fresh"), EmailConfirmation.tokenHash("u-other"))
                let target = UnsubscribeTarget(deviceID: device.id, category: "seat.open", seatAlertID: 42)
                try emails.insertUnsubscribe(tokenHash: old, target: target, at: Self.start, in: tx)
                try emails.insertUnsubscribe(tokenHash: other, target: UnsubscribeTarget(deviceID: hers.id, category: "test"), at: Self.start, in: tx)
                let stored = try #require(try emails.unsubscribe(tokenHash: old, in: tx))
                #expect(stored.target == target && stored.createdAt == Self.start && stored.usedAt == nil)
                #expect(try emails.unsubscribe(tokenHash: fresh, in: tx) == nil)

                try emails.markUsed(tokenHash: old, at: Self.start + 10, in: tx)
                try emails.markUsed(tokenHash: old, at: Self.start + 20, in: tx)
                #expect(try emails.unsubscribe(tokenHash: old, in: tx)?.usedAt == Self.start + 10, "the first use is kept")

                // A new link past the old one's lifetime forgets the device's expired links, not others'.
                let later = Self.start + UnsubscribeTarget.linkLifetime + 1
                try emails.insertUnsubscribe(tokenHash: fresh, target: UnsubscribeTarget(deviceID: device.id, category: "grade.new"), at: later, in: tx)
                #expect(try emails.unsubscribe(tokenHash: old, in: tx) == nil)
                #expect(try emails.unsubscribe(tokenHash: fresh, in: tx)?.target == UnsubscribeTarget(deviceID: device.id, category: "grade.new"))
                #expect(try emails.unsubscribe(tokenHash: other, in: tx)?.target.deviceID == hers.id)
                #expect(try under.stores.devices.delete(id: hers.id, in: tx))
                #expect(try emails.unsubscribe(tokenHash: other, in: tx) == nil, "a removed device's links go with it")
            }
        }
    }
}

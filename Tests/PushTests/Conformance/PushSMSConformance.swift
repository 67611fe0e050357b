import Contracts
import Foundation
import Push
import Storage
import TestSupport
import Testing

/// SMS rows on both backends: an SMS device holds its number and is confirmed like an email
/// device; the mute table keeps keyed hashes, one row per number whichever account, and
/// forgets them on START.
extension PushStoreConformance {
    @Test(arguments: PushBackend.all)
    func smsDevicesHoldTheirNumberAndConfirm(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, ada, _ in
            let devices = under.stores.devices
            try await transactions.write { tx throws in
                let device = try devices.insert(
                    NewDevice(accountID: ada, name: "phone", address: .sms(phone: "+16195550123"), active: false), at: Self.start, in: tx
                )
                let read = try #require(try devices.device(id: device.id, in: tx))
                #expect(read.channel == .sms && read.address == .sms(phone: "+16195550123"))
                #expect(!read.active && read.confirmedAt == nil && !read.keysUnavailable)
                try devices.confirmEmail(id: device.id, at: Self.start + 60, in: tx)
                let confirmed = try #require(try devices.device(id: device.id, in: tx))
                #expect(confirmed.active && confirmed.confirmedAt == Self.start + 60)
                #expect(try devices.devices(ofAccount: ada, in: tx).map(\.address) == [.sms(phone: "+16195550123")])
            }
        }
    }

    @Test(arguments: PushBackend.all)
    func numbersAreMutedByKeyedHashUntilStart(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, _, _ in
            let mutes = under.stores.smsMutes
            let one = Data(repeating: 7, count: 32), two = Data(repeating: 8, count: 32)
            try await transactions.write { tx throws in
                #expect(try !mutes.isMuted(recipient: one, in: tx))
                try mutes.mute(recipient: one, at: Self.start, in: tx)
                try mutes.mute(recipient: one, at: Self.start + 60, in: tx)
                #expect(try mutes.isMuted(recipient: one, in: tx), "twice is once")
                #expect(try !mutes.isMuted(recipient: two, in: tx))
                #expect(try mutes.unmute(recipient: one, in: tx))
                #expect(try !mutes.unmute(recipient: one, in: tx), "not muted any more")
                #expect(try !mutes.isMuted(recipient: one, in: tx))
            }
        }
    }

    /// Inbound messages are recorded once by MessageSid (a repeat says so), each number keeps
    /// its last applied keyword with its order, and retention forgets old MessageSids.
    @Test(arguments: PushBackend.all)
    func inboundMessagesAreAppliedOnceAndKeepTheirOrder(_ backend: StoreBackend<PushTestStores>) async throws {
        try await Self.withStores(backend) { transactions, under, _, _ in
            let mutes = under.stores.smsMutes, retention = under.stores.retention
            let one = Data(repeating: 7, count: 32), two = Data(repeating: 8, count: 32)
            try await transactions.write { tx throws in
                #expect(try mutes.recordInbound(messageSID: "SM01", at: Self.start, in: tx))
                #expect(try !mutes.recordInbound(messageSID: "SM01", at: Self.start + 60, in: tx), "a repeat")
                #expect(try mutes.recordInbound(messageSID: "SM02", at: Self.start + 100, in: tx))

                #expect(try mutes.lastKeyword(recipient: one, in: tx) == nil)
                try mutes.setLastKeyword(recipient: one, keyword: .stop, messageSID: "SM01", at: Self.start, in: tx)
                #expect(try mutes.lastKeyword(recipient: one, in: tx).map { [$0.keyword == .stop, $0.at == Self.start] } == [true, true])
                try mutes.setLastKeyword(recipient: one, keyword: .start, messageSID: "SM02", at: Self.start + 100, in: tx)
                #expect(try mutes.lastKeyword(recipient: one, in: tx).map { [$0.keyword == .start, $0.at == Self.start + 100] } == [true, true])
                #expect(try mutes.lastKeyword(recipient: two, in: tx) == nil, "per number")

                #expect(try retention.pruneInboundTexts(receivedBefore: Self.start + 50, in: tx) == 1)
                #expect(try mutes.recordInbound(messageSID: "SM01", at: Self.start + 200, in: tx), "forgotten, so new again")
                #expect(try !mutes.recordInbound(messageSID: "SM02", at: Self.start + 200, in: tx))
            }
        }
    }
}

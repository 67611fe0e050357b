public import Contracts
public import Foundation
import Storage

/// What Push keeps that ages out, behind a protocol (``SQLiteRetentionStore``).
public protocol PushRetentionStoring: Sendable {
    /// Marks a QuickHAC device seen now (it called `register`, as the app does at launch).
    func markSeen(deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// QuickHAC devices (id and key) that follow nobody and were last seen before
    /// `unfollowedBefore`, or were last seen before `unseenBefore`; at most `limit`.
    func expiredQuickHACDevices(unfollowedBefore: Date, unseenBefore: Date, limit: Int, in transaction: any StoreTransaction) throws -> [(id: Int64, key: String)]
    /// Deletes notifications delivered, discarded or failed before `cutoff`; how many.
    func pruneNotifications(finishedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int
    /// Deletes the inbound texts' dedupe rows (``SMSMuteStoring/recordInbound(messageSID:at:in:)``)
    /// received before `cutoff`; how many.
    func pruneInboundTexts(receivedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int
}

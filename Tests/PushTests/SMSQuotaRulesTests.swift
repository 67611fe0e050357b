import Crypto
import Foundation
import Push
import Testing

/// The pure rules behind issue 47's finding 3: which countries are texted (by calling code,
/// the E.164 way) and the texts' per-network quota.
@Suite("SMS countries and quota rules")
struct SMSQuotaRulesTests {
    static func phone(_ raw: String) throws -> PhoneNumber { try PhoneNumber(validating: raw) }

    @Test func assignedCallingCodesAreAPrefixCode() {
        for code in SMSCountries.assigned {
            #expect((1...3).contains(code.count) && code.first != "0", "\(code)")
            for other in SMSCountries.assigned where other != code {
                #expect(!other.hasPrefix(code), "+\(code) begins +\(other)")
            }
        }
        #expect(SMSCountries.assigned.isSuperset(of: ["1", "7", "44", "49", "353", "371", "852", "882", "998"]))
        #expect(SMSCountries.assigned.isDisjoint(with: ["0", "2", "4", "28", "35", "259", "671", "684", "999"]))
    }

    @Test func aNumbersCallingCodeIsTheAssignedOneThatBeginsIt() {
        #expect(SMSCountries.callingCode(of: "+16195550123") == "1")
        #expect(SMSCountries.callingCode(of: "+12425550123") == "1", "the Bahamas are on +1")
        #expect(SMSCountries.callingCode(of: "+447700900123") == "44")
        #expect(SMSCountries.callingCode(of: "+353861234567") == "353")
        #expect(SMSCountries.callingCode(of: "+79123456789") == "7")
        #expect(SMSCountries.callingCode(of: "+28012345678") == nil)
    }

    @Test func theListAllowsItsCountriesOnly() throws {
        let list = try SMSCountries(parsing: " 1, +44 ,353,44")
        #expect(list.codes == ["1", "44", "353"])
        #expect(list.description == "+1, +44, +353")
        for allowed in ["+16195550123", "+18095550123", "+447700900123", "+353861234567"] {
            #expect(list.allows(try Self.phone(allowed)), "\(allowed)")
        }
        for refused in ["+43664123456", "+35012345678", "+37120000000", "+4915112345678", "+79123456789", "+28012345678"] {
            #expect(!list.allows(try Self.phone(refused)), "\(refused)")
        }
        #expect(SMSCountries.default.codes == ["1"])
        #expect(!SMSCountries.default.allows(try Self.phone("+447700900123")))
    }

    @Test func aListWithACodeNoCountryHasIsRefused() {
        for bad in ["", "1,", ",44", "35", "4", "0", "1,2", "1234", "1a", "+", "44;1", "١"] {
            #expect(throws: SMSCountries.Invalid.self, "\(bad)") { try SMSCountries(parsing: bad) }
        }
    }

    @Test func oneNetworkHasItsShareOfTheHour() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let quota = SMSQuota(hourlyCap: 100, perNetworkHourly: 3, newDevicesPerNetwork: 5)
        let recent = [now - 3000, now - 2000, now - 1000].map { SMSQuota.Send(at: $0, newDevice: false) }
        #expect(quota.decide(networkSends: Array(recent.prefix(2)), newDevice: true, now: now) == .allowed)
        #expect(quota.decide(networkSends: recent, newDevice: false, now: now) == .networkTexts(retryAfterSeconds: 600))
        let older = [now - 4000, now - 2000, now - 1000].map { SMSQuota.Send(at: $0, newDevice: false) }
        #expect(quota.decide(networkSends: older, newDevice: false, now: now) == .allowed, "one left the hour")

        let devices = (1...5).map { SMSQuota.Send(at: now - 10_000 * Double($0), newDevice: true) }
        #expect(quota.decide(networkSends: devices, newDevice: false, now: now) == .allowed, "a resend is not a new device")
        #expect(quota.decide(networkSends: devices, newDevice: true, now: now) == .networkDevices(retryAfterSeconds: 86_400 - 50_000))
        let dayOld = [SMSQuota.Send(at: now - 90_000, newDevice: true)] + devices.prefix(4)
        #expect(quota.decide(networkSends: dayOld, newDevice: true, now: now) == .allowed, "one left the day")
    }

    @Test func theDefaultsAreATenthOfAThirdOfTheMailCap() {
        let quota = SMSQuota.derived(fromEmailCap: 300)
        #expect(quota.hourlyCap == 100 && quota.perNetworkHourly == 10 && quota.newDevicesPerNetwork == 20)
        #expect(SMSQuota.derived(fromEmailCap: 1).perNetworkHourly == 1, "at least one")
        #expect(SMSQuota(hourlyCap: 4, perNetworkHourly: 10).perNetworkHourly == 4, "never more than the cap")
    }

    @Test func networksAreKeyedByTheirSlash64AndNeverStored() {
        let secret = SymmetricKey(size: .bits256)
        let a = SMSQuota.networkKey(clientAddress: "2001:db8:47:1::10", secret: secret)
        #expect(a == SMSQuota.networkKey(clientAddress: "2001:db8:47:1:ffff::2", secret: secret))
        #expect(a != SMSQuota.networkKey(clientAddress: "2001:db8:47:2::10", secret: secret))
        #expect(SMSQuota.networkKey(clientAddress: "203.0.113.5", secret: secret) != SMSQuota.networkKey(clientAddress: "203.0.113.6", secret: secret))
        #expect(SMSQuota.networkKey(clientAddress: nil, secret: secret) == SMSQuota.networkKey(clientAddress: nil, secret: secret))
        #expect(a.count == 32 && !String(decoding: a, as: UTF8.self).contains("2001"))
    }
}

import Testing

@testable import HeraldServer

/// The sender pool's keys: read from the environment, refused when out of range.
@Suite struct SenderConfigurationTests {
    @Test func theSenderKeysAreReadAndHaveTheirDefaults() throws {
        let defaults = try HeraldConfiguration.load(environment: [:])
        #expect(defaults.apnsEventLoops == 1 && defaults.apnsInFlightPerShard == 1000)
        let set = try HeraldConfiguration.load(environment: [
            "HERALD_APNS_EVENT_LOOPS": "0", "HERALD_APNS_IN_FLIGHT_PER_SHARD": "250",
        ])
        #expect(set.apnsEventLoops == 0 && set.apnsInFlightPerShard == 250)
    }

    @Test(arguments: [
        ("HERALD_APNS_EVENT_LOOPS", "-1"), ("HERALD_APNS_EVENT_LOOPS", "two"),
        ("HERALD_APNS_IN_FLIGHT_PER_SHARD", "0"), ("HERALD_APNS_IN_FLIGHT_PER_SHARD", "99999999999999999999"),
    ])
    func outOfRangeValuesAreRefusedWithTheirKey(key: String, value: String) {
        do {
            _ = try HeraldConfiguration.load(environment: [key: value])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect("\(error)".contains(key))
        }
    }
}

import APNSCore
import Testing

@Suite struct DeviceTokenTests {
    @Test func parsesHexOfAnyEvenLengthWithinBounds() throws {
        #expect(try DeviceToken(hex: "0A1b2C3d").bytes == [0x0A, 0x1B, 0x2C, 0x3D])
        let long = String(repeating: "ab", count: 100)
        #expect(try DeviceToken(hex: long).bytes.count == 100)
        #expect(try DeviceToken(hex: "ABCDEF0123456789").hex == "abcdef0123456789")
    }

    @Test(arguments: [
        ("", DeviceTokenError.empty),
        ("abc", .oddLength),
        ("abcdefgh", .notHex),
        ("abcd ef0", .notHex),
        ("abcdef", .tooShort),
        (String(repeating: "ab", count: 101), .tooLong),
    ])
    func refusesMalformedTokens(hex: String, error: DeviceTokenError) {
        #expect(throws: error) { try DeviceToken(hex: hex) }
    }

    @Test func errorsAndDescriptionsNeverRepeatTheToken() throws {
        let hex = "00112233445566778899aabbccddeeff"
        let token = try DeviceToken(hex: hex)
        #expect("\(token)" == "…ccddeeff")
        #expect(token.redacted == "…ccddeeff")
        for error in [DeviceTokenError.empty, .oddLength, .notHex, .tooShort, .tooLong] {
            #expect(!error.description.contains("0011"))
        }
    }

    @Test func environmentsNameApplesHosts() {
        #expect(APNSEnvironment.production.host == "api.push.apple.com")
        #expect(APNSEnvironment.sandbox.host == "api.sandbox.push.apple.com")
    }
}

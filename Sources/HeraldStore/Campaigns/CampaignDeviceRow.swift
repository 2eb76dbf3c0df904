import APNSCore
import HeraldCore
import PostgresNIO

/// How a campaign reads a `devices` row: only what sending needs (``CampaignDevice``), in ten
/// columns. A campaign decodes one row per device it sends to, so every cell counts: the five
/// permission switches come as one small integer of bits, and the languages as one text (tags
/// hold no comma), which a page parses once per distinct list instead of as an array per row.
enum CampaignDeviceRow {
    static let columns = "id, token, " + columnsAfterToken
    /// The columns after `id, token`: a start campaign reads its start token in the device token's place.
    static let columnsAfterToken = """
        environment, array_to_string(languages, ','), authorization_status,
        (alert_enabled::int | (badge_enabled::int << 1) | (sound_enabled::int << 2)
         | (critical_alert_enabled::int << 3) | (time_sensitive_enabled::int << 4))::int2,
        time_zone, user_id, attributes::text, bucket
        """
    /// How many columns `columns` reads; a query may read more after them.
    static let count = 10

    /// The row's device, its languages parsed through `languages` (a page holds few distinct tags).
    static func decode(_ row: PostgresRow, languages: inout DeviceRow.LanguageCache) throws -> CampaignDevice {
        let cells = row.makeRandomAccess()
        let token = try DeviceToken(bytes: Array(buffer: try cells[1].decode(ByteBuffer.self)))
        let status = try cells[4].decode(String.self)
        let switches = try cells[5].decode(Int16.self)
        let attributesText = try cells[8].decode(String.self)
        guard case .object(let attributes) = try JSONReader.parse(attributesText.utf8) else {
            throw StoreError.unknownValue(column: "devices.attributes", value: "not a JSON object")
        }
        return CampaignDevice(
            id: try cells[0].decode(Int64.self),
            token: token,
            environment: try StoreError.decode(try cells[2].decode(String.self), as: APNSEnvironment.self, column: "devices.environment"),
            languages: languages.tags(joined: try cells[3].decode(String.self)),
            authorization: AuthorizationSettings(
                status: try StoreError.decode(status, as: AuthorizationSettings.Status.self, column: "devices.authorization_status"),
                alert: switches & 1 != 0, badge: switches & 2 != 0, sound: switches & 4 != 0,
                criticalAlert: switches & 8 != 0, timeSensitive: switches & 16 != 0),
            timeZone: try cells[6].decode(String?.self),
            userID: try cells[7].decode(String?.self),
            attributes: attributes,
            bucket: Int(try cells[9].decode(Int16.self)))
    }
}

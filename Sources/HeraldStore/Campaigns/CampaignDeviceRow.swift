import APNSCore
import HeraldCore
import PostgresNIO

/// How a campaign reads a `devices` row: only what sending needs (``CampaignDevice``). A
/// campaign decodes one row per device it sends to, so every cell counts: the five permission
/// switches come as one small integer of bits, the languages as one text (tags hold no comma),
/// which a page parses once per distinct list instead of as an array per row, and of the
/// attributes only those the campaign's templates read.
enum CampaignDeviceRow {
    /// Which attributes a campaign reads: all of them (the object as one text), or the named
    /// ones (a column each, the value's JSON text, NULL when the device has none by that name;
    /// no column for no names). Made once per query, for its columns and its rows.
    ///
    /// A value by name costs PostgreSQL a lookup in the stored object: 0.18 µs a device for two
    /// names of 22 attributes, against 1.0 µs to write the whole object as text; Herald then
    /// parses two values instead of 22 (docs/campaigns.md, "What a campaign reads").
    struct Attributes {
        /// nil: the whole object.
        let names: [String]?

        /// The names a campaign asked for (nil: all). The whole object is read instead when a
        /// name is not one `attributes.NAME` allows in a template (ASCII letters, digits, `_`
        /// and `-`: the only characters written into the query) or there are more than 64.
        init(_ requested: [String]?) {
            guard let requested, requested.count <= 64, requested.allSatisfy(Self.isPlainName) else {
                names = nil
                return
            }
            names = requested
        }

        var columns: String {
            guard let names else { return ", attributes::text" }
            return names.map { ", (attributes -> '\($0)')::text" }.joined()
        }

        var count: Int { names?.count ?? 1 }

        private static func isPlainName(_ name: String) -> Bool {
            !name.isEmpty && name.utf8.count <= 256
                && name.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                        true
                    default: false
                    }
                }
        }
    }

    /// The columns a campaign reads.
    static func columns(_ attributes: Attributes) -> String {
        "id, token, " + columnsAfterToken(attributes)
    }

    /// The columns after `id, token` (a start campaign reads its start token in the device
    /// token's place); the attributes come last.
    static func columnsAfterToken(_ attributes: Attributes) -> String {
        """
        environment, array_to_string(languages, ','), authorization_status,
        (alert_enabled::int | (badge_enabled::int << 1) | (sound_enabled::int << 2)
         | (critical_alert_enabled::int << 3) | (time_sensitive_enabled::int << 4))::int2,
        time_zone, user_id, bucket
        """ + attributes.columns
    }

    /// How many columns ``columns(_:)`` reads; a query may read more after them.
    static func count(_ attributes: Attributes) -> Int {
        fixedCount + attributes.count
    }

    /// The columns before the attributes.
    private static let fixedCount = 9

    /// The row's device, its languages parsed through `languages` (a page holds few distinct
    /// tags), its attributes as ``columns(_:)`` read them.
    static func decode(
        _ row: PostgresRow, attributes: Attributes, languages: inout DeviceRow.LanguageCache
    ) throws -> CampaignDevice {
        let cells = row.makeRandomAccess()
        let token = try DeviceToken(bytes: Array(buffer: try cells[1].decode(ByteBuffer.self)))
        let status = try cells[4].decode(String.self)
        let switches = try cells[5].decode(Int16.self)
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
            attributes: try decodeAttributes(cells, attributes.names),
            bucket: Int(try cells[8].decode(Int16.self)))
    }

    private static func decodeAttributes(_ cells: PostgresRandomAccessRow, _ names: [String]?) throws -> [String: PayloadValue] {
        guard let names else {
            guard case .object(let attributes) = try JSONReader.parse(try cells[fixedCount].decode(String.self).utf8) else {
                throw StoreError.unknownValue(column: "devices.attributes", value: "not a JSON object")
            }
            return attributes
        }
        var attributes = [String: PayloadValue](minimumCapacity: names.count)
        for (offset, name) in names.enumerated() {
            guard let text = try cells[fixedCount + offset].decode(String?.self) else { continue }
            attributes[name] = try JSONReader.parse(text.utf8)
        }
        return attributes
    }
}

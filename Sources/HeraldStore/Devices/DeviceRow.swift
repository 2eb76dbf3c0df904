import APNSCore
import Foundation
import HeraldCore
import PostgresNIO

/// How a `devices` row is read.
enum DeviceRow {
    static let columns = "id, token, " + columnsAfterToken
    /// The columns after `id, token`: a start campaign reads its start token in the device token's place.
    /// The 410 moment is read as milliseconds since 1970 from an interval: `extract` of a
    /// timestamptz depends on the time zone setting (it is STABLE), and a Citus cluster allows
    /// only IMMUTABLE functions in the RETURNING of a write to a distributed table (registration's).
    static let columnsAfterToken = """
        environment, languages, authorization_status, alert_enabled, badge_enabled, sound_enabled,
        critical_alert_enabled, time_sensitive_enabled, time_zone, user_id, attributes::text, bucket,
        registered_at, created_at, invalidated_at, invalidation_reason,
        (extract(epoch FROM apns_unregistered_at - timestamptz 'epoch') * 1000)::bigint
        """

    static func decode(_ row: PostgresRow) throws -> Device {
        var languages = LanguageCache()
        return try decode(row, languages: &languages)
    }

    /// The row's device, its languages parsed through `languages`: a page of devices holds few
    /// distinct language tags, and each is parsed once. (The cells are read through a
    /// random-access view: postgres-nio's decode of a 19-column tuple, generic over a parameter
    /// pack, is not specialised across modules and took three times as long.)
    static func decode(_ row: PostgresRow, languages: inout LanguageCache) throws -> Device {
        let cells = row.makeRandomAccess()
        let token = try DeviceToken(bytes: Array(buffer: try cells[1].decode(ByteBuffer.self)))
        let status = try cells[4].decode(String.self)
        let attributesText = try cells[12].decode(String.self)
        guard case .object(let attributes) = try JSONReader.parse(attributesText.utf8) else {
            throw StoreError.unknownValue(column: "devices.attributes", value: "not a JSON object")
        }
        return Device(
            id: try cells[0].decode(Int64.self),
            token: token,
            environment: try StoreError.decode(try cells[2].decode(String.self), as: APNSEnvironment.self, column: "devices.environment"),
            languages: try cells[3].decode([String].self).compactMap { languages.tag($0) },
            authorization: AuthorizationSettings(
                status: try StoreError.decode(status, as: AuthorizationSettings.Status.self, column: "devices.authorization_status"),
                alert: try cells[5].decode(Bool.self),
                badge: try cells[6].decode(Bool.self),
                sound: try cells[7].decode(Bool.self),
                criticalAlert: try cells[8].decode(Bool.self),
                timeSensitive: try cells[9].decode(Bool.self)),
            timeZone: try cells[10].decode(String?.self),
            userID: try cells[11].decode(String?.self),
            attributes: attributes,
            bucket: Int(try cells[13].decode(Int16.self)),
            registeredAt: try cells[14].decode(Date.self),
            createdAt: try cells[15].decode(Date.self),
            invalidatedAt: try cells[16].decode(Date?.self),
            invalidationReason: try cells[17].decode(String?.self),
            // APNs's milliseconds as the integer it sent (`APNSTimestamp`), not a Date.
            apnsUnregisteredAt: try cells[18].decode(Int64?.self).map(APNSTimestamp.init(milliseconds:)))
    }

    /// Devices' language tags, each text parsed once (at most `capacity` texts remembered).
    struct LanguageCache {
        private var tags = [String: LanguageTag?]()
        private var lists = [String: [LanguageTag]]()
        private let capacity = 512

        /// A device's tags from their comma-joined text; each distinct list is split once.
        mutating func tags(joined text: String) -> [LanguageTag] {
            if let known = lists[text] { return known }
            let parsed = text.split(separator: ",").compactMap { tag(String($0)) }
            if lists.count < capacity { lists[text] = parsed }
            return parsed
        }

        mutating func tag(_ text: String) -> LanguageTag? {
            if let known = tags[text] { return known }
            let tag = LanguageTag(text)
            if tags.count < capacity { tags[text] = tag }
            return tag
        }
    }
}

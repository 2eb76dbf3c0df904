extension Payload {
    /// A first guess at the encoded size; most payloads fit, larger ones grow the buffer.
    static let typicalEncodedSize = 512

    /// The payload as compact UTF-8 JSON, the request body.
    ///
    /// Key order is fixed, so equal payloads give equal bytes:
    /// - top level: `aps`, then the custom keys sorted by key (a custom `aps` is skipped;
    ///   validation refuses it);
    /// - `aps`: `alert`, `badge`, `sound`, `thread-id`, `category`, `content-available`,
    ///   `mutable-content`, `target-content-id`, `interruption-level`, `relevance-score`,
    ///   `filter-criteria`, `stale-date`, `content-state`, `timestamp`, `event`, `dismissal-date`,
    ///   `attributes-type`, `attributes`, `input-push-token`, `input-push-channel`;
    /// - `alert`: `title`, `subtitle`, `body`, `launch-image`, `title-loc-key`, `title-loc-args`,
    ///   `subtitle-loc-key`, `subtitle-loc-args`, `loc-key`, `loc-args`, `action-loc-key`;
    /// - critical `sound`: `critical`, `name`, `volume`.
    public func encoded() -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.typicalEncodedSize)
        encode(into: &bytes)
        return bytes
    }

    /// Appends the encoded payload to `bytes`, so a caller can reuse one buffer.
    public func encode(into bytes: inout [UInt8]) {
        var writer = JSONWriter()
        swap(&writer.bytes, &bytes)
        write(to: &writer)
        swap(&writer.bytes, &bytes)
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("\"aps\":")
        aps.write(to: &writer)
        if !custom.isEmpty {
            for (key, value) in custom.sorted(by: { $0.key < $1.key }) where key != "aps" {
                writer.member(key: key)
                writer.value(value)
            }
        }
        writer.endObject()
    }
}

extension Payload.APS {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        switch alert {
        case .body(let body)?:
            writer.member("\"alert\":")
            writer.string(body)
        case .fields(let fields)?:
            writer.member("\"alert\":")
            fields.write(to: &writer)
        case .liveActivity(let alert)?:
            writer.member("\"alert\":")
            alert.write(to: &writer)
        case nil:
            break
        }
        if let badge {
            writer.member("\"badge\":")
            writer.int(badge)
        }
        if let sound {
            writer.member("\"sound\":")
            sound.write(to: &writer)
        }
        if let threadID {
            writer.member("\"thread-id\":")
            writer.string(threadID)
        }
        if let category {
            writer.member("\"category\":")
            writer.string(category)
        }
        if contentAvailable {
            writer.member("\"content-available\":1")
        }
        if mutableContent {
            writer.member("\"mutable-content\":1")
        }
        if let targetContentID {
            writer.member("\"target-content-id\":")
            writer.string(targetContentID)
        }
        if let interruptionLevel {
            writer.member("\"interruption-level\":")
            writer.string(interruptionLevel.rawValue)
        }
        if let relevanceScore {
            writer.member("\"relevance-score\":")
            writer.double(relevanceScore)
        }
        if let filterCriteria {
            writer.member("\"filter-criteria\":")
            writer.string(filterCriteria)
        }
        if let staleDate {
            writer.member("\"stale-date\":")
            writer.int(staleDate)
        }
        if let contentState {
            writer.member("\"content-state\":")
            writer.value(contentState)
        }
        if let timestamp {
            writer.member("\"timestamp\":")
            writer.int(timestamp)
        }
        if let event {
            writer.member("\"event\":")
            writer.string(event.rawValue)
        }
        if let dismissalDate {
            writer.member("\"dismissal-date\":")
            writer.int(dismissalDate)
        }
        if let attributesType {
            writer.member("\"attributes-type\":")
            writer.string(attributesType)
        }
        if let attributes {
            writer.member("\"attributes\":")
            writer.value(attributes)
        }
        if inputPushToken {
            writer.member("\"input-push-token\":1")
        }
        if let inputPushChannel {
            writer.member("\"input-push-channel\":")
            writer.string(inputPushChannel)
        }
        writer.endObject()
    }
}

extension Payload.LiveActivityAlert {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("\"title\":")
        title.write(to: &writer)
        writer.member("\"body\":")
        body.write(to: &writer)
        if let sound {
            writer.member("\"sound\":")
            writer.string(sound)
        }
        writer.endObject()
    }
}

extension Payload.LiveActivityAlert.Text {
    func write(to writer: inout JSONWriter) {
        switch self {
        case .plain(let text):
            writer.string(text)
        case .localized(let key, let arguments):
            writer.beginObject()
            writer.member("\"loc-key\":")
            writer.string(key)
            writer.member("\"loc-args\":")
            writer.value(.array(arguments.map(PayloadValue.string)))
            writer.endObject()
        }
    }
}

extension Payload.Alert {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let title {
            writer.member("\"title\":")
            writer.string(title)
        }
        if let subtitle {
            writer.member("\"subtitle\":")
            writer.string(subtitle)
        }
        if let body {
            writer.member("\"body\":")
            writer.string(body)
        }
        if let launchImage {
            writer.member("\"launch-image\":")
            writer.string(launchImage)
        }
        if let titleLocKey {
            writer.member("\"title-loc-key\":")
            writer.string(titleLocKey)
        }
        if let titleLocArgs {
            writer.member("\"title-loc-args\":")
            writer.stringArray(titleLocArgs)
        }
        if let subtitleLocKey {
            writer.member("\"subtitle-loc-key\":")
            writer.string(subtitleLocKey)
        }
        if let subtitleLocArgs {
            writer.member("\"subtitle-loc-args\":")
            writer.stringArray(subtitleLocArgs)
        }
        if let locKey {
            writer.member("\"loc-key\":")
            writer.string(locKey)
        }
        if let locArgs {
            writer.member("\"loc-args\":")
            writer.stringArray(locArgs)
        }
        if let actionLocKey {
            writer.member("\"action-loc-key\":")
            writer.string(actionLocKey)
        }
        writer.endObject()
    }
}

extension Payload.Sound {
    func write(to writer: inout JSONWriter) {
        switch self {
        case .named(let name):
            writer.string(name)
        case .critical(let name, let volume):
            writer.beginObject()
            writer.member("\"critical\":1")
            writer.member("\"name\":")
            writer.string(name)
            writer.member("\"volume\":")
            writer.double(volume)
            writer.endObject()
        }
    }
}

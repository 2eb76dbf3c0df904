/// A notification's JSON payload: the `aps` dictionary and custom keys beside it.
///
/// docs/apns.md "Payloads": custom keys go beside `aps`, never inside it. Encode with
/// ``encoded()`` (compact UTF-8 JSON, see `Payload+Encoding.swift`) and check with
/// ``validate(for:)`` before sending.
public struct Payload: Hashable, Sendable {
    /// The `aps` dictionary.
    public var aps: APS
    /// App-defined keys written beside `aps`, sorted by key so the bytes are deterministic.
    /// A custom key named `aps` is refused by validation.
    public var custom: [String: PayloadValue]

    public init(aps: APS = APS(), custom: [String: PayloadValue] = [:]) {
        self.aps = aps
        self.custom = custom
    }

    /// True when neither `aps` nor the custom keys hold anything: APNs answers such a body with
    /// 400 PayloadEmpty, so validation refuses it first.
    public var isEmpty: Bool {
        aps.isEmpty && custom.isEmpty
    }
}

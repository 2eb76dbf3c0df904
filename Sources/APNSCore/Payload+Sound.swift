extension Payload {
    /// `aps.sound`: a sound file name, or the critical-alert dictionary
    /// `{"critical": 1, "name": ..., "volume": 0...1}` (docs/apns.md "Payloads").
    public enum Sound: Hashable, Sendable {
        /// Written as `"sound": "<name>"`; `"default"` is the system sound.
        case named(String)
        /// Written as `"sound": {"critical": 1, "name": ..., "volume": ...}`. The volume must
        /// be within 0...1; validation refuses anything else.
        case critical(name: String, volume: Double)

        /// The system's default sound.
        public static let `default` = Sound.named("default")
    }
}

import Foundation

/// "At most 3 campaign notifications per device in any 7 days": an app's cap on how often its
/// campaigns reach one device. An app may have several (e.g. 1 a day and 3 a week); a device
/// is sent to only while it is under every one. Transactional sends do not count.
public struct FrequencyCap: Codable, Sendable, Hashable {
    public static let maximumLimit = 1000
    public static let maximumWindow = 90 * 86_400

    /// Notifications allowed in the window.
    public var limit: Int
    /// The rolling window, in seconds.
    public var window: Int

    public init(limit: Int, window: Int) {
        self.limit = limit
        self.window = window
    }

    /// `N/Xd` or `N/Xh` (3/7d: three in any seven days), or the reason it is not one.
    public static func parse(_ text: String) -> Result<FrequencyCap, ValidationError> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let unit = parts.count == 2 ? parts[1].last : nil
        guard parts.count == 2, let limit = Int(parts[0]), let unit, unit == "d" || unit == "h",
            let amount = Int(parts[1].dropLast())
        else {
            return .failure(ValidationError(field: "frequencyCaps", reason: "must be N/Xd or N/Xh, e.g. 3/7d"))
        }
        // A window of more days or hours than an Int holds is refused, not computed.
        let (window, overflow) = amount.multipliedReportingOverflow(by: unit == "d" ? 86_400 : 3600)
        guard !overflow else {
            return .failure(
                ValidationError(field: "frequencyCaps", reason: "the window must be at most \(maximumWindow / 86_400) days"))
        }
        let cap = FrequencyCap(limit: limit, window: window)
        if let error = cap.validate().first { return .failure(error) }
        return .success(cap)
    }

    /// Several caps as `N/Xd` or `N/Xh` each, at most ``AppSettings/maximumCaps``; the error
    /// names the cap (`frequencyCaps[1]`).
    public static func parse(list texts: [String]) -> Result<[FrequencyCap], ValidationError> {
        guard texts.count <= AppSettings.maximumCaps else {
            return .failure(ValidationError(field: "frequencyCaps", reason: "at most \(AppSettings.maximumCaps) caps"))
        }
        var caps = [FrequencyCap]()
        for (index, text) in texts.enumerated() {
            switch parse(text) {
            case .success(let cap): caps.append(cap)
            case .failure(let error):
                return .failure(ValidationError(field: "frequencyCaps[\(index)]", reason: "\(text): \(error.reason)"))
            }
        }
        return .success(caps)
    }

    public var description: String {
        window % 86_400 == 0 ? "\(limit)/\(window / 86_400)d" : "\(limit)/\(window / 3600)h"
    }

    public func validate() -> [ValidationError] {
        var errors = [ValidationError]()
        if !(1...Self.maximumLimit).contains(limit) {
            errors.append(ValidationError(field: "limit", reason: "must be from 1 to \(Self.maximumLimit) notifications"))
        }
        if !(3600...Self.maximumWindow).contains(window) || window % 3600 != 0 {
            errors.append(ValidationError(field: "window", reason: "must be whole hours from 1 hour to 90 days"))
        }
        return errors
    }
}

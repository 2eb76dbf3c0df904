import APNSCore
import Foundation

extension JourneyDefinition {
    /// The push options a send step may set: the headers and payload settings of a
    /// transactional send, without a push type (the template's) or an absolute expiration (a
    /// journey's sends happen at any time; `timeToLive` is relative to each).
    static let sendOptionKeys: Set<String> = [
        "priority", "timeToLive", "collapseID", "threadID", "category", "interruptionLevel", "relevanceScore", "custom",
    ]

    /// A send step's `pushOptions`, checked by the rules of a campaign's (docs/journeys.md "Steps").
    static func pushOptions(_ value: PayloadValue?, path: String) throws(ValidationError) -> PushOptions {
        guard let value, value != .null else { return PushOptions() }
        let members = try object(value, path: path)
        try only(members, sendOptionKeys, path: path)
        func text(_ key: String) throws(ValidationError) -> String? {
            switch members[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw ValidationError(field: "\(path).\(key)", reason: "must be a string")
            }
        }
        func integer(_ key: String) throws(ValidationError) -> Int? {
            switch members[key] {
            case nil, .null?: return nil
            case .int(let number)?: return number
            default: throw ValidationError(field: "\(path).\(key)", reason: "must be a whole number")
            }
        }
        var options = PushOptions()
        if let priority = try integer("priority") {
            guard let known = Priority(rawValue: priority) else {
                throw ValidationError(field: "\(path).priority", reason: "must be 10, 5 or 1")
            }
            options.priority = known
        }
        options.timeToLive = try integer("timeToLive")
        options.collapseID = try text("collapseID")
        options.threadID = try text("threadID")
        options.category = try text("category")
        if let level = try text("interruptionLevel") {
            guard let known = Payload.InterruptionLevel(rawValue: level) else {
                let names = Payload.InterruptionLevel.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError(field: "\(path).interruptionLevel", reason: "must be one of \(names)")
            }
            options.interruptionLevel = known
        }
        switch members["relevanceScore"] {
        case nil, .null?: break
        case .int(let number)?: options.relevanceScore = Double(number)
        case .double(let number)?: options.relevanceScore = number
        default: throw ValidationError(field: "\(path).relevanceScore", reason: "must be a number between 0 and 1")
        }
        switch members["custom"] {
        case nil, .null?: break
        case .object(let custom)?: options.custom = custom
        default: throw ValidationError(field: "\(path).custom", reason: "must be a JSON object")
        }
        if let problem = options.validate().first {
            throw ValidationError(field: "\(path).\(problem.field)", reason: problem.reason)
        }
        return options
    }
}

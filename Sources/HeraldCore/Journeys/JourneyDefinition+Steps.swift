import APNSCore
import Foundation

extension JourneyDefinition {
    /// `{"event": {…}}` or `{"segment": "name"}`, with `reentryAfterMinutes` and `limitPerUser`.
    static func entry(_ value: PayloadValue) throws(ValidationError) -> Entry {
        let object = try object(value, path: "entry")
        try only(object, ["event", "segment", "reentryAfterMinutes", "limitPerUser"], path: "entry")
        let trigger: Entry.Trigger
        switch (object["event"], object["segment"]) {
        case (let event?, nil):
            trigger = .event(try eventMatch(event, path: "entry.event"))
        case (nil, .string(let name)?):
            if let problem = SavedSegment.nameProblem(name) { throw ValidationError(field: "entry.segment", reason: problem) }
            trigger = .segment(name: name)
        case (nil, _?):
            throw ValidationError(field: "entry.segment", reason: "must be a saved segment's name")
        default:
            throw ValidationError(field: "entry", reason: "names what users enter on: event or segment, one of them")
        }
        var reentry: Int?
        if let minutes = object["reentryAfterMinutes"], minutes != .null {
            reentry = try Self.minutes(minutes, path: "entry.reentryAfterMinutes", minimum: minimumReentrySeconds / 60)
        }
        var limit: Int?
        if let value = object["limitPerUser"], value != .null {
            guard case .int(let number) = value, (1...1000).contains(number) else {
                throw ValidationError(field: "entry.limitPerUser", reason: "must be a whole number from 1 to 1000")
            }
            limit = number
        }
        return Entry(trigger: trigger, reentryAfterSeconds: reentry, limitPerUser: limit)
    }

    /// `{"name": "cart_abandoned", "where": [{"attribute": "cartValue", "gt": 20}, …]}`.
    static func eventMatch(_ value: PayloadValue, path: String) throws(ValidationError) -> EventMatch {
        let object = try object(value, path: path)
        try only(object, ["name", "where"], path: path)
        guard case .string(let name)? = object["name"], !name.isEmpty,
            TextRules.storedLength(name) <= AppEvent.maximumNameLength, TextRules.forbiddenCharacter(in: name) == nil
        else {
            throw ValidationError(
                field: "\(path).name", reason: "must be an event's name, 1 to \(AppEvent.maximumNameLength) characters")
        }
        var conditions = [Segment]()
        if let whereJSON = object["where"], whereJSON != .null {
            guard case .array(let items) = whereJSON, items.count <= 20 else {
                throw ValidationError(field: "\(path).where", reason: "must be an array of at most 20 property conditions")
            }
            for (index, item) in items.enumerated() {
                let place = "\(path).where[\(index)]"
                let condition = try Segment(json: item, path: place)
                guard case .attribute = condition else {
                    throw ValidationError(field: place, reason: "a property condition: {\"attribute\": \"cartValue\", \"gt\": 20}")
                }
                conditions.append(condition)
            }
        }
        return EventMatch(name: name, conditions: conditions)
    }

    /// One step: an object naming one of send, wait, waitFor, branch, split, exit, with where it goes.
    static func step(_ value: PayloadValue, path: String) throws(ValidationError) -> Step {
        let object = try object(value, path: path)
        let kinds = ["send", "wait", "waitFor", "branch", "split", "exit"]
        let given = kinds.filter { object[$0] != nil }
        guard given.count == 1, let kind = given.first else {
            throw ValidationError(field: path, reason: "names one step of \(kinds.joined(separator: ", "))")
        }
        let inner = object[kind]!
        func target(_ key: String) throws(ValidationError) -> String {
            guard case .string(let id)? = object[key] else {
                throw ValidationError(field: "\(path).\(key)", reason: "is required: the ID of the step to go to")
            }
            return id
        }
        switch kind {
        case "send":
            try only(object, ["send", "next"], path: path)
            let send = try Self.object(inner, path: "\(path).send")
            try only(send, ["template", "variables", "pushOptions"], path: "\(path).send")
            guard case .string(let template)? = send["template"], CampaignRules.check(templateName: template).isEmpty else {
                throw ValidationError(field: "\(path).send.template", reason: "must name a template (lowercase letters, digits, - and _)")
            }
            var variables = [String: PayloadValue]()
            if let given = send["variables"], given != .null {
                guard case .object(let members) = given else {
                    throw ValidationError(field: "\(path).send.variables", reason: "must be a JSON object")
                }
                if let problem = StoredValueRules.problem(in: given, field: "\(path).send.variables") { throw problem }
                variables = members
            }
            let options = try pushOptions(send["pushOptions"], path: "\(path).send.pushOptions")
            return .send(template: template, variables: variables, options: options, next: try target("next"))
        case "wait":
            try only(object, ["wait", "next"], path: path)
            let wait = try Self.object(inner, path: "\(path).wait")
            try only(wait, ["minutes", "window"], path: "\(path).wait")
            if let window = wait["window"] {
                guard wait["minutes"] == nil else {
                    throw ValidationError(field: "\(path).wait", reason: "gives minutes or a window, not both")
                }
                guard case .string(let text) = window, case .success(let hours) = QuietHours.parse(text) else {
                    throw ValidationError(field: "\(path).wait.window", reason: "must be HH:MM-HH:MM of the user's local time, e.g. 18:00-20:00")
                }
                return .waitWindow(hours, next: try target("next"))
            }
            guard let minutes = wait["minutes"] else {
                throw ValidationError(field: "\(path).wait.minutes", reason: "is required (or a window)")
            }
            return .wait(seconds: try Self.minutes(minutes, path: "\(path).wait.minutes", minimum: 1), next: try target("next"))
        case "waitFor":
            try only(object, ["waitFor", "timeoutMinutes", "next", "timeoutNext"], path: path)
            let wait = try Self.object(inner, path: "\(path).waitFor")
            let waitTarget: WaitTarget
            switch (wait["event"], wait["opened"]) {
            case (let event?, nil):
                try only(wait, ["event"], path: "\(path).waitFor")
                waitTarget = .event(try eventMatch(event, path: "\(path).waitFor.event"))
            case (nil, .bool(true)?):
                try only(wait, ["opened"], path: "\(path).waitFor")
                waitTarget = .opened
            default:
                throw ValidationError(field: "\(path).waitFor", reason: "waits for {\"event\": {…}} or {\"opened\": true}")
            }
            guard let timeout = object["timeoutMinutes"] else {
                throw ValidationError(field: "\(path).timeoutMinutes", reason: "is required: a wait for an event must end")
            }
            return .waitFor(
                waitTarget, timeoutSeconds: try Self.minutes(timeout, path: "\(path).timeoutMinutes", minimum: 1),
                next: try target("next"), timeoutNext: try target("timeoutNext"))
        case "branch":
            try only(object, ["branch", "yes", "no"], path: path)
            let branch = try Self.object(inner, path: "\(path).branch")
            let test: BranchTest
            switch (branch["segment"], branch["opened"]) {
            case (.string(let name)?, nil):
                try only(branch, ["segment"], path: "\(path).branch")
                if let problem = SavedSegment.nameProblem(name) {
                    throw ValidationError(field: "\(path).branch.segment", reason: problem)
                }
                test = .savedSegment(name: name)
            case (let segment?, nil):
                try only(branch, ["segment"], path: "\(path).branch")
                test = .segment(try Segment(json: segment, path: "\(path).branch.segment"))
            case (nil, .bool(true)?):
                try only(branch, ["opened"], path: "\(path).branch")
                test = .opened
            default:
                throw ValidationError(
                    field: "\(path).branch", reason: "tests {\"segment\": {…}}, {\"segment\": \"saved name\"} or {\"opened\": true}")
            }
            return .branch(test, yes: try target("yes"), no: try target("no"))
        case "split":
            try only(object, ["split"], path: path)
            guard case .array(let items) = inner, (2...maximumSplitPaths).contains(items.count) else {
                throw ValidationError(field: "\(path).split", reason: "must be 2 to \(maximumSplitPaths) paths")
            }
            var paths = [(weight: Int, next: String)]()
            for (index, item) in items.enumerated() {
                let place = "\(path).split[\(index)]"
                let member = try Self.object(item, path: place)
                try only(member, ["weight", "next"], path: place)
                guard case .int(let weight)? = member["weight"], (1...1000).contains(weight) else {
                    throw ValidationError(field: "\(place).weight", reason: "must be a whole number from 1 to 1000")
                }
                guard case .string(let next)? = member["next"] else {
                    throw ValidationError(field: "\(place).next", reason: "is required: the ID of the step to go to")
                }
                paths.append((weight, next))
            }
            return .split(paths)
        default:
            try only(object, ["exit"], path: path)
            guard case .object(let members) = inner, members.isEmpty else {
                throw ValidationError(field: "\(path).exit", reason: "is {}")
            }
            return .exit
        }
    }

    /// Whole minutes from `minimum` to 90 days, as seconds.
    static func minutes(_ value: PayloadValue, path: String, minimum: Int) throws(ValidationError) -> Int {
        guard case .int(let minutes) = value, (minimum...(maximumWaitSeconds / 60)).contains(minutes) else {
            throw ValidationError(field: path, reason: "must be a whole number of minutes from \(minimum) to \(maximumWaitSeconds / 60)")
        }
        return minutes * 60
    }

    static func object(_ value: PayloadValue, path: String) throws(ValidationError) -> [String: PayloadValue] {
        guard case .object(let object) = value else { throw ValidationError(field: path, reason: "must be a JSON object") }
        return object
    }

    static func only(_ object: [String: PayloadValue], _ allowed: Set<String>, path: String) throws(ValidationError) {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ValidationError(field: path.isEmpty ? unknown : "\(path).\(unknown)", reason: "unknown field")
        }
    }
}

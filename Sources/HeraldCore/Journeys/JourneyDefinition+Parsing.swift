import APNSCore
import Foundation

extension JourneyDefinition {
    /// The journey a JSON value describes. Throws the first problem, naming its JSON path
    /// (`steps.remind.send.template`, `steps.loop`): a graph that could not run as written (a
    /// step nothing reaches, a path with no exit, a cycle with no wait in it) is refused here.
    public init(json value: PayloadValue) throws(ValidationError) {
        let object = try Self.object(value, path: "journey")
        try Self.only(object, ["entry", "start", "steps", "goal", "holdoutPercent"], path: "")
        guard let entryJSON = object["entry"] else { throw ValidationError(field: "entry", reason: "is required") }
        let entry = try Self.entry(entryJSON)
        guard case .string(let start)? = object["start"] else {
            throw ValidationError(field: "start", reason: "is required: the first step's ID")
        }
        guard case .object(let stepsJSON)? = object["steps"], !stepsJSON.isEmpty, stepsJSON.count <= Self.maximumSteps else {
            throw ValidationError(field: "steps", reason: "must be an object of 1 to \(Self.maximumSteps) steps by ID")
        }
        var steps = [String: Step]()
        for (id, stepJSON) in stepsJSON.sorted(by: { $0.key < $1.key }) {
            guard Self.isStepID(id) else {
                throw ValidationError(field: "steps.\(id)", reason: "a step ID is 1 to 64 letters, digits, _ or -")
            }
            steps[id] = try Self.step(stepJSON, path: "steps.\(id)")
        }
        var goal: EventMatch?
        var goalWindow = Self.defaultGoalWindowSeconds
        if let goalJSON = object["goal"], goalJSON != .null {
            let goalObject = try Self.object(goalJSON, path: "goal")
            try Self.only(goalObject, ["event", "withinDays"], path: "goal")
            guard let event = goalObject["event"] else { throw ValidationError(field: "goal.event", reason: "is required") }
            goal = try Self.eventMatch(event, path: "goal.event")
            if let days = goalObject["withinDays"], days != .null {
                guard case .int(let number) = days, (1...Self.maximumWaitSeconds / 86_400).contains(number) else {
                    throw ValidationError(field: "goal.withinDays", reason: "must be a whole number of days from 1 to 90")
                }
                goalWindow = number * 86_400
            }
        }
        var holdout = 0
        if let percent = object["holdoutPercent"], percent != .null {
            guard let number = percent.number, number.isFinite, (0...50).contains(number) else {
                throw ValidationError(field: "holdoutPercent", reason: "must be a number from 0 to 50")
            }
            holdout = Int((number * 100).rounded())
        }
        self.init(entry: entry, start: start, steps: steps, goal: goal, holdoutBasisPoints: holdout)
        goalWindowSeconds = goalWindow
        try checkGraph()
    }

    /// The graph's rules: every step named exists, every step is reached, every path can end,
    /// and time passes on every cycle.
    func checkGraph() throws(ValidationError) {
        guard steps[start] != nil else { throw ValidationError(field: "start", reason: "names no step") }
        for (id, step) in steps.sorted(by: { $0.key < $1.key }) {
            for (index, next) in step.successors.enumerated() where steps[next] == nil {
                throw ValidationError(field: "steps.\(id).\(Self.successorKey(step, index))", reason: "names no step: \(next)")
            }
        }
        // Reached from the start.
        var reached: Set<String> = [start]
        var queue = [start]
        while let id = queue.popLast() {
            for next in steps[id]?.successors ?? [] where reached.insert(next).inserted { queue.append(next) }
        }
        if let unreached = steps.keys.sorted().first(where: { !reached.contains($0) }) {
            throw ValidationError(field: "steps.\(unreached)", reason: "no path from the start reaches it")
        }
        // Every step can reach an exit: walk back from the exits.
        var predecessors = [String: [String]]()
        for (id, step) in steps { for next in step.successors { predecessors[next, default: []].append(id) } }
        var ending = Set(steps.filter { $0.value == .exit }.keys)
        queue = Array(ending)
        while let id = queue.popLast() {
            for previous in predecessors[id] ?? [] where ending.insert(previous).inserted { queue.append(previous) }
        }
        if let endless = steps.keys.sorted().first(where: { !ending.contains($0) }) {
            throw ValidationError(field: "steps.\(endless)", reason: "no path from it reaches an exit")
        }
        // A cycle through steps that never wait would spin: each must hold a wait or a waitFor.
        for component in Self.cycles(steps) where !component.contains(where: { steps[$0]?.waits == true }) {
            throw ValidationError(
                field: "steps.\(component.sorted()[0])",
                reason: "is on a cycle with no wait in it (\(component.sorted().joined(separator: ", ")))")
        }
    }

    /// The strongly connected components that hold a cycle (Tarjan's algorithm, by ID order).
    static func cycles(_ steps: [String: Step]) -> [[String]] {
        var index = 0
        var indices = [String: Int]()
        var lowLinks = [String: Int]()
        var stack = [String]()
        var onStack = Set<String>()
        var found = [[String]]()
        func connect(_ id: String) {
            indices[id] = index
            lowLinks[id] = index
            index += 1
            stack.append(id)
            onStack.insert(id)
            for next in steps[id]?.successors ?? [] {
                if indices[next] == nil {
                    connect(next)
                    lowLinks[id] = min(lowLinks[id]!, lowLinks[next]!)
                } else if onStack.contains(next) {
                    lowLinks[id] = min(lowLinks[id]!, indices[next]!)
                }
            }
            guard lowLinks[id] == indices[id] else { return }
            var component = [String]()
            while let top = stack.popLast() {
                onStack.remove(top)
                component.append(top)
                if top == id { break }
            }
            if component.count > 1 || (steps[id]?.successors.contains(id) ?? false) { found.append(component) }
        }
        for id in steps.keys.sorted() where indices[id] == nil { connect(id) }
        return found
    }

    static func successorKey(_ step: Step, _ index: Int) -> String {
        switch step {
        case .waitFor: index == 0 ? "next" : "timeoutNext"
        case .branch: index == 0 ? "yes" : "no"
        case .split: "split[\(index)].next"
        default: "next"
        }
    }

    public static func isStepID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
    }
}

import APNSCore
import Foundation

/// What happens to one entrant at a step: the journey's logic as a pure function of the
/// graph, where the entrant stands and what woke it (docs/journeys.md "How a user moves").
/// The engine applies the answer (a send, a wait stored with its due time, a question put to
/// the database) and asks again until the entrant waits or leaves.
public enum JourneyWalk {
    /// Why the entrant is looked at.
    public enum Cause: String, Sendable, Hashable {
        /// It just came to the step.
        case arrived
        /// Its step's time came (a wait ended, a waitFor timed out).
        case due
        /// What its waitFor waits for happened.
        case matched
    }

    public enum Action: Sendable, Hashable {
        /// Send the template to the user's devices (once for this visit of the step), then go on.
        case send(template: String, variables: [String: PayloadValue], options: PushOptions, next: String)
        /// Stay at the step until `until`; a waitFor also wakes on what it waits for.
        case wait(until: Date, target: JourneyDefinition.WaitTarget?)
        /// Go to `next` along the step's `path` (`next`, `matched`, `timedOut`, `yes`, `no`, `path2`…).
        case go(next: String, path: String)
        /// The engine answers the test (``answer(_:step:yes:)``).
        case test(JourneyDefinition.BranchTest)
        /// Leave the journey.
        case exit
    }

    /// What to do at `step` (`arrivedAt`: when the entrant came to it, for a wait's end).
    /// `roll` is the entrant's draw for the step (``roll(journeyID:user:salt:)``): a split's
    /// path, a window's moment; `zone` the user's local time.
    public static func act(
        _ journey: JourneyDefinition, step id: String, cause: Cause, arrivedAt: Date, now: Date, split roll: Double,
        zone: TimeZone = TimeZone(identifier: "UTC")!
    ) -> Action {
        guard let step = journey.steps[id] else { return .exit }
        switch step {
        case .send(let template, let variables, let options, let next):
            return cause == .arrived
                ? .send(template: template, variables: variables, options: options, next: next) : .go(next: next, path: "next")
        case .wait(let seconds, let next):
            let end = arrivedAt.addingTimeInterval(TimeInterval(seconds))
            return cause == .arrived && end > now ? .wait(until: end, target: nil) : .go(next: next, path: "next")
        case .waitWindow(let window, let next):
            let release = release(in: window, after: arrivedAt, zone: zone, roll: roll)
            return release > now ? .wait(until: release, target: nil) : .go(next: next, path: "next")
        case .waitFor(let target, let timeout, let next, let timeoutNext):
            switch cause {
            case .matched: return .go(next: next, path: "matched")
            case .due, .arrived:
                let end = arrivedAt.addingTimeInterval(TimeInterval(timeout))
                return end > now ? .wait(until: end, target: target) : .go(next: timeoutNext, path: "timedOut")
            }
        case .branch(let test, _, _):
            return .test(test)
        case .split(let paths):
            let index = pick(paths.map(\.weight), roll: roll)
            return .go(next: paths[index].next, path: "path\(index + 1)")
        case .exit:
            return .exit
        }
    }

    /// The moment inside the first window (of local time in `zone`) that ends after `arrival`,
    /// at `roll` of the way through what is left of it: a user already inside it goes between
    /// now and its end.
    public static func release(in window: QuietHours, after arrival: Date, zone: TimeZone, roll: Double) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let length = TimeInterval(((window.end - window.start + 1440) % 1440) * 60)
        let today = calendar.startOfDay(for: arrival)
        for offset in -1...2 {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today),
                let start = calendar.date(bySettingHour: window.start / 60, minute: window.start % 60, second: 0, of: day)
            else { continue }
            let end = start.addingTimeInterval(length)
            guard end > arrival else { continue }
            let from = max(start, arrival)
            return from.addingTimeInterval(end.timeIntervalSince(from) * min(max(roll, 0), 1))
        }
        return arrival.addingTimeInterval(86_400)
    }

    /// The way a branch goes once its test is answered.
    public static func answer(_ journey: JourneyDefinition, step id: String, yes: Bool) -> Action {
        guard case .branch(_, let yesNext, let noNext)? = journey.steps[id] else { return .exit }
        return yes ? .go(next: yesNext, path: "yes") : .go(next: noNext, path: "no")
    }

    /// The path of a weighted split a roll in [0, 1) falls on.
    public static func pick(_ weights: [Int], roll: Double) -> Int {
        let total = weights.reduce(0, +)
        var mark = roll * Double(total)
        for (index, weight) in weights.enumerated() {
            mark -= Double(weight)
            if mark < 0 { return index }
        }
        return weights.count - 1
    }

    /// A number in [0, 1) that is a pure function of the journey, the user and what it is
    /// for (`holdout`, a split's step ID): the same user lands on the same split path and in
    /// the same group on every entry, and journeys draw apart.
    public static func roll(journeyID: Int64, user: String, salt: String) -> Double {
        // FNV-1a over the bytes, then SplitMix64's finalizer to spread them: stable across
        // processes and versions, unlike Swift's seeded `Hasher`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(journeyID)\u{1F}\(salt)\u{1F}\(user)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return Double(hash >> 11) / Double(UInt64(1) << 53)
    }

    /// Whether a user is held out of a journey (its holdout share, in basis points).
    public static func heldOut(journeyID: Int64, user: String, basisPoints: Int) -> Bool {
        basisPoints > 0 && roll(journeyID: journeyID, user: user, salt: "holdout") * 10_000 < Double(basisPoints)
    }
}

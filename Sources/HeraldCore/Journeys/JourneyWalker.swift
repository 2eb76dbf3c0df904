import APNSCore
import Foundation

/// One entrant's walk from where it stands until it waits or leaves, as a state machine the
/// engine drives (docs/journeys.md "The engine"): ``resume(_:)`` applies ``JourneyWalk`` step
/// after step and stops at each question only the world can answer (a segment, an open, a
/// send), which the engine answers for a whole claimed batch at once. Pure: no I/O, no clock.
public struct JourneyWalker: Sendable {
    /// What the engine must find out or do before the walk goes on.
    public enum Question: Sendable, Hashable {
        /// Whether one of the user's valid devices (or the device) matches the segment now.
        case segment(Segment)
        /// The same, for the app's saved segment of this name (its latest version); no when it
        /// was archived since.
        case savedSegment(name: String)
        /// Whether a notification of this visit's send was opened.
        case opened(visit: Int)
        /// Send the template to the user's devices, unless every one of them is inside quiet hours.
        case send(template: String, variables: [String: PayloadValue], options: PushOptions, visit: Int, step: String)
    }

    public enum Answer: Sendable, Hashable {
        /// The answer to `segment` or `opened`.
        case yes(Bool)
        /// The send is done; why nothing went out, when nothing did.
        case sent(detail: String?)
        /// Every device is inside quiet hours until then: the send waits.
        case held(until: Date)
    }

    /// What an asked question was for.
    private enum Asked: Sendable {
        case branch
        case openedBeforeWait(until: Date)
        case send(next: String)
    }

    public let lease: JourneyLease
    public private(set) var progress: JourneyProgress
    /// False while a question is open.
    public private(set) var isSettled = false
    private let now: Date
    private let zone: TimeZone
    private var asked: Asked?
    private var acts = 0

    /// `zone`: the user's local time, for a window's moment.
    public init(_ lease: JourneyLease, now: Date, zone: TimeZone) {
        self.lease = lease
        self.now = now
        self.zone = zone
        progress = JourneyProgress(
            moves: [], step: lease.step, outcome: nil, arrivedAt: lease.arrivedAt, cause: lease.cause, dueAt: nil,
            waitingFor: nil, waitingOpened: false, visits: lease.visits, lastSend: lease.lastSend)
    }

    /// Walks on with the answer to the last question (nil at the start); the next question, or
    /// nil once the entrant waits or has left (``progress`` says where it stands).
    public mutating func resume(_ answer: Answer? = nil) -> Question? {
        let graph = lease.definition
        var answer = answer
        while !isSettled {
            guard let step = progress.step else { return settle() }
            let action: JourneyWalk.Action
            switch (asked, answer) {
            case (.branch?, .yes(let yes)?):
                action = JourneyWalk.answer(graph, step: step, yes: yes)
            case (.openedBeforeWait(let until)?, .yes(let opened)?):
                asked = nil
                answer = nil
                if opened {
                    progress.cause = .matched
                    continue
                }
                wait(until: until, target: .opened)
                return settle()
            case (.send?, .held(let until)?):
                progress.dueAt = until
                progress.cause = .arrived
                return settle()
            case (.send(let next)?, .sent(let detail)?):
                asked = nil
                answer = nil
                progress.lastSend = progress.visits
                move(from: step, path: "next", to: next, detail: detail)
                continue
            default:
                // Every cycle holds a wait, so a walk takes each step at most once before it waits.
                guard acts <= graph.steps.count + 1 else {
                    // Unreachable for a checked graph; the entry is looked at again in a minute.
                    progress.dueAt = now.addingTimeInterval(60)
                    return settle()
                }
                acts += 1
                let roll = JourneyWalk.roll(journeyID: lease.journeyID, user: lease.userKey, salt: step)
                action = JourneyWalk.act(
                    graph, step: step, cause: progress.cause, arrivedAt: progress.arrivedAt, now: now, split: roll, zone: zone)
            }
            asked = nil
            answer = nil
            switch action {
            case .test(.segment(let segment)):
                asked = .branch
                return .segment(segment)
            case .test(.savedSegment(let name)):
                asked = .branch
                return .savedSegment(name: name)
            case .test(.opened):
                guard let last = progress.lastSend else {
                    asked = .branch
                    answer = .yes(false)
                    continue
                }
                asked = .branch
                return .opened(visit: last)
            case .send(let template, let variables, let options, let next):
                // A visit whose send is in the ledger already (a replay after a crash) is not sent again.
                if lease.sentVisits.contains(progress.visits) {
                    asked = .send(next: next)
                    answer = .sent(detail: nil)
                    continue
                }
                asked = .send(next: next)
                return .send(template: template, variables: variables, options: options, visit: progress.visits, step: step)
            case .go(let next, let path):
                move(from: step, path: path, to: next, detail: nil)
            case .wait(let until, let target):
                if target == .opened, let last = progress.lastSend {
                    asked = .openedBeforeWait(until: until)
                    return .opened(visit: last)
                }
                wait(until: until, target: target)
                return settle()
            case .exit:
                progress.step = nil
                progress.outcome = "exited"
                progress.arrivedAt = now
                progress.dueAt = nil
                return settle()
            }
        }
        return nil
    }

    private mutating func settle() -> Question? {
        isSettled = true
        asked = nil
        return nil
    }

    private mutating func wait(until: Date, target: JourneyDefinition.WaitTarget?) {
        progress.dueAt = until
        progress.cause = .arrived
        if case .event(let match)? = target { progress.waitingFor = match.name }
        progress.waitingOpened = target == .opened
    }

    private mutating func move(from step: String, path: String, to next: String, detail: String?) {
        progress.moves.append(JourneyMove(visit: progress.visits, step: step, path: path, next: next, detail: detail, at: now))
        progress.step = next
        progress.visits += 1
        progress.cause = .arrived
        progress.arrivedAt = now
        progress.waitingFor = nil
        progress.waitingOpened = false
    }
}

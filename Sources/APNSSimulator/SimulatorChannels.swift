import APNSCore
import Foundation
import Synchronization

/// The simulator's broadcast channels per bundle ID, and the broadcasts sent to them
/// (docs/live-activities.md "Broadcast channels"). One simulator stands for one environment,
/// as APNs keeps channels per environment.
final class SimulatorChannels: Sendable {
    /// APNs's reported limit per app and environment (CannotCreateChannelConfig past it).
    static let maximumPerApp = 10_000
    /// Broadcasts kept for ``broadcasts()``, newest last.
    static let keptBroadcasts = 10_000

    private let channels = Mutex<[String: [String: ChannelStoragePolicy]]>([:])
    private let received = Mutex<[SimulatorBroadcast]>([])

    /// Carries out an accepted request: the answer's status, reason, new channel ID and body.
    func perform(_ operation: SimulatorChannelOperation) -> (status: Int, reason: APNSReason?, channelID: String?, body: [UInt8]?) {
        switch operation {
        case .create(let bundleID, let policy):
            return channels.withLock { all in
                guard all[bundleID, default: [:]].count < Self.maximumPerApp else {
                    return (400, .cannotCreateChannelConfig, nil, nil)
                }
                var id: String
                repeat {
                    id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                } while all[bundleID]?[id] != nil
                all[bundleID, default: [:]][id] = policy
                return (201, nil, id, nil)
            }
        case .read(let bundleID, let channel):
            guard let policy = channels.withLock({ $0[bundleID]?[channel.value] }) else {
                return (400, .channelNotRegistered, nil, nil)
            }
            let body = #"{"message-storage-policy":\#(policy.rawValue),"push-type":"LiveActivity"}"#
            return (200, nil, nil, Array(body.utf8))
        case .delete(let bundleID, let channel):
            let removed = channels.withLock { $0[bundleID]?.removeValue(forKey: channel.value) }
            return removed == nil ? (400, .channelNotRegistered, nil, nil) : (204, nil, nil, nil)
        case .list(let bundleID):
            let ids = channels.withLock { ($0[bundleID] ?? [:]).keys.sorted() }
            let body = try? JSONSerialization.data(withJSONObject: ["channels": ids])
            return (200, nil, nil, Array(body ?? Data(#"{"channels":[]}"#.utf8)))
        case .broadcast(let broadcast):
            guard channels.withLock({ $0[broadcast.bundleID]?[broadcast.channel.value] }) != nil else {
                return (400, .channelNotRegistered, nil, nil)
            }
            received.withLock { list in
                if list.count >= Self.keptBroadcasts { list.removeFirst(list.count - Self.keptBroadcasts + 1) }
                list.append(broadcast)
            }
            return (200, nil, nil, nil)
        }
    }

    /// The channels of a bundle ID.
    func channels(of bundleID: String) -> [String: ChannelStoragePolicy] {
        channels.withLock { $0[bundleID] ?? [:] }
    }

    /// Removes a channel as if APNs had dropped it; false when there was none.
    func forget(_ channelID: String, of bundleID: String) -> Bool {
        channels.withLock { $0[bundleID]?.removeValue(forKey: channelID) != nil }
    }

    func broadcasts() -> [SimulatorBroadcast] {
        received.withLock { $0 }
    }
}

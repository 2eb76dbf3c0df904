import APNSCore
import HeraldCore

/// Sends notifications grouped by environment, each environment's group through its own sender
/// at once, and gives the results in input order. Campaign batches and direct sends both send
/// this way; `sender` finds an environment's sender or says why there is none (its whole group
/// then fails with that reason).
enum EnvironmentFanOut {
    static func send(
        _ items: [(environment: APNSEnvironment, notification: APNSNotification)],
        sender: @escaping @Sendable (APNSEnvironment) async -> Result<any NotificationSender, SendFailure>
    ) async -> [SendResult] {
        await send(count: items.count, environment: { items[$0].environment }, notification: { items[$0].notification }, sender: sender)
    }

    /// The same for `count` items read by position: each notification is copied once, into its
    /// environment's group, and nothing else of an item is (a campaign's items carry more).
    static func send(
        count: Int, environment: (Int) -> APNSEnvironment, notification: (Int) -> APNSNotification,
        sender: @escaping @Sendable (APNSEnvironment) async -> Result<any NotificationSender, SendFailure>
    ) async -> [SendResult] {
        var byEnvironment = [APNSEnvironment: [Int]]()
        for index in 0..<count { byEnvironment[environment(index), default: []].append(index) }
        var results = [SendResult](repeating: .failed(SendFailure(.notSent, detail: "not sent")), count: count)
        await withTaskGroup(of: ([Int], [SendResult]).self) { group in
            for (environment, indices) in byEnvironment {
                let notifications = indices.map { notification($0) }
                group.addTask {
                    switch await sender(environment) {
                    case .success(let sender): return (indices, await sender.send(notifications))
                    case .failure(let failure): return (indices, indices.map { _ in .failed(failure) })
                    }
                }
            }
            for await (indices, answers) in group {
                for (index, answer) in zip(indices, answers) { results[index] = answer }
            }
        }
        return results
    }
}

import APNSCore
import Foundation
import HeraldCore
import HeraldServer
import HeraldStore

/// Where a campaign benchmark sends: an endpoint given, or `herald apns-sim` as a child
/// process (so its CPU and memory are not herald's).
final class BenchSink: Sendable {
    let endpoint: String
    let caPEM: String?
    private let process: Process?

    private init(endpoint: String, caPEM: String?, process: Process?) {
        self.endpoint = endpoint
        self.caPEM = caPEM
        self.process = process
    }

    static func start(endpoint: String?, caFile: String?) async throws -> BenchSink {
        if let endpoint {
            let pem = try caFile.map { file in
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw CLIError("--ca-file: cannot read \(file)") }
                return text
            }
            return BenchSink(endpoint: endpoint, caPEM: pem, process: nil)
        }
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-ca-\(UUID()).pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["apns-sim", "--port", "0", "--ca-out", caFile, "--accept-any-signature"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The simulator's first line names its address: "APNs simulator on https://HOST:PORT".
        var buffer = Data()
        let handle = output.fileHandleForReading
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            guard !chunk.isEmpty else {
                process.terminate()
                throw CLIError("the APNs simulator did not start")
            }
            buffer += chunk
        }
        let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard let address = line.split(separator: " ").last.map(String.init), address.hasPrefix("https://"),
            let pem = try? String(contentsOfFile: caFile, encoding: .utf8)
        else {
            process.terminate()
            throw CLIError("the APNs simulator said \(line)")
        }
        try? FileManager.default.removeItem(atPath: caFile)
        return BenchSink(endpoint: address, caPEM: pem, process: process)
    }

    /// CPU seconds the child simulator has used; 0 for an external sink.
    func cpuSeconds() -> Double {
        guard let process else { return 0 }
        return ProcessStats.cpuSeconds(pid: String(process.processIdentifier))
    }

    func stop() {
        guard let process, process.isRunning else { return }
        process.interrupt()
        process.waitUntilExit()
    }
}

/// Synthetic devices like a real audience: 12 languages in realistic orders, mostly
/// authorized, some without alerts, a first name for most.
enum BenchDevices {
    static let languages: [[String]] = [
        ["en-US"], ["en-GB", "fr"], ["de-DE", "en"], ["fr-FR"], ["es-MX", "en"], ["es-ES"], ["pt-BR"], ["pt-PT", "en"],
        ["ja-JP"], ["zh-Hans-CN"], ["zh-Hant-HK", "en-GB"], ["ar-SA", "en"],
    ]

    /// Writes `count` devices through the import path; each carries `extraAttributes` attributes
    /// (`attr1`, `attr2`, …, short texts) besides the two the bench templates read.
    static func fill(store: Store, appID: Int64, count: Int, extraAttributes: Int = 0) async throws {
        let batch = 5_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func launch() {
                let range = next..<min(next + batch, count)
                next = range.upperBound
                group.addTask {
                    let items = try range.map { n in
                        DeviceImportItem(token: token(n), registration: try registration(n, extraAttributes: extraAttributes))
                    }
                    _ = try await store.devices.importBatch(appID: appID, items: items)
                }
            }
            // Two writers: one per core.
            for _ in 0..<2 where next < count { launch() }
            while try await group.next() != nil {
                if next < count { launch() }
            }
        }
    }

    static func token(_ n: Int) -> DeviceToken {
        try! DeviceToken(hex: String(format: "%016llx%016llx%016llx%016llx", UInt64(n), UInt64(n) &* 0x9E37_79B9_7F4A_7C15, 0, 0))
    }

    static func registration(_ n: Int, extraAttributes: Int = 0) throws -> DeviceRegistration {
        var attributes: [String: PayloadValue] =
            n % 25 == 0 ? [:] : ["firstName": .string(["Lena", "Yuki", "Ana", "Omar", "Wei"][n % 5]), "cartItemCount": .int(n % 4 + 1)]
        for k in stride(from: 1, through: extraAttributes, by: 1) {
            attributes["attr\(k)"] = .string("value \(k) of device \(n)")
        }
        let status: AuthorizationSettings.Status = n % 20 == 0 ? .denied : (n % 10 == 1 ? .provisional : .authorized)
        let allowed = status != .denied
        return try DeviceRegistration(
            environment: .production, languages: languages[n % languages.count],
            authorization: AuthorizationSettings(
                status: status, alert: allowed, badge: allowed && n % 3 != 0, sound: allowed && n % 4 != 0,
                timeSensitive: n % 7 == 0),
            timeZone: "Europe/Berlin", userID: "user-\(n)",
            attributes: attributes)
    }
}

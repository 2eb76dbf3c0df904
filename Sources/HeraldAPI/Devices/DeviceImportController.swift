import APNSCore
import HeraldCore
import Hummingbird
import Logging
import Synchronization

/// `POST /v1/apps/{bundleID}/devices/import`: NDJSON registrations, one per line, for moving
/// from another provider. The body is streamed and written in batches of one statement each,
/// each batch written while the next is parsed, so a file of millions of lines never sits in
/// memory. Good lines are stored even when others are refused; refused lines are reported by
/// number.
struct DeviceImportController {
    static let maximumLineBytes = 16 * 1024
    static let maximumReportedErrors = 1000

    let directory: AppDirectory
    let devices: any DeviceRepository
    let limits: APILimits
    /// Imports running on this instance: each holds a database connection and a core for as
    /// long as its body streams, so past `limits.concurrentImports` another is answered 429.
    let running: RunningCount

    struct LineError: ResponseEncodable, Equatable {
        var line: Int
        var field: String?
        var detail: String
    }

    struct Summary: ResponseEncodable {
        var lines = 0
        var created = 0
        var updated = 0
        var rejected = 0
        var errors = [LineError]()
        var errorsTruncated = false
    }

    @Sendable func importDevices(request: Request, context: HeraldRequestContext) async throws -> Summary {
        let bundleID = try context.parameters.require("bundleID")
        try context.requirePrincipal().requireDeviceAccess(.write, bundleID: bundleID)
        let app = try await directory.require(bundleID: bundleID)
        guard running.enter(limit: limits.concurrentImports) else {
            throw Problem.tooManyRequests(
                "\(limits.concurrentImports) imports are running on this instance; try again when one ends", retryAfter: 10)
        }
        defer { running.leave() }

        let batchSize = await devices.importBatchSize()
        var summary = Summary()
        var splitter = NDJSONLineSplitter(maximumLineBytes: Self.maximumLineBytes)
        var batch = [DeviceImportItem]()
        var batchLines = [Int]()
        var tokensInBatch = Set<DeviceToken>()
        batch.reserveCapacity(batchSize)
        let logger = context.logger

        // One batch is written while the next is read and parsed; writes stay one at a time, in
        // order, so a token repeated across batches is upserted in the order of its lines.
        var writing: (task: Task<DeviceImportCounts, any Error>, items: [DeviceImportItem], lines: [Int])?
        defer { writing?.task.cancel() }

        /// Waits for the batch being written and counts it.
        func settle() async throws {
            guard let current = writing else { return }
            writing = nil
            do {
                let counts = try await current.task.value
                summary.created += counts.created
                summary.updated += counts.updated
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // One line PostgreSQL refuses must not cost the others: each is tried alone, and
                // only if none goes in (the database itself is failing) does the import stop.
                logger.warning("an import batch failed; retrying it line by line", metadata: ["error": "\(String(reflecting: type(of: error)))"])
                var stored = 0
                for (item, line) in zip(current.items, current.lines) {
                    do {
                        let counts = try await devices.importBatch(appID: app.id, items: [item])
                        summary.created += counts.created
                        summary.updated += counts.updated
                        stored += 1
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        reject(LineError(line: line, field: nil, detail: "the database refused this line"))
                    }
                }
                if stored == 0, current.items.count > 1 { throw error }
            }
        }

        /// Starts writing the batch read so far, once the one before it is written.
        func flush() async throws {
            guard !batch.isEmpty else { return }
            try await settle()
            let (items, repository, appID) = (batch, devices, app.id)
            writing = (Task { try await repository.importBatch(appID: appID, items: items) }, items, batchLines)
            batch.removeAll(keepingCapacity: true)
            batchLines.removeAll(keepingCapacity: true)
            tokensInBatch.removeAll(keepingCapacity: true)
        }

        func handle(_ line: NDJSONLineSplitter.Line) async throws {
            switch line {
            case .tooLong(let number):
                summary.lines += 1
                reject(LineError(line: number, field: nil, detail: "line is longer than \(Self.maximumLineBytes) bytes"))
            case .text(let number, let bytes):
                guard bytes.readableBytesView.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
                summary.lines += 1
                do {
                    let item = try Self.parse(bytes, defaultEnvironment: app.defaultEnvironment)
                    // One statement cannot upsert a row twice: a repeated token starts a new batch.
                    if tokensInBatch.contains(item.token) { try await flush() }
                    tokensInBatch.insert(item.token)
                    batch.append(item)
                    batchLines.append(number)
                    if batch.count >= batchSize { try await flush() }
                } catch let error as ValidationError {
                    reject(LineError(line: number, field: error.field, detail: error.reason))
                } catch let problem as Problem {
                    reject(LineError(line: number, field: problem.field, detail: problem.detail))
                }
            }
        }

        func reject(_ error: LineError) {
            summary.rejected += 1
            if summary.errors.count < Self.maximumReportedErrors {
                summary.errors.append(error)
            } else {
                summary.errorsTruncated = true
            }
        }

        /// Stores what was read, then stops the import with `problem`, which says how far it got.
        func stop(_ problem: (String) -> Problem, _ reason: String) async throws -> Never {
            try await flush()
            try await settle()
            throw problem(
                "\(reason); the first \(summary.lines) lines were read (\(summary.created) created, \(summary.updated) updated, "
                    + "\(summary.rejected) refused); send the rest in another import")
        }

        let started = ContinuousClock.now
        var received = 0
        for try await chunk in request.body {
            received += chunk.readableBytes
            if received > limits.importMaximumBytes {
                try await stop(Problem.payloadTooLarge, "the import is larger than \(limits.importMaximumBytes) bytes")
            }
            if ContinuousClock.now - started > limits.importMaximumDuration {
                try await stop(Problem.requestTimeout, "the import took longer than \(limits.importMaximumDuration)")
            }
            splitter.append(chunk)
            while let line = splitter.nextLine() { try await handle(line) }
        }
        if let line = splitter.finish() { try await handle(line) }
        try await flush()
        try await settle()
        context.logger.info(
            "import finished",
            metadata: [
                "lines": "\(summary.lines)", "created": "\(summary.created)", "updated": "\(summary.updated)",
                "rejected": "\(summary.rejected)",
            ])
        return summary
    }

    static func parse(_ bytes: ByteBuffer, defaultEnvironment: APNSEnvironment) throws -> DeviceImportItem {
        let value = try JSONFields.parse(bytes.readableBytesView)
        guard value.isObject else { throw Problem.invalidRequest("each line must be a JSON object") }
        let line = try RequestDecoding.decode(ImportLineRequest.self, from: value)
        let token: DeviceToken
        do {
            token = try DeviceToken(hex: line.token)
        } catch {
            throw ValidationError(field: "token", reason: error.description)
        }
        return DeviceImportItem(token: token, registration: try line.registration.registration(defaultEnvironment: defaultEnvironment))
    }
}

/// How many of something run at once, bounded.
final class RunningCount: Sendable {
    private let count = Mutex(0)

    /// Counts one more, unless `limit` run already.
    func enter(limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() {
        count.withLock { $0 -= 1 }
    }
}

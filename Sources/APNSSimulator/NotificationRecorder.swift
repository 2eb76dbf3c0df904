import APNSCore
import Foundation
import Synchronization

/// Appends one JSON line per accepted notification to a file, for demos and end-to-end
/// checks (off by default). Lines are buffered and written in blocks of ``flushThreshold``
/// bytes, and on ``close()``.
///
/// A line: `{"received":<ms>,"apns-id":"…","token":"…","topic":"…","push-type":"…",
/// "priority":10,"collapse-id":"…","expiration":<s>,"key-id":"…","payload":{…}}`; `collapse-id`
/// and `expiration` only when sent, `key-id` (the provider token's `kid`) with token authentication, `certificate-uid` with certificate authentication. The payload is the body as sent, with raw line breaks
/// (only possible as JSON whitespace) turned into spaces.
final class NotificationRecorder: Sendable {
    static let flushThreshold = 64 * 1024

    private struct State {
        var handle: FileHandle?
        var buffer: [UInt8] = []
    }

    let path: String
    private let state: Mutex<State>

    /// Opens (creating if needed) `path` for appending.
    init(path: String) throws(SimulatorError) {
        self.path = path
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { throw .recordFile(path: path) }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw .recordFile(path: path) }
        do {
            _ = try handle.seekToEnd()
        } catch {
            throw .recordFile(path: path)
        }
        state = Mutex(State(handle: handle))
    }

    /// Records an accepted notification.
    func record(_ notification: SimulatorNotification, receivedAt: Date) throws(SimulatorError) {
        let line = Self.line(for: notification, receivedAt: receivedAt)
        let written = state.withLock { state in
            state.buffer.append(contentsOf: line)
            guard state.buffer.count >= Self.flushThreshold else { return true }
            return Self.write(&state)
        }
        guard written else { throw .recordFile(path: path) }
    }

    /// Writes what is buffered.
    func flush() throws(SimulatorError) {
        let written = state.withLock { state in
            Self.write(&state)
        }
        guard written else { throw .recordFile(path: path) }
    }

    /// Writes what is buffered and closes the file; later records are dropped.
    func close() throws(SimulatorError) {
        let written = state.withLock { state in
            let written = Self.write(&state)
            try? state.handle?.close()
            state.handle = nil
            return written
        }
        guard written else { throw .recordFile(path: path) }
    }

    /// Writes and empties the buffer; false when the write failed (the lines are dropped).
    private static func write(_ state: inout State) -> Bool {
        guard !state.buffer.isEmpty else { return true }
        defer { state.buffer.removeAll(keepingCapacity: true) }
        guard let handle = state.handle else { return true }
        do {
            try handle.write(contentsOf: state.buffer)
            return true
        } catch {
            return false
        }
    }

    /// One record line, newline included.
    static func line(for notification: SimulatorNotification, receivedAt: Date) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(notification.payload.count + 256)
        out.append(UInt8(ascii: "{"))
        SimulatorJSON.appendKey("received", to: &out)
        out.append(contentsOf: Array(String(SimulatorResponse.milliseconds(receivedAt)).utf8))
        out.append(UInt8(ascii: ","))
        SimulatorJSON.appendKey("apns-id", to: &out)
        SimulatorJSON.appendString(notification.apnsID.canonicalString, to: &out)
        out.append(UInt8(ascii: ","))
        SimulatorJSON.appendKey("token", to: &out)
        SimulatorJSON.appendString(notification.deviceToken, to: &out)
        out.append(UInt8(ascii: ","))
        SimulatorJSON.appendKey("topic", to: &out)
        SimulatorJSON.appendString(notification.topic, to: &out)
        out.append(UInt8(ascii: ","))
        SimulatorJSON.appendKey("push-type", to: &out)
        SimulatorJSON.appendString(notification.pushType.rawValue, to: &out)
        out.append(UInt8(ascii: ","))
        SimulatorJSON.appendKey("priority", to: &out)
        out.append(contentsOf: Array(String(notification.priority.rawValue).utf8))
        if let collapseID = notification.collapseID {
            out.append(UInt8(ascii: ","))
            SimulatorJSON.appendKey("collapse-id", to: &out)
            SimulatorJSON.appendString(collapseID, to: &out)
        }
        if let expiration = notification.expiration {
            out.append(UInt8(ascii: ","))
            SimulatorJSON.appendKey("expiration", to: &out)
            out.append(contentsOf: Array(String(expiration).utf8))
        }
        if let keyID = notification.keyID {
            out.append(UInt8(ascii: ","))
            SimulatorJSON.appendKey("key-id", to: &out)
            SimulatorJSON.appendString(keyID, to: &out)
        }
        if let uid = notification.certificateUID {
            out.append(UInt8(ascii: ","))
            SimulatorJSON.appendKey("certificate-uid", to: &out)
            SimulatorJSON.appendString(uid, to: &out)
        }
        out.append(UInt8(ascii: ","))
        SimulatorJSON.appendKey("payload", to: &out)
        for byte in notification.payload {
            out.append(byte == 0x0A || byte == 0x0D ? UInt8(ascii: " ") : byte)
        }
        out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
        return out
    }
}

import Foundation

/// CPU and memory of processes, read from /proc (Linux), for benchmarks.
enum ProcessStats {
    /// Resident memory of this process now (`VmRSS`) or at its peak (`VmHWM`), in bytes.
    static func memory(_ field: String = "VmRSS", pid: String = "self") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return digits * 1024
        }
        return 0
    }

    /// User and system CPU seconds of a process.
    static func cpuSeconds(pid: String) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name: state is field 3; utime and stime are 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds of each process whose command is `name` (e.g. every PostgreSQL backend), by PID.
    static func cpuSecondsByProcess(named name: String) -> [String: Double] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [:] }
        var seconds = [String: Double]()
        for pid in entries where pid.allSatisfy(\.isNumber) {
            guard let command = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
                command.trimmingCharacters(in: .whitespacesAndNewlines) == name
            else { continue }
            seconds[pid] = cpuSeconds(pid: pid)
        }
        return seconds
    }

    /// The CPU the processes named `name` spend from now on: each one's growth, a process that
    /// starts meanwhile counted whole. A process that exits meanwhile (an autovacuum worker) is
    /// left out instead of taking its earlier CPU off the sum.
    struct CPUSince {
        let name: String
        let start: [String: Double]

        init(processesNamed name: String) {
            self.name = name
            start = ProcessStats.cpuSecondsByProcess(named: name)
        }

        var seconds: Double {
            ProcessStats.cpuSecondsByProcess(named: name).reduce(0) { $0 + max(0, $1.value - (start[$1.key] ?? 0)) }
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.0f MB", Double(bytes) / 1_048_576)
    }
}

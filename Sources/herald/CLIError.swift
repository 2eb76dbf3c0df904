import HeraldCore
import Foundation
/// A one-line reason for the CLI to print before exiting non-zero.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// `--frequency-cap` values, or the one-line reason the first bad one is refused.
    static func frequencyCaps(_ texts: [String]) throws -> [FrequencyCap] {
        switch FrequencyCap.parse(list: texts) {
        case .success(let caps): return caps
        case .failure(let error) where error.field == "frequencyCaps": throw CLIError("--frequency-cap: \(error.reason)")
        case .failure(let error): throw CLIError("--frequency-cap \(error.reason)")
        }
    }
}

/// Plain aligned columns for list commands.
enum Table {
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

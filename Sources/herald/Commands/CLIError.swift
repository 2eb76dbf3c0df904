import Foundation
import HeraldAPI
import HeraldCore

/// A one-line reason for the CLI to print before exiting non-zero.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// A validation error, named by the flag that gave the field: `flags` maps fields whose flag
    /// is not the field's name in kebab case (`teamID` → `--team-id`).
    init(_ error: ValidationError, flags: [String: String] = [:]) {
        let field = error.field.split(separator: ".").last.map(String.init) ?? error.field
        let flag = flags[field] ?? "--" + Self.kebab(field)
        self.init("\(flag): \(error.reason)")
    }

    static func kebab(_ name: String) -> String {
        var out = ""
        var previousUpper = false
        for character in name {
            if character.isUppercase {
                if !out.isEmpty, !previousUpper { out.append("-") }
                out.append(contentsOf: character.lowercased())
                previousUpper = true
            } else {
                out.append(character)
                previousUpper = false
            }
        }
        return out
    }

    /// An RFC 3339 time given to `flag`.
    static func time(_ text: String, flag: String) throws -> Date {
        guard let date = RFC3339.parse(text) else {
            throw CLIError("\(flag) must be an RFC 3339 time such as 2027-06-30T00:00:00Z")
        }
        return date
    }

    /// PEM certificates from `--apns-ca-file` (or another `flag`).
    static func caPEM(file: String, flag: String = "--apns-ca-file") throws -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), text.contains("BEGIN CERTIFICATE") else {
            throw CLIError("\(flag): cannot read PEM certificates from \(file)")
        }
        return text
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

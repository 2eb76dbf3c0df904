import Crypto
import Foundation

/// One forward-only SQL file from `migrations/`, named `NNNN_verb_noun.sql`.
public struct Migration: Sendable, Equatable {
    public var name: String
    public var sql: String
    /// SHA-256 of the file, hex: an applied file that changes no longer matches it.
    public var checksum: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Loads every `NNNN_*.sql` file of a folder, in name order.
    public static func load(from directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError.directoryUnreadable(directory.path)
        }
        let files = names.filter { $0.hasSuffix(".sql") }.sorted()
        var migrations = [Migration]()
        for name in files {
            guard name.range(of: #"^[0-9]{4}_[a-z0-9_]+\.sql$"#, options: .regularExpression) != nil else {
                throw MigrationError.badName(name)
            }
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw MigrationError.directoryUnreadable(url.path)
            }
            migrations.append(Migration(name: name, sql: String(decoding: data, as: UTF8.self)))
        }
        guard !migrations.isEmpty else { throw MigrationError.noMigrations(directory.path) }
        return migrations
    }
}

/// Why migrations could not run. Descriptions are one line, for the CLI and logs.
public enum MigrationError: Error, Equatable, CustomStringConvertible {
    case directoryUnreadable(String)
    case noMigrations(String)
    case badName(String)
    case edited(String)
    case failed(String, String)

    public var description: String {
        switch self {
        case .directoryUnreadable(let path): "cannot read migrations at \(path)"
        case .noMigrations(let path): "no migrations (NNNN_name.sql) in \(path)"
        case .badName(let name): "migration file \(name) is not named NNNN_verb_noun.sql"
        case .edited(let name): "migration \(name) was edited after it was applied; add a new migration instead"
        case .failed(let name, let reason): "migration \(name) failed and was rolled back: \(reason)"
        }
    }
}

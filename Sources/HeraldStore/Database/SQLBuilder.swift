import PostgresNIO

/// SQL text and its bindings built side by side, for statements whose shape depends on input
/// (an audience filter). `bind` writes the next `$n` and appends the value to the bindings;
/// `append` takes SQL that Herald writes itself, never a value from outside.
struct SQLBuilder: Sendable {
    private(set) var sql: String
    private(set) var binds = PostgresBindings()

    init(_ sql: String = "") {
        self.sql = sql
    }

    mutating func append(_ text: String) {
        sql += text
    }

    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) {
        binds.append(value)
        sql += "$\(binds.count)"
    }

    /// `bind` for a value that may be absent: `NULL` when it is.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) {
        if let value { bind(value) } else { sql += "NULL" }
    }

    var query: PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}

import APNSCore
import NIOCore
import PostgresNIO

/// APNs's millisecond timestamp as a PostgreSQL `timestamptz`, bound exactly: microseconds since
/// 2000-01-01 in integer arithmetic. (A `Date` is encoded through a floating-point number of
/// seconds and truncated, which can land a microsecond early; rule 1 compares against it.)
struct ExactTimestamp: PostgresNonThrowingEncodable, PostgresArrayEncodable {
    static let postgresEpochMilliseconds: Int64 = 946_684_800_000

    let milliseconds: Int64

    init(_ timestamp: APNSTimestamp) {
        milliseconds = timestamp.milliseconds
    }

    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }
    static var psqlArrayType: PostgresDataType { .timestamptzArray }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger((milliseconds - Self.postgresEpochMilliseconds) * 1000)
    }
}

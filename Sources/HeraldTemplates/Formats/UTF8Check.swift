/// Finds where bytes stop being well-formed UTF-8, so a bad `.strings` file is reported with the
/// line of its first bad byte instead of being silently repaired.
enum UTF8Check {
    /// The offset (from the slice's start) of the first byte that is not part of well-formed
    /// UTF-8 (Unicode table 3-7), or nil when every byte is.
    static func firstInvalidOffset(in bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            let length: Int
            // The range allowed for the second byte: narrower after E0, ED, F0 and F4, which
            // rules out overlong forms, surrogates and code points past U+10FFFF.
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0x00...0x7F:
                index += 1
                continue
            case 0xC2...0xDF:
                length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF:
                length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3:
                length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default:
                return index - bytes.startIndex
            }
            guard bytes.endIndex - index >= length else { return index - bytes.startIndex }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return index - bytes.startIndex }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return index - bytes.startIndex
            }
            index += length
        }
        return nil
    }
}

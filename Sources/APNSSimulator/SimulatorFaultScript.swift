import Foundation

/// What the simulator does wrong on purpose, to exercise a client's fault handling
/// (410, 429, 5xx, GOAWAY, slow responses, dropped and silent connections).
///
/// Token faults and fractions apply only to requests that passed every check, in this order:
/// ``unregistered``, ``badDeviceTokens``, then one roll against the fractions
/// (429, then 500, then 503). Rolls come from a generator seeded with ``seed``, so a run with
/// the same requests in the same order fails the same ones.
public struct SimulatorFaultScript: Sendable {
    /// Device tokens (lowercase hex) that answer 410 Unregistered with this timestamp.
    public var unregistered: [String: Date]
    /// Device tokens (lowercase hex) that answer 400 BadDeviceToken.
    public var badDeviceTokens: Set<String>
    /// Device tokens (lowercase hex) answered 429 TooManyRequests for their first N requests,
    /// then as any other: a device APNs throttles for a while.
    public var tooManyRequestsTokens: [String: Int] = [:]
    /// Share of accepted requests answered 429 TooManyRequests, `0...1`.
    public var tooManyRequestsFraction: Double
    /// Share of accepted requests answered 500 InternalServerError, `0...1`.
    public var internalErrorFraction: Double
    /// Share of accepted requests answered 503 ServiceUnavailable, `0...1`.
    public var serviceUnavailableFraction: Double
    /// Seeds the generator behind the fractions.
    public var seed: UInt64
    /// On each connection, send GOAWAY (`{"reason":"Shutdown"}`, last-stream-id = the stream of
    /// the Nth request) when the Nth request arrives, answer the streams up to it, then close.
    public var goAwayAfterRequests: Int?
    /// Wait this long before answering each request.
    public var responseDelay: Duration?
    /// On each connection, answer N requests, then go silent: no responses, no PING acks, no
    /// frames at all, while the TCP connection stays open (a dead peer, for keepalive tests).
    public var stopAnsweringAfterRequests: Int?
    /// Share of accepted requests never answered, `0...1`, while the connection goes on
    /// answering the others: a stream lost in a half-open connection or a middlebox. Rolled
    /// from its own generator, so it does not change which requests the other fractions hit.
    public var stallFraction: Double

    public init(
        unregistered: [String: Date] = [:],
        badDeviceTokens: Set<String> = [],
        tooManyRequestsFraction: Double = 0,
        internalErrorFraction: Double = 0,
        serviceUnavailableFraction: Double = 0,
        seed: UInt64 = 0x4845_5241_4C44,
        goAwayAfterRequests: Int? = nil,
        responseDelay: Duration? = nil,
        stopAnsweringAfterRequests: Int? = nil,
        stallFraction: Double = 0
    ) {
        self.unregistered = unregistered
        self.badDeviceTokens = badDeviceTokens
        self.tooManyRequestsFraction = tooManyRequestsFraction
        self.internalErrorFraction = internalErrorFraction
        self.serviceUnavailableFraction = serviceUnavailableFraction
        self.seed = seed
        self.goAwayAfterRequests = goAwayAfterRequests
        self.responseDelay = responseDelay
        self.stopAnsweringAfterRequests = stopAnsweringAfterRequests
        self.stallFraction = stallFraction
    }

    /// True when any fraction can fire, so the generator is consulted at all.
    public var hasFractions: Bool {
        tooManyRequestsFraction > 0 || internalErrorFraction > 0 || serviceUnavailableFraction > 0
    }

    /// The fault for an accepted request to `tokenHex` (lowercase), given a uniform `roll` in
    /// `0..<1`; `nil` means answer 200.
    public func fault(forToken tokenHex: String, roll: Double) -> SimulatorFault? {
        tokenFault(forToken: tokenHex) ?? fractionFault(roll: roll)
    }

    /// The fault scripted for this token, if any: 410 before BadDeviceToken.
    public func tokenFault(forToken tokenHex: String) -> SimulatorFault? {
        if let timestamp = unregistered[tokenHex] {
            return .unregistered(timestamp: timestamp)
        }
        if badDeviceTokens.contains(tokenHex) {
            return .badDeviceToken
        }
        return nil
    }

    /// The fault a roll in `0..<1` lands on: the fractions are stacked 429, 500, 503.
    public func fractionFault(roll: Double) -> SimulatorFault? {
        var bound = tooManyRequestsFraction
        if roll < bound { return .tooManyRequests }
        bound += internalErrorFraction
        if roll < bound { return .internalServerError }
        bound += serviceUnavailableFraction
        if roll < bound { return .serviceUnavailable }
        return nil
    }

    /// The same script with token keys lowercased, as the simulator compares them.
    func normalized() -> SimulatorFaultScript {
        var copy = self
        copy.unregistered = Dictionary(
            unregistered.map { ($0.key.lowercased(), $0.value) },
            uniquingKeysWith: { first, _ in first }
        )
        copy.badDeviceTokens = Set(badDeviceTokens.map { $0.lowercased() })
        copy.tooManyRequestsTokens = Dictionary(
            tooManyRequestsTokens.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        return copy
    }

    /// Refuses fractions outside `0...1` (or summing past 1), counts below their minimum and
    /// negative delays.
    func validate() throws(SimulatorError) {
        let fractions = [
            ("tooManyRequestsFraction", tooManyRequestsFraction),
            ("internalErrorFraction", internalErrorFraction),
            ("serviceUnavailableFraction", serviceUnavailableFraction),
        ]
        guard (0.0...1.0).contains(stallFraction) else {
            throw .invalidConfiguration("stallFraction must be within 0...1")
        }
        for (name, value) in fractions where !(0.0...1.0).contains(value) {
            throw .invalidConfiguration("\(name) must be within 0...1")
        }
        guard fractions.reduce(0, { $0 + $1.1 }) <= 1 + 1e-9 else {
            throw .invalidConfiguration("the fault fractions must add up to at most 1")
        }
        if let goAwayAfterRequests, goAwayAfterRequests < 1 {
            throw .invalidConfiguration("goAwayAfterRequests must be at least 1")
        }
        if let stopAnsweringAfterRequests, stopAnsweringAfterRequests < 0 {
            throw .invalidConfiguration("stopAnsweringAfterRequests must not be negative")
        }
        if let responseDelay, responseDelay < .zero {
            throw .invalidConfiguration("responseDelay must not be negative")
        }
    }
}

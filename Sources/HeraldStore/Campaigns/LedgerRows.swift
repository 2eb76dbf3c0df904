import Foundation
import HeraldCore

/// A batch's ledger rows as the INSERT binds them (``PostgresCampaignWork/insert(_:lease:part:invalidated:cursor:conflicts:on:logger:)``).
/// Per row only what differs from device to device: its ID, apns-id, variant, bucket, and the
/// places of its outcome and its language in the batch's short lists of distinct ones. A batch
/// of 2,000 has a handful of outcomes (mostly "accepted") and a dozen languages; bound per row
/// as text, they were a third of the arrays' encoding in Herald and of their decoding in
/// PostgreSQL (BENCHMARKS.md, "A campaign's ledger rows, bound by place").
struct LedgerRows {
    var deviceIDs: [Int64] = []
    /// Each row's outcome: a place (from 1, as SQL arrays count) in `outcomes`, `statuses` and `reasons`.
    var outcomePlaces: [Int32] = []
    var outcomes: [String] = []
    /// 0 for none.
    var statuses: [Int32] = []
    /// "" for none.
    var reasons: [String] = []
    /// The nil UUID for none.
    var apnsIDs: [UUID] = []
    /// Each row's language: a place (from 1) in `languages`, whose first is "" (none).
    var languagePlaces: [Int32] = []
    var languages: [String] = [""]
    /// -1 for none.
    var variants: [Int16] = []
    /// Each row's retry time (the epoch for none), or empty when no row has one: `unnest` pads
    /// a shorter array with NULLs, so the rows of a batch without retries bind none.
    var retryAts: [Date] = []
    var buckets: [Int32] = []

    /// Throws ``StoreError/missingBucket(deviceID:)`` for a record without a bucket in 0…255,
    /// which names its row's part: refused before anything is written, rather than filed under
    /// a wrong part.
    init(_ records: [DeliveryRecord]) throws {
        deviceIDs.reserveCapacity(records.count)
        outcomePlaces.reserveCapacity(records.count)
        apnsIDs.reserveCapacity(records.count)
        languagePlaces.reserveCapacity(records.count)
        variants.reserveCapacity(records.count)
        buckets.reserveCapacity(records.count)
        var outcomePlace = [DeliveryOutcome: Int32]()
        var languagePlace = ["": Int32(1)]
        // The last outcome and language seen, and their places: neighbours mostly share them.
        var last: (outcome: DeliveryOutcome, place: Int32)?
        var lastLanguage: (value: String, place: Int32) = ("", 1)
        for record in records {
            let bucket = try PostgresCampaignWork.bucket(of: record)
            deviceIDs.append(record.deviceID)
            if let last, last.outcome == record.outcome {
                outcomePlaces.append(last.place)
            } else {
                let place =
                    outcomePlace[record.outcome]
                    ?? {
                        outcomes.append(record.outcome.kind.rawValue)
                        statuses.append(Int32(clamping: record.outcome.status ?? 0))
                        reasons.append(record.outcome.reason ?? "")
                        outcomePlace[record.outcome] = Int32(outcomes.count)
                        return Int32(outcomes.count)
                    }()
                last = (record.outcome, place)
                outcomePlaces.append(place)
            }
            let language = record.language?.value ?? ""
            if language != lastLanguage.value {
                let place =
                    languagePlace[language]
                    ?? {
                        languages.append(language)
                        languagePlace[language] = Int32(languages.count)
                        return Int32(languages.count)
                    }()
                lastLanguage = (language, place)
            }
            languagePlaces.append(lastLanguage.place)
            apnsIDs.append(record.apnsID ?? PostgresCampaignWork.noUUID)
            variants.append(Int16(clamping: record.variant ?? -1))
            buckets.append(bucket)
        }
        if records.contains(where: { $0.retryAt != nil }) {
            retryAts = records.map { $0.retryAt ?? Date(timeIntervalSince1970: 0) }
        }
    }
}

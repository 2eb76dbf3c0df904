import Foundation
import HeraldCore
import Testing

@testable import HeraldStore

/// A batch's ledger rows as bound: each row's outcome and language by place in short lists,
/// read back exactly as the records hold them.
@Suite struct LedgerRowsTests {
    private func record(
        _ id: Int64, _ outcome: DeliveryOutcome, language: String? = nil, variant: Int? = nil, retryAt: Date? = nil,
        bucket: Int? = 3
    ) -> DeliveryRecord {
        DeliveryRecord(
            deviceID: id, outcome: outcome, apnsID: id == 4 ? nil : UUID(), language: language.flatMap { LanguageTag($0) },
            variant: variant, retryAt: retryAt, bucket: bucket)
    }

    @Test func eachRowReadsBackItsOutcomeLanguageAndValues() throws {
        let records = [
            record(1, .accepted, language: "en", variant: 0),
            record(2, .accepted, language: "fr", variant: 1),
            record(3, .failed(status: 400, reason: "BadDeviceToken"), language: "en"),
            record(4, .skipped(reason: "notAuthorized")),
            record(5, .accepted, language: "en", variant: 0),
            record(6, .failed(status: nil, reason: "PayloadTooLarge"), language: "fr"),
            record(7, .failed(status: 400, reason: "BadDeviceToken"), language: "de"),
            record(8, .heldOut, language: "en", bucket: 255),
        ]
        let rows = try LedgerRows(records)
        #expect(rows.deviceIDs == records.map(\.deviceID))
        #expect(rows.outcomes.count == 5, "accepted, two failures, a skip, held out: each once")
        #expect(rows.languages == ["", "en", "fr", "de"])
        #expect(rows.retryAts.isEmpty, "no row has a retry time: none is bound")
        for (index, record) in records.enumerated() {
            let outcome = Int(rows.outcomePlaces[index]) - 1
            #expect(rows.outcomes[outcome] == record.outcome.kind.rawValue)
            #expect(rows.statuses[outcome] == Int32(record.outcome.status ?? 0))
            #expect(rows.reasons[outcome] == record.outcome.reason ?? "")
            #expect(rows.languages[Int(rows.languagePlaces[index]) - 1] == record.language?.value ?? "")
            #expect(rows.apnsIDs[index] == record.apnsID ?? PostgresCampaignWork.noUUID)
            #expect(rows.variants[index] == Int16(record.variant ?? -1))
            #expect(rows.buckets[index] == Int32(record.bucket ?? -1))
        }
    }

    @Test func retryTimesAreBoundForEveryRowOnceOneHasOne() throws {
        let later = Date(timeIntervalSince1970: 1_800_000_000)
        let rows = try LedgerRows([record(1, .accepted), record(2, .deferred, retryAt: later), record(3, .accepted)])
        #expect(rows.retryAts == [Date(timeIntervalSince1970: 0), later, Date(timeIntervalSince1970: 0)])
    }

    @Test func aRecordWithoutABucketIsRefusedWhole() {
        let missing = #expect(throws: StoreError.self) {
            try LedgerRows([record(1, .accepted), record(2, .accepted, bucket: nil)])
        }
        #expect(missing?.description.contains("device 2") == true)
        let outside = #expect(throws: StoreError.self) { try LedgerRows([record(1, .accepted, bucket: 256)]) }
        #expect(outside?.description.contains("device 1") == true)
    }

    @Test func anEmptyBatchBindsNothing() throws {
        let rows = try LedgerRows([])
        #expect(rows.deviceIDs.isEmpty && rows.outcomes.isEmpty && rows.languages == [""])
    }
}

import LullCore
import Testing

@testable import LullStore

/// The words lulld writes into the store's text columns: `jobs.kind`, `jobs.state`, `events.type`
/// and `events.state`. An older lulld that meets a word it does not know cannot show that job (a
/// page of jobs that holds it fails) and leaves that event out; a store migrated past what it
/// knows, though, it refuses at start, saying so (`StoreVersionCheck`). So a new word comes with a
/// migration, even one that changes nothing else. This test fails when a kind, a state or an
/// event type is added: add a migration, then move this record to it.
@Suite struct StoreVocabularyTests {
    @Test func aNewWordInTheStoreComesWithAMigration() {
        #expect(StoreSchema.migrator.migrations.last == "v9: job counts by class and state")
        #expect(Set(JobKind.allCases.map(\.rawValue)) == ["fetch", "push", "upload", "run"])
        #expect(
            Set(JobState.allCases.map(\.rawValue))
                == ["queued", "running", "paused", "succeeded", "failed", "cancelled", "expired"]
        )
        #expect(
            Set(JobEventType.allCases.map(\.rawValue)) == [
                "submitted", "started", "progress", "requeued", "stopped", "retrying", "paused", "resumed",
                "succeeded", "failed", "cancelled", "expired",
            ]
        )
    }
}

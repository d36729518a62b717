import Foundation
import LullCore
import Testing

/// Which retry policy a job's failures follow.
@Suite struct RetryPolicyLookupTests {
    @Test func aJobFollowsItsClassWithItsOwnOverrides() {
        let policy = SchedulingPolicy.defaults
        #expect(policy.retryPolicy(for: storedJob(1, jobClass: "utility").spec) == JobClassPolicy.utility.retry)
        let own = storedJob(1, jobClass: "utility", retry: RetrySettings(maxAttempts: 2, capSeconds: 9))
        #expect(
            policy.retryPolicy(for: own.spec)
                == RetryPolicy(maxAttempts: 2, backoffBase: JobClassPolicy.utility.retry.backoffBase, backoffCap: 9)
        )
    }

    @Test func aClassTheConfigNoLongerHasRetriesAsDefault() {
        let removed = storedJob(1, jobClass: "nightly").spec
        #expect(SchedulingPolicy.defaults.retryPolicy(for: removed) == JobClassPolicy.default.retry)
    }

    @Test func withoutADefaultClassTheStandardPolicyApplies() {
        let policy = SchedulingPolicy(classes: [.interactive])
        #expect(policy.retryPolicy(for: storedJob(1, jobClass: "nightly").spec) == .standard)
    }
}

import LullCore
import Testing

@testable import LullDaemon

/// The words of the service manager's STATUS= line.
@Suite struct ServiceStatusLineTests {
    func line(
        running: Int = 3,
        queued: Int = 41,
        mode: DispatchMode = .accepting,
        held: [WaitingReason.Code: Int]
    )
        -> String
    {
        ServiceStatusLine(running: running, queued: queued, mode: mode) { held }.text
    }

    @Test func theTwoConditionsHoldingTheMostJobsAreNamed() {
        #expect(
            line(held: [.outsideWindow: 3, .onBattery: 9, .offline: 1])
                == "3 running, 41 queued; holding 13: on battery (9), outside time window (3)"
        )
        #expect(
            line(held: [.metered: 2, .cellular: 2])
                == "3 running, 41 queued; holding 4: cellular network (2), metered network (2)"
        )
        #expect(line(held: [:]) == "3 running, 41 queued")
    }

    @Test func aModeThatStartsNothingSaysWhyAndCountsNoConditions() {
        let counted: () -> [WaitingReason.Code: Int] = {
            Issue.record("conditions are not counted while nothing may start")
            return [:]
        }
        #expect(
            ServiceStatusLine(running: 0, queued: 5, mode: .restoring, held: counted).text
                == "0 running, 5 queued; loading the queue"
        )
        #expect(
            ServiceStatusLine(running: 0, queued: 5, mode: .sleeping, held: counted).text
                == "0 running, 5 queued; transfers checkpointed for sleep"
        )
        #expect(
            ServiceStatusLine(running: 2, queued: 0, mode: .stopping, held: counted).text
                == "2 running, 0 queued; stopping"
        )
        #expect(ServiceStatusLine(running: 2, queued: 0, mode: .accepting, held: counted).text == "2 running, 0 queued")
    }
}

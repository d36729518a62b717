import Foundation
import LullCore
import LullTestSupport
import Synchronization
import Testing

@testable import LullSensors

/// /proc files as a 2-core machine under some load prints them.
enum ProcFixtures {
    static func tree(
        cpuSomeAvg10: Double = 12.5,
        ioSomeAvg10: Double = 3.4,
        user: UInt64 = 10_000,
        idle: UInt64 = 50_000
    ) -> [String: String] {
        [
            "pressure/cpu": """
            some avg10=\(String(format: "%.2f", cpuSomeAvg10)) avg60=8.01 avg300=2.50 total=168695444
            full avg10=0.00 avg60=0.00 avg300=0.00 total=0

            """,
            "pressure/memory": """
            some avg10=0.31 avg60=0.12 avg300=0.04 total=4242
            full avg10=0.11 avg60=0.05 avg300=0.01 total=1717

            """,
            "pressure/io": """
            some avg10=\(String(format: "%.2f", ioSomeAvg10)) avg60=1.20 avg300=0.30 total=999999
            full avg10=2.90 avg60=1.00 avg300=0.25 total=888888

            """,
            "stat": """
            cpu  \(user) 200 3000 \(idle) 400 0 100 0 0 0
            cpu0 5000 100 1500 25000 200 0 50 0 0 0
            cpu1 5000 100 1500 25000 200 0 50 0 0 0
            intr 123456 0 0
            ctxt 987654
            btime 1700000000
            processes 4242
            procs_running 2
            procs_blocked 0

            """,
            "meminfo": """
            MemTotal:       24567890 kB
            MemFree:         1234567 kB
            MemAvailable:   12345678 kB
            Buffers:          234567 kB
            Cached:          5678901 kB

            """,
            "loadavg": "0.52 0.41 0.30 2/345 6789\n",
            "self/statm": "123456 2560 1024 100 0 20000 0\n",
            "self/stat":
                "4242 (lulld (test)) S 1 4242 4242 0 -1 4194560 1500 0 0 0 250 50 0 0 20 0 8 0 12345 505540608 2560 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n",
            "self/cgroup": "0::/system.slice/lulld.service\n",
        ]
    }

    static let cgroup: [String: String] = [
        "system.slice/lulld.service/memory.current": "31457280\n",
        "system.slice/lulld.service/cpu.stat": "usage_usec 4500000\nuser_usec 4000000\nsystem_usec 500000\n",
    ]
}

@Suite("pressure and sampling", .timeLimit(.minutes(1)))
struct SamplerTests {
    @Test("fixture /proc files parse to the right values")
    func parsing() async {
        await withTemporaryDirectory { root in
            writeTree(root + "/proc", ProcFixtures.tree())
            writeTree(root + "/cgroup", ProcFixtures.cgroup)
            let sampler = Sampler(
                configuration: .init(procRoot: root + "/proc", cgroupRoot: root + "/cgroup"),
                clock: FixedClock(Date(timeIntervalSince1970: 1_800_000_000))
            )
            let sample = await sampler.sampleNow()
            #expect(sample.time == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(
                sample.cpuPressure
                    == PressureReading(
                        some: .init(avg10: 12.5, avg60: 8.01, avg300: 2.5, totalMicroseconds: 168_695_444),
                        full: .init(avg10: 0, avg60: 0, avg300: 0, totalMicroseconds: 0)
                    )
            )
            #expect(sample.memoryPressure?.full?.avg10 == 0.11)
            #expect(sample.ioPressure?.some.avg10 == 3.4)
            #expect(sample.memory == MemoryInfo(totalBytes: 24_567_890 * 1024, availableBytes: 12_345_678 * 1024))
            #expect(sample.load == LoadAverage(one: 0.52, five: 0.41, fifteen: 0.30))
            #expect(sample.cpuUtilisation == nil, "the first sample has no previous one")
            let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            #expect(sample.process.rssBytes == 2560 * page)
            #expect(sample.process.cpuSeconds == 300 / ticks, "utime 250 + stime 50, despite the ') ' in comm")
            #expect(sample.process.cgroupMemoryBytes == 31_457_280)
            #expect(sample.process.cgroupCPUSeconds == 4.5)
            #expect(
                sample.pressureState
                    == PressureState(cpu: 12.5, memory: 0.31, io: 3.4, source: "PSI /proc/pressure (avg10)")
            )
            #expect(sampler.pressure == sample.pressureState)

            // CPU utilisation is the busy share between two samples: +600 busy, +400 idle.
            writeTree(root + "/proc", ProcFixtures.tree(user: 10_600, idle: 50_400))
            let second = await sampler.sampleNow()
            #expect(second.cpuUtilisation == 0.6)
        }
    }

    @Test("missing PSI (kernel without CONFIG_PSI) and odd files degrade to nil")
    func missingFiles() async {
        await withTemporaryDirectory { root in
            writeTree(root, ["loadavg": "garbage\n", "meminfo": "MemTotal: 1 kB\n"])
            let (sample, cpu) = Sampler.read(procRoot: root, cgroupRoot: nil, time: Date())
            #expect(sample.cpuPressure == nil && sample.memory == nil && sample.load == nil && cpu == nil)
            #expect(sample.pressureState.cpu == nil)
            #expect(sample.pressureState.source == "PSI unavailable")
        }
        #expect(PressureReading.parse("some avg10=1.00 avg60=2.00 avg300=3.00 total=4\n")?.full == nil)
        #expect(
            CPUTimes.utilisation(
                from: CPUTimes(user: 5, nice: 0, system: 0, idle: 5),
                to: CPUTimes(user: 5, nice: 0, system: 0, idle: 5)
            ) == nil
        )
    }

    @Test("the real /proc parses")
    func realProc() {
        let (sample, cpu) = Sampler.read(procRoot: "/proc", cgroupRoot: "/sys/fs/cgroup", time: Date())
        #expect(cpu != nil)
        #expect(sample.memory.map { $0.availableBytes > 0 && $0.availableBytes <= $0.totalBytes } == true)
        #expect(sample.load != nil)
        #expect(sample.process.rssBytes > 0)
        if FileManager.default.fileExists(atPath: "/proc/pressure/cpu") { #expect(sample.cpuPressure != nil) }
    }

    @Test("ring buffer keeps the newest `capacity` elements in order")
    func ringBuffer() {
        var ring = RingBuffer<Int>(capacity: 600)
        #expect(ring.isEmpty && ring.last == nil)
        for i in 0..<1_000 { ring.append(i) }
        #expect(ring.count == 600)
        #expect(ring.elements == Array(400..<1_000))
        #expect(ring.first == 400 && ring.last == 999)
        var small = RingBuffer<String>(capacity: 2)
        small.append("a")
        #expect(small.elements == ["a"])
        small.append("b")
        small.append("c")
        #expect(small.elements == ["b", "c"])
        small.removeAll()
        #expect(small.isEmpty)
    }

    @Test("no demand: no loop, no ticks; demand: ticks into a capped history; release: quiet again")
    func demandDrivesTheTimer() async throws {
        try await withTemporaryDirectory { root in
            writeTree(root, ProcFixtures.tree())
            let sleeps = Mutex(0)
            let sampler = Sampler(
                configuration: .init(
                    procRoot: root,
                    cgroupRoot: nil,
                    busyInterval: .milliseconds(5),
                    idleInterval: .milliseconds(5),
                    historyCapacity: 8
                ),
                sleeper: ScriptedSleeper { duration in
                    // Counts timers armed by a live loop. A call that reaches
                    // here after `release` comes from the cancelled loop and
                    // ends at once; checking under the lock orders it against
                    // the snapshot below, so the count cannot race it.
                    sleeps.withLock { if !Task.isCancelled { $0 += 1 } }
                    try await Task.sleep(for: duration)
                }
            )
            // Nobody needs it: nothing runs, however long we look.
            try await Task.sleep(for: .milliseconds(100))
            #expect(await sampler.tickCount == 0)
            #expect(await sampler.isRunning == false)
            #expect(sleeps.withLock { $0 } == 0, "no timer was ever armed")

            let stream = sampler.sampleStream()
            let demand = await sampler.acquire(.watch)
            #expect(await sampler.isRunning)
            var seen = 0
            for await _ in stream {
                seen += 1
                if seen == 12 { break }
            }
            #expect(await sampler.tickCount >= 12)
            #expect(await sampler.samples().count == 8, "history capped at its capacity")

            await sampler.release(demand)
            #expect(await sampler.isRunning == false)
            let ticks = await sampler.tickCount
            let armed = sleeps.withLock { $0 }
            try await Task.sleep(for: .milliseconds(100))
            #expect(await sampler.tickCount == ticks, "no tick after the last demand went away")
            #expect(sleeps.withLock { $0 } == armed, "no timer armed after release")
            #expect(await sampler.demandCount == 0)
        }
    }

    @Test("pressure-only demand samples coarsely when the machine is idle, as the kernel updates when busy")
    func adaptiveInterval() async throws {
        try await withTemporaryDirectory { root in
            writeTree(root, ProcFixtures.tree(cpuSomeAvg10: 0, ioSomeAvg10: 0))
            let requested = Mutex<[Duration]>([])
            let sampler = Sampler(
                configuration: .init(
                    procRoot: root,
                    cgroupRoot: nil,
                    busyInterval: .milliseconds(1),
                    pressureWaitInterval: .milliseconds(3),
                    idleInterval: .milliseconds(5)
                ),
                sleeper: ScriptedSleeper { duration in
                    requested.withLock { $0.append(duration) }
                    try await Task.sleep(for: .milliseconds(1))
                }
            )
            let stream = sampler.sampleStream()
            let demand = await sampler.acquire(.pressureWait)
            _ = try await firstValue(stream, "two samples") { _ in requested.withLock { $0.count } >= 2 }
            #expect(requested.withLock { $0 }.last == .milliseconds(5), "idle machine: coarse")
            writeTree(root, ProcFixtures.tree(cpuSomeAvg10: 40, ioSomeAvg10: 0))
            _ = try await firstValue(stream, "busy sample") { $0.cpuPressure?.some.avg10 == 40 }
            _ = try await firstValue(stream, "next sample") { _ in true }
            #expect(requested.withLock { $0 }.last == .milliseconds(3), "busy machine: the pressure wait's interval")
            let watcher = await sampler.acquire(.watch)
            #expect(await sampler.nextInterval() == .milliseconds(1))
            await sampler.release(watcher)
            await sampler.release(demand)
            #expect(await sampler.isRunning == false)
        }
    }
}

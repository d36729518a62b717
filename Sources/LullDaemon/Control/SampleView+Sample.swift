import LullAPI
import LullSensors

/// A sample as `GET /v1/samples` and `status` show it.
extension SampleView {
    init(_ sample: Sample) {
        self.init(
            time: sample.time,
            cpuUtilisation: sample.cpuUtilisation,
            cpuPressure: sample.cpuPressure?.some.avg10,
            memoryPressure: sample.memoryPressure?.some.avg10,
            ioPressure: sample.ioPressure?.some.avg10,
            memoryAvailableBytes: sample.memory.map { Int64($0.availableBytes) },
            memoryTotalBytes: sample.memory.map { Int64($0.totalBytes) },
            load1m: sample.load?.one,
            daemonCPUSeconds: sample.process.cpuSeconds,
            daemonRSSBytes: sample.process.rssBytes
        )
    }
}

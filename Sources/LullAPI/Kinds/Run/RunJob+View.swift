import LullCore

extension RunJob {
    func describe(_ view: inout JobView) {
        view.argv = argv
        view.workingDirectory = workingDirectory
        view.environment = environment
        view.retryExitCodes = retryExitCodes
        view.stopGraceSeconds = stopGraceSeconds
        view.outputTailBytes = outputTailBytes
        view.nice = nice
        view.cpuWeight = resources?.cpuWeight
        view.memoryMax = resources?.memoryMax
        view.ioWeight = resources?.ioWeight
        view.tasksMax = resources?.tasksMax
        view.unit = unit
    }
}

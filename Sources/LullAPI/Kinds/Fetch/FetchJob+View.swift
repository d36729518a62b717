import LullCore

extension FetchJob {
    func describe(_ view: inout JobView) {
        view.url = url
        view.destination = destination
        view.sha256 = sha256
        view.expectedBytes = expectedBytes
        view.maxBytes = maxBytes
        view.mode = fileMode?.octal
        view.caFile = caFile
    }
}
